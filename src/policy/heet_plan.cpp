// Heet's round plan (Mo, Xu, Xu, ASPLOS'24), after the prototype mozizhao/elastic our_scheduler.py
// (schedule(), price_j1, price_j2): slot size from GPUs per active job, minimum-weight full
// bipartite matching of slots and jobs with weight remaining x T(s)^2 / T(1), then opportunistic
// one-GPU trades. Written from the prototype's rules; the multi-host parts are ours.
#include "hetsim/policy/heet_plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "hetsim/policy/matching.hpp"

namespace hetsim {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

double rate_at(const std::vector<double>& r, int n) {
  return n >= 0 && static_cast<std::size_t>(n) < r.size() ? r[static_cast<std::size_t>(n)] : 0.0;
}
double weight_on(const HeetJob& job, std::size_t type, int s) {
  if (type >= job.rate.size()) return kInf;
  return heet_weight(job.remaining_work, rate_at(job.rate[type], 1), rate_at(job.rate[type], s));
}

// weight_on, from the job's memo when it was computed for this remaining work and slot size (the
// same value: the same function of the same inputs); on a miss every type's weight is refilled.
double job_weight(const HeetJob& job, std::size_t type, int s, std::size_t types) {
  if (job.memo == nullptr) return weight_on(job, type, s);
  HeetWeightMemo& m = *job.memo;
  const auto bits = std::bit_cast<std::uint64_t>(job.remaining_work);
  if (m.remaining_bits != bits || m.slot != s || m.weight.size() != types) {
    m.weight.resize(types);
    for (std::size_t t = 0; t < types; ++t) m.weight[t] = weight_on(job, t, s);
    m.remaining_bits = bits;
    m.slot = s;
  }
  return type < types ? m.weight[type] : kInf;
}

// The matching step (heet_match_types' answer). One type: the cheapest jobs with a finite weight,
// ties to the lower index, as heet_match_types takes them (only which jobs matters, so an O(jobs)
// selection replaces its partial sort). Several types: the exchange solver where its answer is
// provably the search's (from where the jobs run now), else the search.
// `stable`: whether the same answer provably comes back while only running jobs progress (their
// weights only fall, waiting jobs' stay; heet_plan's `steady`): the one-type selection (exact
// comparisons, ties to the lower index), or the exchange solver's answer when at most one type
// has a finite weight (then every cycle is a waiting job against a matched one: its cost only
// grows, while the margin, from the largest weight, can only shrink).
std::vector<GpuTypeId> match_slot_types(const std::vector<HeetHost>& hosts, const std::vector<HeetJob>& jobs,
                                        const std::vector<int>& slot_type, std::size_t types, int s, bool& stable) {
  std::vector<GpuTypeId> type(jobs.size(), -1);
  stable = false;
  if (slot_type.empty()) return type;
  const bool one_type = std::all_of(slot_type.begin(), slot_type.end(), [&](int t) { return t == slot_type.front(); });
  if (one_type) {
    const auto t = static_cast<std::size_t>(slot_type.front());
    std::vector<std::pair<double, std::size_t>> order;
    order.reserve(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (const double w = job_weight(jobs[j], t, s, types); std::isfinite(w)) order.push_back({w, j});
    const std::size_t take = std::min(order.size(), slot_type.size());
    if (take > 0 && take < order.size())
      std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take) - 1, order.end());
    for (std::size_t k = 0; k < take; ++k) type[order[k].second] = static_cast<GpuTypeId>(t);
    stable = true;
    return type;
  }
  std::vector<double> cost(jobs.size() * types, kInf);  // flat: one allocation per round
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (std::size_t t = 0; t < types; ++t) cost[j * types + t] = job_weight(jobs[j], t, s, types);
  std::vector<GpuTypeId> start(jobs.size(), -1);
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (jobs[j].current_host >= 0 && static_cast<std::size_t>(jobs[j].current_host) < hosts.size())
      start[j] = hosts[static_cast<std::size_t>(jobs[j].current_host)].type;
  if (heet_match_types_exchange(cost, types, slot_type, start, type)) {
    std::vector<char> has_slots(types, 0);
    for (int t : slot_type) has_slots[static_cast<std::size_t>(t)] = 1;
    std::size_t finite_types = 0;
    for (std::size_t t = 0; t < types; ++t) {
      bool finite = false;
      for (std::size_t j = 0; j < jobs.size() && has_slots[t] && !finite; ++j) finite = std::isfinite(cost[j * types + t]);
      finite_types += finite ? 1 : 0;
    }
    stable = finite_types <= 1;
    return type;
  }
  std::vector<std::vector<double>> rows(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    rows[j].assign(cost.begin() + static_cast<std::ptrdiff_t>(j * types), cost.begin() + static_cast<std::ptrdiff_t>((j + 1) * types));
  return heet_match_types(rows, slot_type);
}
}  // namespace

int heet_slot_size(int total_gpus, std::size_t active_jobs, int host_gpus) {
  if (active_jobs == 0 || host_gpus <= 1) return 1;
  const double per_job = static_cast<double>(total_gpus) / static_cast<double>(active_jobs);
  if (per_job <= 1.5) return 1;
  if (per_job >= 3.0) return host_gpus;
  return std::min(2, host_gpus);
}

double heet_weight(double remaining_work, double rate_1, double rate_s) {
  if (!(rate_1 > 0.0) || !(rate_s > 0.0)) return kInf;
  const double t1 = 1.0 / rate_1, ts = 1.0 / rate_s;
  return remaining_work * ts * ts / t1;
}

double heet_release_price(const std::vector<double>& r, int n) {
  const double xn = rate_at(r, n);
  if (!(xn > 0.0)) return -kInf;  // it makes no progress on n GPUs: giving one away costs nothing
  return 2.0 * (xn - rate_at(r, n - 1)) / xn;
}

double heet_gain_price(const std::vector<double>& r, int slot) {
  const double x1 = rate_at(r, 1), xs = rate_at(r, slot);
  if (!(x1 > 0.0)) return -kInf;  // cannot run on one GPU of this type
  if (!(xs > 0.0)) return kInf;
  return x1 / xs;
}

std::vector<GpuTypeId> heet_match_types(const std::vector<std::vector<double>>& cost, const std::vector<int>& slot_type) {
  std::vector<GpuTypeId> type(cost.size(), -1);
  if (slot_type.empty()) return type;
  const bool one_type = std::all_of(slot_type.begin(), slot_type.end(), [&](int t) { return t == slot_type.front(); });
  if (!one_type) {
    const std::vector<int> match = min_weight_full_matching_by_class(cost, slot_type);
    for (std::size_t j = 0; j < cost.size(); ++j)
      if (match[j] >= 0) type[j] = static_cast<GpuTypeId>(slot_type[static_cast<std::size_t>(match[j])]);
    return type;
  }
  // One type (e.g. an ITP cluster): the matching takes the `slots` cheapest jobs with a finite
  // weight, ties to the lower index, as the Hungarian search does (its free columns of one class
  // share one reduced cost and the scan takes the first strict minimum; tested against it).
  const auto t = static_cast<std::size_t>(slot_type.front());
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t j = 0; j < cost.size(); ++j)
    if (t < cost[j].size() && std::isfinite(cost[j][t])) order.push_back({cost[j][t], j});
  const std::size_t take = std::min(order.size(), slot_type.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end());
  for (std::size_t k = 0; k < take; ++k) type[order[k].second] = static_cast<GpuTypeId>(t);
  return type;
}

std::vector<HeetAssignment> heet_plan(const std::vector<HeetHost>& hosts, const std::vector<HeetJob>& jobs,
                                      std::vector<HeetTrade>* trades, bool* steady, std::size_t job_count) {
  if (steady) *steady = false;
  if (job_count == 0) job_count = jobs.size();
  if (job_count == 0 || hosts.empty()) return {};
  int total = 0, largest = 0;
  for (const HeetHost& h : hosts) {
    total += h.gpus;
    largest = std::max(largest, h.gpus);
  }
  const int s = heet_slot_size(total, job_count, largest);

  // Slots: floor(gpus / s) per host, host by host (the prototype: gpu_nums[type] // slot_size).
  // A slot's weight depends on its host's type only, so the matching works on a job x type table
  // with the slots' types as column classes (identical to the dense jobs x slots matrix).
  std::vector<int> slot_host, slot_type;
  std::size_t types = 0;
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    types = std::max(types, static_cast<std::size_t>(hosts[h].type) + 1);
    for (int k = 0; k < hosts[h].gpus / s; ++k) {
      slot_host.push_back(static_cast<int>(h));
      slot_type.push_back(static_cast<int>(hosts[h].type));
    }
  }
  bool stable = false;
  const std::vector<GpuTypeId> type = match_slot_types(hosts, jobs, slot_type, types, s, stable);

  // Slots of one type are interchangeable, so only the type of a match matters; hosts are then
  // chosen to keep running jobs where they are.
  std::vector<int> free_slots(hosts.size(), 0);
  for (int h : slot_host) ++free_slots[static_cast<std::size_t>(h)];
  std::vector<int> host(jobs.size(), -1), gpus(jobs.size(), 0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const int cur = jobs[j].current_host;
    if (type[j] < 0 || cur < 0 || static_cast<std::size_t>(cur) >= hosts.size()) continue;
    if (hosts[static_cast<std::size_t>(cur)].type == type[j] && free_slots[static_cast<std::size_t>(cur)] > 0) {
      host[j] = cur;
      --free_slots[static_cast<std::size_t>(cur)];
    }
  }
  // Others take the first host of their type with a slot left; free slots only shrink, so each
  // type's search resumes where it stopped (first_open[type]).
  std::vector<std::size_t> first_open(types, 0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (type[j] < 0 || host[j] >= 0) continue;
    std::size_t& h = first_open[static_cast<std::size_t>(type[j])];
    while (h < hosts.size() && (hosts[h].type != type[j] || free_slots[h] == 0)) ++h;
    if (h == hosts.size()) continue;
    host[j] = static_cast<int>(h);
    --free_slots[h];
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (host[j] >= 0) gpus[j] = s;

  // Opportunistic trading: one GPU at a time from the job losing least to the job gaining most.
  // Prices depend on rates only, so with the same matching the same trades (or none) follow; but a
  // job given a GPU by a trade runs unmatched and its weight then falls too: not steady.
  std::size_t traded = 0;
  if (s > 1) {
    while (true) {
      std::ptrdiff_t giver = -1, taker = -1;
      double best_release = kInf;
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (host[j] < 0 || gpus[j] <= 1) continue;
        const auto& r = jobs[j].rate[static_cast<std::size_t>(hosts[static_cast<std::size_t>(host[j])].type)];
        const double p = heet_release_price(r, gpus[j]);
        if (giver < 0 || p < best_release) {
          giver = static_cast<std::ptrdiff_t>(j);
          best_release = p;
        }
      }
      if (giver < 0) break;
      const int h = host[static_cast<std::size_t>(giver)];
      const GpuTypeId t = hosts[static_cast<std::size_t>(h)].type;
      double best_gain = -kInf;
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (host[j] >= 0) continue;
        const double p = heet_gain_price(jobs[j].rate[static_cast<std::size_t>(t)], s);
        if (p == -kInf) continue;
        if (taker < 0 || p > best_gain) {
          taker = static_cast<std::ptrdiff_t>(j);
          best_gain = p;
        }
      }
      if (taker < 0 || best_release > best_gain) break;
      --gpus[static_cast<std::size_t>(giver)];
      host[static_cast<std::size_t>(taker)] = h;
      gpus[static_cast<std::size_t>(taker)] = 1;
      ++traded;
      if (trades)
        trades->push_back({jobs[static_cast<std::size_t>(giver)].job, jobs[static_cast<std::size_t>(taker)].job, h,
                           best_release, best_gain});
    }
  }

  if (steady) *steady = stable && traded == 0;
  std::vector<HeetAssignment> out;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (host[j] >= 0) out.push_back({jobs[j].job, host[j], gpus[j]});
  return out;
}

}  // namespace hetsim
