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
  // The same winners at less cost (issue 19: the tournament per GPU was O(GPUs x jobs)): a
  // candidate without GPUs ("idle") has gain exactly r1 / r1 = 1 as the longer job, so against a
  // holder of GPUs with a finite remaining time and gain g as the shorter job it wins, in either
  // argument order, when g < 1 ("weak" holder) and loses when g >= 1 ("dominant" holder); idle
  // against idle, the less remaining time on one GPU wins, the visited one on ties. A run of idle
  // candidates between two holders therefore acts on the tournament's current best b as one
  // step: a dominant b stays, a weak b gives way to the run's last minimum, an idle b to the
  // run's last minimum when that is not larger. hand_out keeps the holders and each run's last
  // minimum (Runs), so a GPU costs the holders (at most the type's GPUs), not every candidate.
  // Holders with infinite remaining time (no rate at their count) or a NaN gain are neither: while
  // one is open, and under --param tournament=full, the full tournament runs.
  void hand_out(std::vector<Cand>& c, int limit, int gpus) {
    Runs& r = runs_;
    r.reset(c, limit);
    for (int g = 0; g < gpus && !r.open.empty(); ++g) {
      std::size_t best = r.open[static_cast<std::size_t>(rng_() % r.open.size())];
      if (full_tournament_ || r.odd > 0) {
        for (std::size_t k : r.open) best = prefer(c, best, k);
      } else {
        for (std::size_t i = 0; i <= r.holders.size(); ++i) {
          if (r.run_min[i] != Runs::kNone) best = through_run(c, best, r.run_min[i]);
          if (i < r.holders.size()) best = prefer(c, best, r.holders[i]);
        }
      }
      r.give(c, limit, best);
    }
  }

  // The tournament's best `b` after a run of idle candidates whose last minimum is `m`.
  static std::size_t through_run(const std::vector<Cand>& c, std::size_t b, std::size_t m) {
    if (c[b].n == 0) return c[m].len_on_1 <= c[b].len_on_1 ? m : b;
    return c[b].weak() ? m : b;  // not odd here: dominant or weak
  }

  // The open candidates of one type during hand_out: all of them (index order, for the random
  // start), the holders among them (index order), the idle ones (index order) and, for each run
  // of idle ones before holders[i] (i = holders.size(): after the last), its last minimum.
  struct Runs {
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> open, holders, idle, run_min;
    std::size_t odd = 0;  // open holders that are neither weak nor dominant

    static bool odd_holder(const Cand& x) { return x.n > 0 && !(x.len < kInf && x.gain_shorter == x.gain_shorter); }
    void reset(const std::vector<Cand>& c, int limit) {
      open.clear();
      holders.clear();
      idle.clear();
      odd = 0;
      for (std::size_t k = 0; k < c.size(); ++k) {
        if (!c[k].open(limit)) continue;
        open.push_back(k);
        (c[k].n == 0 ? idle : holders).push_back(k);
        if (odd_holder(c[k])) ++odd;
      }
      run_min.assign(holders.size() + 1, kNone);
      for (std::size_t i = 0; i <= holders.size(); ++i) run_min[i] = last_min(c, i);
    }
    // The last minimum (least time on one GPU, the later on ties) of the idle candidates before
    // holders[i] and after holders[i - 1].
    std::size_t last_min(const std::vector<Cand>& c, std::size_t i) const {
      auto from = i == 0 ? idle.begin() : std::upper_bound(idle.begin(), idle.end(), holders[i - 1]);
      auto to = i == holders.size() ? idle.end() : std::lower_bound(from, idle.end(), holders[i]);
      std::size_t m = kNone;
      for (auto it = from; it != to; ++it)
        if (m == kNone || c[*it].len_on_1 <= c[m].len_on_1) m = *it;
      return m;
    }
    // Candidate w got one more GPU: update the lists.
    void give(std::vector<Cand>& c, int limit, std::size_t w) {
      const bool was_idle = c[w].n == 0;
      if (odd_holder(c[w])) --odd;
      ++c[w].n;
      c[w].refresh();
      const bool still_open = c[w].open(limit);
      if (!still_open) open.erase(std::lower_bound(open.begin(), open.end(), w));
      if (still_open && odd_holder(c[w])) ++odd;
      const auto at = static_cast<std::size_t>(std::lower_bound(holders.begin(), holders.end(), w) - holders.begin());
      if (was_idle) {
        idle.erase(std::lower_bound(idle.begin(), idle.end(), w));
        if (still_open) {  // its run splits at it
          holders.insert(holders.begin() + static_cast<std::ptrdiff_t>(at), w);
          run_min.insert(run_min.begin() + static_cast<std::ptrdiff_t>(at), kNone);
          run_min[at] = last_min(c, at);
          run_min[at + 1] = last_min(c, at + 1);
        } else {
          run_min[at] = last_min(c, at);
        }
      } else if (!still_open) {  // the runs on both sides of it join
        const std::size_t left = run_min[at], right = run_min[at + 1];
        holders.erase(holders.begin() + static_cast<std::ptrdiff_t>(at));
        run_min.erase(run_min.begin() + static_cast<std::ptrdiff_t>(at));
        run_min[at] = left == kNone ? right
                      : right == kNone ? left
                      : (c[right].len_on_1 <= c[left].len_on_1 ? right : left);
      }
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
  bool full_tournament_;  // never take hand_out's shortcut (its check: the same results, slower)
  RandomTypeBinding binding_;
  std::mt19937_64 rng_;
  std::vector<Known> known_;  // [job]
  std::vector<Cand> cands_;
  Runs runs_;
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
