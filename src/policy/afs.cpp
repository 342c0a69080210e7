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
  bool shares_gpus() const override { return false; }  // chooses GPU counts itself (whole GPUs)
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
      c.reserve(q.size());
      for (JobIndex j : q) {
        Cand x{j, ctx.remaining_work(j), std::vector<double>(static_cast<std::size_t>(limit) + 1, 0.0), 0};
        for (int n = 1; n <= limit; ++n) x.rate[static_cast<std::size_t>(n)] = ctx.rate_on_type(*ctx.job(j).spec, type, n);
        x.refresh();
        c.push_back(std::move(x));
      }
      // Candidates that can still take a GPU, in index order (the order the tournament visits);
      // only the winner's state changes, so only it can leave.
      std::vector<std::size_t> open;
      for (std::size_t k = 0; k < c.size(); ++k)
        if (c[k].open(limit)) open.push_back(k);
      for (int g = 0; g < cluster.gpus_of_type(type) && !open.empty(); ++g) {
        std::size_t best = open[static_cast<std::size_t>(rng_() % open.size())];
        for (std::size_t k : open) best = prefer(c, best, k);
        ++c[best].n;
        c[best].refresh();
        if (!c[best].open(limit)) open.erase(std::lower_bound(open.begin(), open.end(), best));
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
    // The tournament's keys at the current n (the prototype's expressions, kept here so that a
    // comparison is a few reads: the tournament runs once per GPU over every open candidate).
    double len_on_1 = 0.0;      // remaining time on 1 GPU (inf when it cannot run on one)
    double len = 0.0;           // remaining time at n GPUs (inf without GPUs)
    double gain_longer = 0.0;   // (X(n+1) - X(n)) / X(n+1): its gain when it is the longer job
    double gain_shorter = 0.0;  // (X(n+1) - X(n)) / X(n): its gain when it is the shorter job

    bool open(int limit) const { return n < limit && rate[static_cast<std::size_t>(n + 1)] > 0.0; }
    void refresh() {
      const double r1 = rate[1], rn = rate[static_cast<std::size_t>(n)];
      const double rn1 = static_cast<std::size_t>(n) + 1 < rate.size() ? rate[static_cast<std::size_t>(n) + 1] : 0.0;
      len_on_1 = r1 > 0.0 ? remaining / r1 : kInf;
      len = n == 0 || !(rn > 0.0) ? kInf : remaining / rn;
      gain_longer = rn1 > 0.0 ? (rn1 - rn) / rn1 : -kInf;
      gain_shorter = rn > 0.0 ? (rn1 - rn) / rn : kInf;
    }
  };

  // The prototype's pairwise rule (top_priority); returns the index of the preferred candidate.
  // Both candidates are open (they can take one more GPU).
  static std::size_t prefer(const std::vector<Cand>& c, std::size_t a, std::size_t b) {
    if (c[a].n == 0 && c[b].n == 0) return c[a].len_on_1 < c[b].len_on_1 ? a : b;
    if (c[a].len >= c[b].len) std::swap(a, b);  // a: the shorter job (it holds GPUs)
    return c[b].gain_longer > c[a].gain_shorter ? b : a;
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
