// Wide jobs of the heet policy (heet_wide.hpp): a job asking for more GPUs than the largest host
// runs on its requested count over several hosts of one GPU type. Ours: the Heet prototype
// (mozizhao/elastic, our_scheduler.py) caps every job at one host; Heet (Mo, Xu, Xu, ASPLOS'24)
// plans slots within a host. The cross-host price is the run's model on the exact GPUs.
#include "heet_wide.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "hetsim/policy/heet_plan.hpp"

namespace hetsim {

int largest_host(const Cluster& cluster) {
  int largest = 0;
  for (const Node& n : cluster.nodes()) largest = std::max(largest, n.gpu_count);
  return largest;
}

namespace {

// The first `count` GPUs of `type` in node order (the hosts a wide job fills first).
std::vector<GpuId> first_gpus_of_type(const Cluster& cluster, GpuTypeId type, int count) {
  std::vector<GpuId> gpus;
  for (const Node& n : cluster.nodes()) {
    if (n.gpu_type != type) continue;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && static_cast<int>(gpus.size()) < count; ++g)
      gpus.push_back(g);
  }
  return gpus;
}

}  // namespace

// `count` free GPUs of `type`: hosts with the most GPUs free and not held by a running wide job
// first (whole hosts before pieces, and other wide jobs' hosts last, so fewer jobs restart).
std::vector<GpuId> heet_pick_gpus(const Cluster& cluster, GpuTypeId type, int count, const std::vector<char>& taken,
                             const std::vector<char>& held) {
  std::vector<std::pair<int, std::size_t>> order;  // (-GPUs free and not held, host)
  for (std::size_t h = 0; h < cluster.nodes().size(); ++h) {
    const Node& n = cluster.nodes()[h];
    if (n.gpu_type != type) continue;
    int open = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g)
      open += !taken[static_cast<std::size_t>(g)] && !held[static_cast<std::size_t>(g)] ? 1 : 0;
    order.push_back({-open, h});
  }
  std::sort(order.begin(), order.end());
  std::vector<GpuId> gpus;
  for (int pass = 0; pass < 2; ++pass)  // pass 0: GPUs no wide job holds; pass 1: the rest
    for (const auto& [open, h] : order) {
      const Node& n = cluster.nodes()[h];
      for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && static_cast<int>(gpus.size()) < count; ++g) {
        const auto k = static_cast<std::size_t>(g);
        if (!taken[k] && (pass == 1 || !held[k]) && std::find(gpus.begin(), gpus.end(), g) == gpus.end())
          gpus.push_back(g);
      }
    }
  std::sort(gpus.begin(), gpus.end());
  return gpus;
}

namespace {

// A job's rate on `n` GPUs of one host of `type`: its kept table, or the model beyond a host.
double in_host_rate(const PolicyView& ctx, const HeetRateTable& table, const JobSpec& spec, GpuTypeId type, int n) {
  const auto t = static_cast<std::size_t>(type);
  if (n <= ctx.cluster().max_gpus_per_node(type) && t < table.size() && static_cast<std::size_t>(n) < table[t].size())
    return table[t][static_cast<std::size_t>(n)];
  return ctx.rate_on_type(spec, type, n);
}

}  // namespace

double heet_spanning_rate(const PolicyView& ctx, const JobSpec& job, GpuTypeId type, int count) {
  const Cluster& cluster = ctx.cluster();
  if (count > cluster.gpus_of_type(type)) return 0.0;
  const std::vector<GpuId> gpus = first_gpus_of_type(cluster, type, count);
  return ctx.model().rate_on(job, cluster, gpus);
}

// Wide jobs compete with the narrow ones by heet's weight: all active jobs in ascending weight
// order (narrow ones at the round's slot size on their best type) claim GPUs until the cluster is
// full; a wide job that comes after that waits this round. Without this, wide jobs always went
// first and a few long ones held the cluster while every short job waited.
// Whether the admission provably stays while only running jobs progress (their claims' weights
// only fall, waiting jobs' stay): every admitted wide job runs, and for each one the GPUs of all
// other running claims plus the waiting narrow claims now before it (a set that can only shrink)
// leave room for it, so whatever order the running claims take it is admitted; a waiting wide job
// then sees only more GPUs used before it and stays out (by induction over the claims in order).
static bool admission_steady(const PolicyView& ctx, const std::vector<HeetWideClaim>& claims,
                             const std::vector<std::pair<double, JobIndex>>& admitted, int total) {
  // One pass: each waiting narrow claim counts against the first admitted job after it (admitted
  // is sorted), so a prefix sum gives every admitted job the waiting GPUs before it.
  long running_gpus = 0;
  std::vector<long> waiting_before(admitted.size() + 1, 0);
  for (const HeetWideClaim& c : claims) {
    if (c.running) {
      running_gpus += c.gpus;
    } else if (!c.wide) {
      const std::pair<double, JobIndex> key{c.weight, c.job};
      const auto at = std::upper_bound(admitted.begin(), admitted.end(), key) - admitted.begin();
      waiting_before[static_cast<std::size_t>(at)] += c.gpus;
    }
  }
  long waiting = 0;
  for (std::size_t k = 0; k < admitted.size(); ++k) {
    waiting += waiting_before[k];
    if (ctx.job(admitted[k].second).status != JobStatus::Running) return false;
    if (running_gpus + waiting > total) return false;
  }
  return true;
}

HeetWidePlacer::Memo& HeetWidePlacer::memo(JobIndex j) {
  if (memo_.size() <= static_cast<std::size_t>(j)) memo_.resize(static_cast<std::size_t>(j) + 1);
  return memo_[static_cast<std::size_t>(j)];
}

void HeetWidePlacer::admit_by_weight(const PolicyView& ctx, std::size_t active, int largest, int capacity,
                                     const TableOf& table, std::vector<std::pair<double, JobIndex>>& wide,
                                     const std::vector<JobIndex>& narrow, bool& steady) {
  if (wide.empty()) return;
  const int s = heet_slot_size(capacity, active, largest);
  std::vector<HeetWideClaim>& claims = claims_;
  claims.clear();
  for (const auto& [weight, j] : wide) {
    const JobRuntime& rt = ctx.job(j);
    claims.push_back({weight, j, rt.spec->requested_gpus, true, rt.status == JobStatus::Running});
  }
  for (std::size_t k = 0; k < narrow.size(); ++k) {
    const JobIndex j = narrow[k];
    claims.push_back({claim_at(ctx, narrow[k], table, narrow_remaining_[k], s), j, s, false, narrow_running_[k] != 0});
  }
  // Each claim taken below either adds GPUs or is a wide job that does not fit, so at most
  // total GPUs + wide jobs claims are read before the cluster is full: only those need sorting
  // (keys are distinct by job, so the order of what is read is the full sort's). The rest stays
  // in `claims` (permuted) for the steadiness check, which reads every claim.
  const std::size_t read = std::min(claims.size(), static_cast<std::size_t>(capacity) + wide.size());
  std::nth_element(claims.begin(), claims.begin() + static_cast<std::ptrdiff_t>(read) - 1, claims.end());
  std::sort(claims.begin(), claims.begin() + static_cast<std::ptrdiff_t>(read));
  std::vector<std::pair<double, JobIndex>> admitted;
  int used = 0;
  for (std::size_t k = 0; k < read; ++k) {
    const HeetWideClaim& c = claims[k];
    if (used >= capacity) break;
    if (c.wide && used + c.gpus <= capacity) admitted.push_back({c.weight, c.job});
    if (!c.wide || used + c.gpus <= capacity) used += c.gpus;
  }
  if (steady) steady = admission_steady(ctx, claims, admitted, capacity);
  wide = std::move(admitted);
}

const std::vector<double>& HeetWidePlacer::rates(const PolicyView& ctx, JobIndex j) {
  if (rates_.size() <= static_cast<std::size_t>(j)) rates_.resize(static_cast<std::size_t>(j) + 1);
  std::vector<double>& r = rates_[static_cast<std::size_t>(j)];
  if (!r.empty()) return r;
  const JobSpec& spec = *ctx.job(j).spec;
  r.assign(ctx.cluster().gpu_types().size(), 0.0);
  for (std::size_t t = 0; t < r.size(); ++t)
    r[t] = heet_spanning_rate(ctx, spec, static_cast<GpuTypeId>(t), spec.requested_gpus);
  return r;
}

double HeetWidePlacer::wide_weight(const PolicyView& ctx, JobIndex j, const HeetRateTable& own, double remaining,
                                   bool& near_tie) {
  const JobSpec& spec = *ctx.job(j).spec;
  const Cluster& cluster = ctx.cluster();
  const std::size_t ntypes = cluster.gpu_types().size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::vector<double>& r = rates(ctx, j);
  double best = kInf;
  near_tie = false;
  for (std::size_t t = 0; t < ntypes; ++t)
    best = std::min(best, heet_weight(remaining, in_host_rate(ctx, own, spec, static_cast<GpuTypeId>(t), 1), r[t]));
  // Spanning hosts must pay: when a host's worth of GPUs gives a weight at least as low (the
  // model's cross-host rate is poor), the job stays elastic within a host like the others.
  for (std::size_t t = 0; t < ntypes && best < kInf; ++t) {
    const auto type = static_cast<GpuTypeId>(t);
    const double in_host = heet_weight(remaining, in_host_rate(ctx, own, spec, type, 1),
                                       in_host_rate(ctx, own, spec, type, cluster.max_gpus_per_node(type)));
    // Progress scales both weights alike, so only rounding can flip this test, and only when
    // the two are within a few ulps: such a job makes the round unsteady.
    if (std::abs(in_host - best) <= 1e-9 * best) near_tie = true;
    if (in_host <= best) best = kInf;
  }
  return best;
}

bool HeetWidePlacer::classify(const PolicyView& ctx, JobIndex j, const TableOf& table, double remaining, int largest) {
  Memo& m = memo(j);
  if (m.wide < 0) m.wide = ctx.job(j).spec->requested_gpus > largest ? 1 : 0;
  if (m.wide == 0) return false;
  if (const auto bits = std::bit_cast<std::uint64_t>(remaining); m.wide_bits != bits) {
    m.wide_best = wide_weight(ctx, j, table(j), remaining, m.near_tie);
    m.wide_bits = bits;
  }
  // A wide job no type can run at its count (only under a planning model that errs), or one that
  // gains nothing from more hosts, is planned as a narrow one.
  return m.wide_best != std::numeric_limits<double>::infinity();
}

double HeetWidePlacer::claim_at(const PolicyView& ctx, JobIndex j, const TableOf& table, double remaining, int s) {
  Memo& m = memo(j);
  const auto bits = std::bit_cast<std::uint64_t>(remaining);
  if (m.claim_bits == bits && m.claim_slot == s) return m.claim;
  const Cluster& cluster = ctx.cluster();
  const JobSpec& spec = *ctx.job(j).spec;
  const HeetRateTable& r = table(j);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
    const auto type = static_cast<GpuTypeId>(t);
    const int n = std::min(s, cluster.max_gpus_per_node(type));
    best = std::min(best, heet_weight(remaining, in_host_rate(ctx, r, spec, type, 1), in_host_rate(ctx, r, spec, type, n)));
  }
  m.claim = best;
  m.claim_bits = bits;
  m.claim_slot = s;
  return best;
}

std::vector<WidePlacement> HeetWidePlacer::place(const PolicyView& ctx, const std::vector<JobIndex>& active,
                                                 const TableOf& table, std::vector<char>& taken,
                                                 std::vector<JobIndex>& narrow, bool* steady) {
  bool stable = true;
  const Cluster& cluster = ctx.cluster();
  const int largest = largest_host(cluster);
  const std::size_t ntypes = cluster.gpu_types().size();
  // GPUs marked on entry are reserved (tail rule): the rest is what the claims share.
  std::vector<int> free_of_type(ntypes, 0);
  for (std::size_t t = 0; t < ntypes; ++t) free_of_type[t] = cluster.gpus_of_type(static_cast<GpuTypeId>(t));
  int capacity = cluster.total_gpus();
  for (std::size_t g = 0; g < taken.size(); ++g)
    if (taken[g]) {
      --capacity;
      --free_of_type[static_cast<std::size_t>(cluster.type_of(static_cast<GpuId>(g)))];
    }
  std::vector<char> held(taken.size(), 0);
  // Indexed: every active job is here (no tail reservation took one out) and the ordered waiting
  // claims match the waiting set (sync ran this pass).
  indexed_pass_ = synced_ && narrow.empty() && waiting_count_ == ctx.pending().size() &&
                  active.size() == ctx.running().size() + ctx.pending().size();
  std::vector<std::pair<double, JobIndex>> wide;  // (best weight, job)
  if (indexed_pass_) {
    wide = admit_indexed(ctx, active, table, held, capacity, stable);
  } else {
    narrow_remaining_.clear();
    narrow_running_.clear();
    for (JobIndex j : narrow) {  // jobs the caller already put there (none from heet.cpp)
      narrow_remaining_.push_back(ctx.remaining_work(j));
      narrow_running_.push_back(ctx.job(j).status == JobStatus::Running ? 1 : 0);
    }
    for (JobIndex j : active) {
      const JobRuntime& rt = ctx.job(j);
      const double remaining = ctx.remaining_work(j);
      const bool is_wide = classify(ctx, j, table, remaining, largest);
      if (memo(j).near_tie) stable = false;
      if (!is_wide) {
        narrow.push_back(j);
        narrow_remaining_.push_back(remaining);
        narrow_running_.push_back(rt.status == JobStatus::Running ? 1 : 0);
        continue;
      }
      wide.push_back({memo(j).wide_best, j});
      if (rt.status == JobStatus::Running)
        for (GpuId g : rt.gpus) held[static_cast<std::size_t>(g)] = 1;
    }
    std::sort(wide.begin(), wide.end());
    admit_by_weight(ctx, active.size(), largest, capacity, table, wide, narrow, stable);
  }
  std::vector<WidePlacement> out = place_admitted(ctx, wide, table, taken, held, free_of_type, stable);
  if (steady) *steady = stable && out.size() == wide.size();
  return out;
}

// The admitted wide jobs' GPUs, by weight: a running one keeps its GPUs while none went to an
// earlier job; the others go to the type with room where their weight is lowest.
std::vector<WidePlacement> HeetWidePlacer::place_admitted(const PolicyView& ctx,
                                                          const std::vector<std::pair<double, JobIndex>>& wide,
                                                          const TableOf& table, std::vector<char>& taken,
                                                          const std::vector<char>& held, std::vector<int>& free_of_type,
                                                          bool& stable) {
  const Cluster& cluster = ctx.cluster();
  const std::size_t ntypes = cluster.gpu_types().size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<WidePlacement> out;
  for (const auto& [weight, j] : wide) {
    const JobRuntime& rt = ctx.job(j);
    const int want = rt.spec->requested_gpus;
    const bool keep = rt.status == JobStatus::Running && static_cast<int>(rt.gpus.size()) == want &&
                      std::none_of(rt.gpus.begin(), rt.gpus.end(), [&](GpuId g) { return taken[static_cast<std::size_t>(g)]; });
    WidePlacement p{j, keep ? rt.gpu_type : -1, keep ? rt.gpus : std::vector<GpuId>{}};
    if (!keep) {
      double best = kInf;
      for (std::size_t t = 0; t < ntypes; ++t) {
        const double w = heet_weight(ctx.remaining_work(j),
                                     in_host_rate(ctx, table(j), *rt.spec, static_cast<GpuTypeId>(t), 1), rates(ctx, j)[t]);
        if (free_of_type[t] >= want && w < best) best = w, p.type = static_cast<GpuTypeId>(t);
      }
      if (p.type < 0) continue;  // no type has room this round: it waits
      p.gpus = heet_pick_gpus(cluster, p.type, want, taken, held);
    }
    for (GpuId g : p.gpus) taken[static_cast<std::size_t>(g)] = 1;
    free_of_type[static_cast<std::size_t>(p.type)] -= want;
    stable = stable && keep;  // a moved or started wide job: the next pass is a full one anyway
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace hetsim
