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

#include <fmt/format.h>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "random_binding.hpp"

namespace hetsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class AfsPolicy final : public SchedulingPolicy {
 public:
  AfsPolicy(double round_s, bool full_tournament, std::uint64_t seed)
      : round_s_(round_s), full_tournament_(full_tournament), binding_(seed), rng_(seed) {}
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
    for (JobIndex j : active) queue[static_cast<std::size_t>(known(ctx, j, largest).type)].push_back(j);

    Decision d;
    std::vector<char> chosen(active.empty() ? 0 : static_cast<std::size_t>(active.back()) + 1, 0);
    std::vector<Cand>& c = cands_;  // kept from round to round for its memory
    for (std::size_t t = 0; t < ntypes; ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      const int limit = cluster.max_gpus_per_node(type);
      c.clear();
      for (JobIndex j : queue[t]) {
        Cand x{j, ctx.remaining_work(j), &known(ctx, j, largest).rate, 0};
        x.refresh();
        c.push_back(x);
      }
      hand_out(c, limit, cluster.gpus_of_type(type));
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
  // What never changes for a job: its bound type and its rates there at 0..H GPUs (a look-up of
  // each per candidate and round was half of a 10,000-job run).
  struct Known {
    GpuTypeId type = 0;
    std::vector<double> rate;  // [n], rate[0] = 0; empty = not looked up yet
  };
  const Known& known(const PolicyView& ctx, JobIndex j, int largest) {
    const auto k = static_cast<std::size_t>(j);
    if (k >= known_.size()) known_.resize(k + 1);
    Known& kn = known_[k];
    if (kn.rate.empty()) {
      kn.type = binding_.type_of(ctx, j, largest);
      const int limit = ctx.cluster().max_gpus_per_node(kn.type);
      kn.rate.assign(static_cast<std::size_t>(limit) + 1, 0.0);
      for (int n = 1; n <= limit; ++n) kn.rate[static_cast<std::size_t>(n)] = ctx.rate_on_type(*ctx.job(j).spec, kn.type, n);
    }
    return kn;
  }

  struct Cand {
    JobIndex job;
    double remaining;
    const std::vector<double>* rate;  // [n], rate[0] = 0 (Known::rate)
    int n;                            // GPUs given so far this round
    // The tournament's keys at the current n (the prototype's expressions, kept here so that a
    // comparison is a few reads: the tournament runs once per GPU over every open candidate).
    double len_on_1 = 0.0;      // remaining time on 1 GPU (inf when it cannot run on one)
    double len = 0.0;           // remaining time at n GPUs (inf without GPUs)
    double gain_longer = 0.0;   // (X(n+1) - X(n)) / X(n+1): its gain when it is the longer job
    double gain_shorter = 0.0;  // (X(n+1) - X(n)) / X(n): its gain when it is the shorter job

    bool open(int limit) const { return n < limit && (*rate)[static_cast<std::size_t>(n + 1)] > 0.0; }
    // Holds GPUs and loses to any idle candidate (hand_out says why).
    bool weak() const { return n > 0 && len < kInf && gain_shorter < 1.0; }
    void refresh() {
      const std::vector<double>& r = *rate;
      const double r1 = r[1], rn = r[static_cast<std::size_t>(n)];
      const double rn1 = static_cast<std::size_t>(n) + 1 < r.size() ? r[static_cast<std::size_t>(n) + 1] : 0.0;
      len_on_1 = r1 > 0.0 ? remaining / r1 : kInf;
      len = n == 0 || !(rn > 0.0) ? kInf : remaining / rn;
      gain_longer = rn1 > 0.0 ? (rn1 - rn) / rn1 : -kInf;
      gain_shorter = rn > 0.0 ? (rn1 - rn) / rn : kInf;
    }
  };

  // Hands `gpus` GPUs out one at a time, each to the winner of the tournament over the open
  // candidates (those that can take one more), visited in index order from a random start.
  // Shortcut with the same winners (issue 19): a candidate without GPUs ("idle") beats one holding
  // GPUs whose remaining time is finite and whose gain as the shorter job is below 1, in either
  // argument order (an idle job's gain as the longer one is exactly r1 / r1 = 1); call such a
  // holder "weak". While an idle candidate is open and every open holder is weak, the winner is
  // therefore idle whatever the start: the last, in index order, of those with the least
  // remaining time on one GPU (idle against idle, the visited one wins ties). No candidate becomes
  // idle again within a round, so one sort by (time on 1 GPU ascending, index descending) lists
  // those winners in turn. The random start is still drawn, so the stream of draws is unchanged;
  // otherwise the full tournament runs.
  void hand_out(std::vector<Cand>& c, int limit, int gpus) {
    std::vector<std::size_t>& open = open_;
    std::vector<std::size_t>& idle = idle_;
    open.clear();
    idle.clear();
    std::size_t strong = 0;  // open holders that are not weak
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (!c[k].open(limit)) continue;
      open.push_back(k);
      if (c[k].n == 0)
        idle.push_back(k);
      else if (!c[k].weak())
        ++strong;
    }
    std::sort(idle.begin(), idle.end(), [&](std::size_t a, std::size_t b) {
      if (c[a].len_on_1 != c[b].len_on_1) return c[a].len_on_1 < c[b].len_on_1;
      return a > b;
    });
    std::size_t next_idle = 0;
    for (int g = 0; g < gpus && !open.empty(); ++g) {
      std::size_t best = open[static_cast<std::size_t>(rng_() % open.size())];
      if (!full_tournament_ && strong == 0 && next_idle < idle.size()) {
        best = idle[next_idle++];
      } else {
        for (std::size_t k : open) best = prefer(c, best, k);
        if (c[best].n == 0)
          idle.erase(std::find(idle.begin() + static_cast<std::ptrdiff_t>(next_idle), idle.end(), best));
      }
      if (c[best].n > 0 && !c[best].weak()) --strong;
      ++c[best].n;
      c[best].refresh();
      if (!c[best].open(limit))
        open.erase(std::lower_bound(open.begin(), open.end(), best));
      else if (!c[best].weak())
        ++strong;
    }
  }

  // The prototype's pairwise rule (top_priority); returns the index of the preferred candidate.
  // Both candidates are open (they can take one more GPU).
  static std::size_t prefer(const std::vector<Cand>& c, std::size_t a, std::size_t b) {
    if (c[a].n == 0 && c[b].n == 0) return c[a].len_on_1 < c[b].len_on_1 ? a : b;
    if (c[a].len >= c[b].len) std::swap(a, b);  // a: the shorter job (it holds GPUs)
    return c[b].gain_longer > c[a].gain_shorter ? b : a;
  }

  double round_s_;
  bool full_tournament_;  // never take hand_out's shortcut (its check: the same results, slower)
  RandomTypeBinding binding_;
  std::mt19937_64 rng_;
  std::vector<Known> known_;  // [job]
  std::vector<Cand> cands_;
  std::vector<std::size_t> open_, idle_;
};

}  // namespace

void register_afs(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "afs",
      "AFS marginal-throughput sharing per randomly bound GPU type, one GPU at a time, at most a host per job "
      "(Heet's baseline)",
      "Hwang et al., NSDI'21 (AFS), as in the Heet prototype baseline mozizhao/elastic AFS_scheduler.py",
      {{"round_s", "120", "round length in seconds when the run gives no --interval"},
       {"tournament", "shortcut",
        "shortcut: hand idle jobs their GPU without the pairwise tournament when it provably picks them; full: "
        "run the tournament for every GPU (same results, slower; the shortcut's check)"}},
      [](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<SchedulingPolicy> {
        // As --interval: rounds under a millisecond would take billions of rounds.
        const double round = param_double(p, "round_s", 1e-3, kMaxSimSeconds);
        const std::string& tournament = param_string(p, "tournament");
        if (tournament != "shortcut" && tournament != "full")
          throw InputError("", 0, "--param tournament", fmt::format("expected shortcut or full, got '{}'", tournament));
        return std::make_unique<AfsPolicy>(round, tournament == "full", seed);
      },
      nullptr});
}

}  // namespace hetsim
