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
#include <cmath>
#include <iterator>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "afs_trees.hpp"
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
    sync(ctx);
    ++round_;
    Decision d;
    for (std::size_t t = 0; t < queues_.size(); ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      Queue& q = queues_[t];
      hand_out(q, cluster.gpus_of_type(type));
      std::vector<std::size_t>& won = runs_.won;
      std::sort(won.begin(), won.end());  // placed in job index order, as the queue is
      for (std::size_t k : won) {
        const Cand& x = q.c[k];
        known_[static_cast<std::size_t>(x.job)].chosen_round = round_;
        d.allocate.push_back({x.job, type, x.n, {}});
        winners_.push_back(x.job);  // back to no GPUs at the next pass
      }
    }
    for (JobIndex j : ctx.running())
      if (known_[static_cast<std::size_t>(j)].chosen_round != round_) d.preempt.push_back(j);
    return d;
  }

 private:
  // What never changes for a job: its bound type and its rates there at 0..H GPUs (a look-up of
  // each per candidate and round was half of a 10,000-job run); and where it is in the queues.
  struct Known {
    GpuTypeId type = 0;
    std::vector<double> rate;        // [n], rate[0] = 0; empty = not looked up yet
    bool queued = false;             // in queues_[type] (admitted, not ended)
    std::uint64_t chosen_round = 0;  // the last pass that gave it GPUs
    std::uint64_t read_round = 0;    // the last pass that read its remaining work
  };
  Known& known(const PolicyView& ctx, JobIndex j) {
    const auto k = static_cast<std::size_t>(j);
    if (k >= known_.size()) known_.resize(k + 1);
    Known& kn = known_[k];
    if (kn.rate.empty()) {
      kn.type = binding_.type_of(ctx, j, largest_);
      const int limit = ctx.cluster().max_gpus_per_node(kn.type);
      kn.rate.assign(static_cast<std::size_t>(limit) + 1, 0.0);
      for (int n = 1; n <= limit; ++n) kn.rate[static_cast<std::size_t>(n)] = ctx.rate_on_type(*ctx.job(j).spec, kn.type, n);
    }
    return kn;
  }

  struct Cand {
    JobIndex job;
    double remaining;
    const double* rate;  // [n], rate[0] = 0 (Known::rate's data: it stays put when known_ grows)
    std::size_t rates;   // its size
    int n = 0;           // GPUs given so far this round
    bool dead = false;   // ended: a hole in the queue until it is compacted
    bool nan_idle = false;  // counted in Queue::nan_idle
    // The tournament's keys at the current n (the prototype's expressions, kept here so that a
    // comparison is a few reads: the tournament runs once per GPU over every open candidate).
    double len_on_1 = 0.0;      // remaining time on 1 GPU (inf when it cannot run on one)
    double len = 0.0;           // remaining time at n GPUs (inf without GPUs)
    double gain_longer = 0.0;   // (X(n+1) - X(n)) / X(n+1): its gain when it is the longer job
    double gain_shorter = 0.0;  // (X(n+1) - X(n)) / X(n): its gain when it is the shorter job

    Cand(JobIndex j, double remaining_work, const std::vector<double>& r)
        : job(j), remaining(remaining_work), rate(r.data()), rates(r.size()) {
      refresh();
    }
    bool open(int limit) const { return n < limit && rate[static_cast<std::size_t>(n + 1)] > 0.0; }
    // Holds GPUs and loses to any idle candidate (hand_out says why).
    bool weak() const { return n > 0 && len < kInf && gain_shorter < 1.0; }
    void refresh() {
      const double r1 = rate[1], rn = rate[static_cast<std::size_t>(n)];
      const double rn1 = static_cast<std::size_t>(n) + 1 < rates ? rate[static_cast<std::size_t>(n) + 1] : 0.0;
      len_on_1 = r1 > 0.0 ? remaining / r1 : kInf;
      len = n == 0 || !(rn > 0.0) ? kInf : remaining / rn;
      gain_longer = rn1 > 0.0 ? (rn1 - rn) / rn1 : -kInf;
      gain_shorter = rn > 0.0 ? (rn1 - rn) / rn : kInf;
    }
  };

  // One GPU type's queue: every admitted, unended job bound to it, in job index order, and the
  // indexes hand_out asks: the open candidates (those that can take one more GPU) and the last
  // minimum of the idle open ones' time on one GPU over a range. Between passes every candidate
  // is idle (n = 0) with its remaining work as of its last change (sync).
  struct Queue {
    std::vector<Cand> c;
    int limit = 0;             // GPUs of a host of the type: the most a job takes
    std::size_t dead = 0;      // ended candidates still in c
    std::size_t nan_idle = 0;  // idle open candidates whose time on one GPU is NaN (never for valid input)
    policy_detail::PositionSet open;
    policy_detail::LastMinTree idle;

    // Candidate p's entries in the indexes, after a change of its state.
    void show(std::size_t p) {
      Cand& x = c[p];
      const bool is_open = !x.dead && x.open(limit);
      open.set(p, is_open);
      const bool is_idle = is_open && x.n == 0;
      const bool nan = is_idle && std::isnan(x.len_on_1);
      if (nan != x.nan_idle) nan_idle = nan ? nan_idle + 1 : nan_idle - 1;
      x.nan_idle = nan;
      idle.set(p, is_idle && !nan, x.len_on_1);
    }
    // Both indexes from scratch, with room to grow (O(size) up to the log of the open set).
    void reindex() {
      const std::size_t room = std::max<std::size_t>(16, 2 * c.size());
      open.reset(room);
      idle.reset(room);
      nan_idle = 0;
      for (std::size_t p = 0; p < c.size(); ++p) {
        Cand& x = c[p];
        const bool is_open = !x.dead && x.open(limit);
        open.set(p, is_open);
        x.nan_idle = is_open && x.n == 0 && std::isnan(x.len_on_1);
        if (x.nan_idle) ++nan_idle;
        if (is_open && x.n == 0 && !x.nan_idle) idle.put(p, x.len_on_1);
      }
      idle.build();
    }
    std::size_t at(JobIndex j) const {
      return static_cast<std::size_t>(
          std::lower_bound(c.begin(), c.end(), j, [](const Cand& x, JobIndex v) { return x.job < v; }) - c.begin());
    }
    void drop(JobIndex j) {
      const std::size_t p = at(j);
      c[p].dead = true;
      ++dead;
      show(p);
      if (dead > 64 && 2 * dead > c.size()) {  // compact: holes would slow every range query down
        c.erase(std::remove_if(c.begin(), c.end(), [](const Cand& x) { return x.dead; }), c.end());
        dead = 0;
        reindex();
      }
    }
    // Adds the candidates of `add` (job index order).
    void add(std::vector<Cand>& add) {
      if (add.empty()) return;
      if (c.empty() || add.front().job > c.back().job) {  // arrivals come in job index order
        const bool grow = c.size() + add.size() > open.capacity();
        c.insert(c.end(), add.begin(), add.end());
        if (grow) {
          reindex();
        } else {
          for (std::size_t p = c.size() - add.size(); p < c.size(); ++p) show(p);
        }
        return;
      }
      std::vector<Cand> out;
      out.reserve(c.size() + add.size());
      std::merge(c.begin(), c.end(), add.begin(), add.end(), std::back_inserter(out),
                 [](const Cand& a, const Cand& b) { return a.job < b.job; });
      c.swap(out);
      reindex();
    }
  };

  // Brings queues_ up to this pass from PolicyView::changed() (issue 19: the set-up of every
  // queued job each round was half of a 10,000-job run): new jobs join their type's queue, ended
  // ones leave it, and the candidates of jobs that run, ran or changed are made idle again with
  // their remaining work at now; a waiting job's remaining work has not moved since it was read.
  void sync(const PolicyView& ctx) {
    const Cluster& cluster = ctx.cluster();
    const auto ntypes = cluster.gpu_types().size();
    if (queues_.size() != ntypes) {
      queues_.assign(ntypes, {});
      for (std::size_t t = 0; t < ntypes; ++t) {
        queues_[t].limit = cluster.max_gpus_per_node(static_cast<GpuTypeId>(t));
        largest_ = std::max(largest_, queues_[t].limit);
        queues_[t].reindex();
      }
    }
    added_.resize(ntypes);
    for (JobIndex j : ctx.changed()) {
      const auto k = static_cast<std::size_t>(j);
      if (ctx.running().count(j) > 0 || ctx.pending().count(j) > 0) {
        Known& kn = known(ctx, j);
        if (kn.queued) {
          stale_.push_back(j);
        } else {
          kn.queued = true;
          ++queued_;
          added_[static_cast<std::size_t>(kn.type)].emplace_back(j, ctx.remaining_work(j), kn.rate);
        }
      } else if (k < known_.size() && known_[k].queued) {
        known_[k].queued = false;
        --queued_;
        queues_[static_cast<std::size_t>(known_[k].type)].drop(j);
      }
    }
    for (std::size_t t = 0; t < ntypes; ++t) {
      std::sort(added_[t].begin(), added_[t].end(), [](const Cand& a, const Cand& b) { return a.job < b.job; });
      queues_[t].add(added_[t]);
      added_[t].clear();
    }
    if (queued_ != ctx.running().size() + ctx.pending().size()) {
      rebuild(ctx);  // PolicyView::changed() did not tell every change (a caller without it)
      return;
    }
    for (JobIndex j : ctx.running()) stale_.push_back(j);
    for (JobIndex j : winners_) stale_.push_back(j);
    for (JobIndex j : stale_) refresh_at_now(ctx, j);
    stale_.clear();
    winners_.clear();
  }

  // The queues from the pending and running sets alone.
  void rebuild(const PolicyView& ctx) {
    for (Known& kn : known_) kn.queued = false;
    for (Queue& q : queues_) {
      q.c.clear();
      q.dead = 0;
    }
    std::vector<JobIndex> active(ctx.running().begin(), ctx.running().end());
    active.insert(active.end(), ctx.pending().begin(), ctx.pending().end());
    std::sort(active.begin(), active.end());
    for (JobIndex j : active) {
      Known& kn = known(ctx, j);
      kn.queued = true;
      queues_[static_cast<std::size_t>(kn.type)].c.emplace_back(j, ctx.remaining_work(j), kn.rate);
    }
    for (Queue& q : queues_) q.reindex();
    queued_ = active.size();
    stale_.clear();
    winners_.clear();
  }

  // A queued job's candidate back to no GPUs, with its remaining work at now.
  void refresh_at_now(const PolicyView& ctx, JobIndex j) {
    Known& kn = known_[static_cast<std::size_t>(j)];
    if (!kn.queued || kn.read_round == round_ + 1) return;  // gone, or read already at this pass
    kn.read_round = round_ + 1;
    Queue& q = queues_[static_cast<std::size_t>(kn.type)];
    const std::size_t p = q.at(j);
    Cand& x = q.c[p];
    x.remaining = ctx.remaining_work(j);
    x.n = 0;
    x.refresh();
    q.show(p);
  }

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
  // minimum (Runs, from the queue's LastMinTree), so a GPU costs the holders (at most the type's
  // GPUs) and a few tree queries, not every candidate.
  // Holders with infinite remaining time (no rate at their count) or a NaN gain are neither: while
  // one is open, and under --param tournament=full, the full tournament runs; so it does for the
  // whole pass when an idle candidate's time is NaN.
  void hand_out(Queue& q, int gpus) {
    Runs& r = runs_;
    r.reset(q);
    const bool full = full_tournament_ || q.nan_idle > 0;
    const std::vector<Cand>& c = q.c;
    for (int g = 0; g < gpus && q.open.count() > 0; ++g) {
      std::size_t best = q.open.select(static_cast<std::size_t>(rng_() % q.open.count()));
      if (full || r.odd > 0) {
        for (std::size_t k = 0; k < c.size(); ++k)
          if (q.open.has(k)) best = prefer(c, best, k);
      } else {
        for (std::size_t i = 0; i <= r.holders.size(); ++i) {
          if (r.run_min[i] != Runs::kNone) best = through_run(c, best, r.run_min[i]);
          if (i < r.holders.size()) best = prefer(c, best, r.holders[i]);
        }
      }
      r.give(q, best);
    }
  }

  // The tournament's best `b` after a run of idle candidates whose last minimum is `m`.
  static std::size_t through_run(const std::vector<Cand>& c, std::size_t b, std::size_t m) {
    if (c[b].n == 0) return c[m].len_on_1 <= c[b].len_on_1 ? m : b;
    return c[b].weak() ? m : b;  // not odd here: dominant or weak
  }

  // One pass's tournament state of a queue: the holders of GPUs that are still open (queue
  // positions, in order) and, for each run of idle candidates before holders[i] (i =
  // holders.size(): after the last), its last minimum. Every candidate is idle at the start.
  struct Runs {
    static constexpr std::size_t kNone = policy_detail::LastMinTree::kNone;
    std::vector<std::size_t> holders, run_min;
    std::vector<std::size_t> won;  // candidates given GPUs this pass
    std::size_t odd = 0;           // open holders that are neither weak nor dominant

    static bool odd_holder(const Cand& x) { return x.n > 0 && !(x.len < kInf && x.gain_shorter == x.gain_shorter); }
    void reset(const Queue& q) {
      holders.clear();
      won.clear();
      odd = 0;
      run_min.assign(1, q.idle.query(0, q.c.size()));
    }
    // The last minimum (least time on one GPU, the later on ties) of the idle candidates before
    // holders[i] and after holders[i - 1].
    std::size_t last_min(const Queue& q, std::size_t i) const {
      const std::size_t from = i == 0 ? 0 : holders[i - 1] + 1;
      const std::size_t to = i == holders.size() ? q.c.size() : holders[i];
      return q.idle.query(from, to);
    }
    // Candidate w got one more GPU: update the lists.
    void give(Queue& q, std::size_t w) {
      std::vector<Cand>& c = q.c;
      const bool was_idle = c[w].n == 0;
      if (odd_holder(c[w])) --odd;
      ++c[w].n;
      c[w].refresh();
      q.show(w);
      const bool still_open = q.open.has(w);
      if (still_open && odd_holder(c[w])) ++odd;
      const auto at = static_cast<std::size_t>(std::lower_bound(holders.begin(), holders.end(), w) - holders.begin());
      if (was_idle) {
        won.push_back(w);
        if (still_open) {  // its run splits at it
          holders.insert(holders.begin() + static_cast<std::ptrdiff_t>(at), w);
          run_min.insert(run_min.begin() + static_cast<std::ptrdiff_t>(at), kNone);
          run_min[at] = last_min(q, at);
          run_min[at + 1] = last_min(q, at + 1);
        } else {
          run_min[at] = last_min(q, at);
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
  int largest_ = 0;                          // the most GPUs a host of any type has
  std::vector<Known> known_;                 // [job]
  std::vector<Queue> queues_;                // [type]
  std::vector<std::vector<Cand>> added_;     // [type]: jobs new to the queues at this pass
  std::vector<JobIndex> stale_;              // queued jobs whose remaining work is read again
  std::vector<JobIndex> winners_;            // jobs given GPUs at the last pass
  std::size_t queued_ = 0;                   // jobs in queues_
  std::uint64_t round_ = 0;                  // passes so far
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
