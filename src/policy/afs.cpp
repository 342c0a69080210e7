// afs: AFS-style elastic sharing by marginal throughput (Hwang, Kim, Kim, Seo, Park, "Elastic
// Resource Sharing for Distributed Deep Learning", NSDI'21), heterogeneous as the Heet prototype's
// baseline runs it (github.com/mozizhao/elastic, AFS_scheduler.py): every arriving job joins the
// queue of one GPU type drawn at random; every round each type's GPUs are handed out one at a time,
// each to the winner of a pairwise tournament (top_priority) that starts from a random candidate:
// - both candidates without GPUs: the one with less remaining time on 1 GPU wins;
// - else let a be the shorter job (remaining work / rate at its current count; no GPUs = infinitely
//   long) and b the longer: b wins when (X_b(n_b+1) - X_b(n_b)) / X_b(n_b+1) exceeds
//   (X_a(n_a+1) - X_a(n_a)) / X_a(n_a), i.e. when the longer job gains relatively more.
// A job holds at most one host's worth of GPUs (the prototype's all_job_limit = 4). GPUs are placed
// by the mechanism's placement. Round length 120 s unless --interval is given.
#include <algorithm>
#include <limits>
#include <random>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "random_binding.hpp"

namespace hetsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class AfsPolicy final : public SchedulingPolicy {
 public:
  AfsPolicy(double round_s, std::uint64_t seed) : round_s_(round_s), binding_(seed), rng_(seed) {}
  std::string name() const override { return "afs"; }
  std::optional<double> round_s() const override { return round_s_; }

  Decision schedule(const PolicyView& ctx) override {
    const Cluster& cluster = ctx.cluster();
    const auto ntypes = cluster.gpu_types().size();
    int largest = 0;
    for (std::size_t t = 0; t < ntypes; ++t) largest = std::max(largest, cluster.max_gpus_per_node(static_cast<GpuTypeId>(t)));
    std::vector<JobIndex> active(ctx.running().begin(), ctx.running().end());
    active.insert(active.end(), ctx.pending().begin(), ctx.pending().end());
    std::sort(active.begin(), active.end());
    std::vector<std::vector<JobIndex>> queue(ntypes);
    for (JobIndex j : active) queue[static_cast<std::size_t>(binding_.type_of(ctx, j, largest))].push_back(j);

    Decision d;
    std::vector<char> chosen(active.empty() ? 0 : static_cast<std::size_t>(active.back()) + 1, 0);
    for (std::size_t t = 0; t < ntypes; ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      const int limit = cluster.max_gpus_per_node(type);
      const auto& q = queue[t];
      std::vector<Cand> c;
      for (JobIndex j : q) {
        Cand x{j, ctx.remaining_work(j), std::vector<double>(static_cast<std::size_t>(limit) + 1, 0.0), 0};
        for (int n = 1; n <= limit; ++n) x.rate[static_cast<std::size_t>(n)] = ctx.rate_on_type(*ctx.job(j).spec, type, n);
        c.push_back(std::move(x));
      }
      for (int g = 0; g < cluster.gpus_of_type(type); ++g) {
        std::vector<std::size_t> open;
        for (std::size_t k = 0; k < c.size(); ++k)
          if (c[k].n < limit && c[k].rate[static_cast<std::size_t>(c[k].n + 1)] > 0.0) open.push_back(k);
        if (open.empty()) break;
        std::size_t best = open[static_cast<std::size_t>(rng_() % open.size())];
        for (std::size_t k : open) best = prefer(c, best, k);
        ++c[best].n;
      }
      for (const Cand& x : c)
        if (x.n > 0) {
          chosen[static_cast<std::size_t>(x.job)] = 1;
          d.allocate.push_back({x.job, type, x.n, {}});
        }
    }
    for (JobIndex j : ctx.running())
      if (!chosen[static_cast<std::size_t>(j)]) d.preempt.push_back(j);
    return d;
  }

 private:
  struct Cand {
    JobIndex job;
    double remaining;
    std::vector<double> rate;  // [n], rate[0] = 0
    int n;                     // GPUs given so far this round
  };

  // The prototype's pairwise rule (top_priority); returns the index of the preferred candidate.
  static std::size_t prefer(const std::vector<Cand>& c, std::size_t a, std::size_t b) {
    auto r = [&](std::size_t k, int n) { return c[k].rate[static_cast<std::size_t>(n)]; };
    if (c[a].n == 0 && c[b].n == 0) {
      const double la = r(a, 1) > 0.0 ? c[a].remaining / r(a, 1) : kInf;
      const double lb = r(b, 1) > 0.0 ? c[b].remaining / r(b, 1) : kInf;
      return la < lb ? a : b;
    }
    auto len = [&](std::size_t k) { return c[k].n == 0 || !(r(k, c[k].n) > 0.0) ? kInf : c[k].remaining / r(k, c[k].n); };
    if (len(a) >= len(b)) std::swap(a, b);  // a: the shorter job (it holds GPUs)
    const double pb1 = r(b, c[b].n + 1), pb = r(b, c[b].n);
    const double pa1 = r(a, c[a].n + 1), pa = r(a, c[a].n);
    const double gain_b = pb1 > 0.0 ? (pb1 - pb) / pb1 : -kInf;
    const double gain_a = pa > 0.0 ? (pa1 - pa) / pa : kInf;
    return gain_b > gain_a ? b : a;
  }

  double round_s_;
  RandomTypeBinding binding_;
  std::mt19937_64 rng_;
};

}  // namespace

void register_afs(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "afs",
      "AFS marginal-throughput sharing per randomly bound GPU type, one GPU at a time, at most a host per job "
      "(Heet's baseline)",
      "Hwang et al., NSDI'21 (AFS), as in the Heet prototype baseline mozizhao/elastic AFS_scheduler.py",
      {{"round_s", "120", "round length in seconds when the run gives no --interval"}},
      [](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<SchedulingPolicy> {
        // As --interval: rounds under a millisecond would take billions of rounds.
        const double round = param_double(p, "round_s", 1e-3, kMaxSimSeconds);
        return std::make_unique<AfsPolicy>(round, seed);
      },
      nullptr});
}

}  // namespace hetsim
