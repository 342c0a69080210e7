#pragma once
// Private helper of the heet policy (src/policy/heet.cpp): tail protection. Ours, not the paper's
// nor the prototype's (mozizhao/elastic): heet's weight remaining x T(s)^2 / T(1) favours short
// jobs, so a long job waits or runs shrunk while shorter ones pass it, and when it is the job that
// ends last the makespan grows by its delay (ITP cluster04: 8-GPU jobs of 1.2M s waited 6.3M s and
// started when everything else had finished). The rule is the critical-path / LPT argument
// (Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 1969: start the
// longest jobs first): a job whose remaining time on its requested GPUs outlasts the rest of the
// active work spread over the rest of the cluster decides the makespan unless it runs now.
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/policy.hpp"

namespace hetsim {

/// One active job as the rule sees it: its requested GPU count (capped at the largest host for a
/// job that fits one) and its remaining seconds there on its fastest GPU type.
struct HeetTailJob {
  JobIndex job = 0;
  int gpus = 0;
  double remaining_s = 0.0;
  bool eligible = true;  ///< may be protected (else its work only counts in the rest)
};

/// A job the rule protects this round: it is to run on at least `gpus` GPUs.
struct HeetTailClaim {
  JobIndex job = 0;
  int gpus = 0;
  bool operator==(const HeetTailClaim&) const = default;
};

/// The protected ("critical") jobs, longest remaining time first: taking jobs in that order, job j
/// is critical while remaining_s(j) >= (W - W_c - remaining_s(j) x gpus(j)) / (G - G_c - gpus(j)),
/// where W is the active jobs' remaining GPU-seconds at their counts, G the cluster's GPUs and
/// W_c, G_c those of the critical jobs before j: the rest drains sooner than j ends even if it
/// runs now. Only eligible jobs are taken (the others' work stays in the rest); a job that leaves no
/// GPU for the rest is passed over; stops at the first that is not critical.
/// Jobs with an infinite or NaN remaining time (no type can run them) are left out of W.
std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> jobs, int total_gpus);

/// Longest remaining time first, ties by lower job index: the order of heet_tail_critical's walk.
struct HeetLonger {
  bool operator()(const HeetTailJob& a, const HeetTailJob& b) const {
    return a.remaining_s != b.remaining_s ? a.remaining_s > b.remaining_s : a.job < b.job;
  }
};
using HeetLongestFirst = std::set<HeetTailJob, HeetLonger>;

/// The same walk given W (`work_gpu_s`, the sum of heet_tail_work_gpu_s over every active job in
/// order) and only the eligible jobs: heet builds just those each round (tail=guard reads a few
/// of thousands), with W summed in the same order, so the answer is bit for bit the one above.
std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> eligible_jobs, double work_gpu_s, int total_gpus);

/// The same walk over `eligible_jobs` and `sorted` (more eligible jobs, already longest first)
/// together, reading `sorted` only as far as the walk goes: tail=guard keeps the starved waiting
/// jobs so (HeetGuardWaiting), as in a backlog most of them are starved and few are critical.
std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> eligible_jobs, const HeetLongestFirst& sorted,
                                              double work_gpu_s, int total_gpus);

/// A job's remaining GPU-seconds at its count as W counts them (0 for an infinite or NaN time).
double heet_tail_work_gpu_s(const HeetTailJob& j);

/// tail=guard's eligibility (heet's default): whether the rule may protect a job with `lag_s`
/// seconds lost since its arrival against running on its request all along (now - submit - work
/// done / its rate there) and `remaining_s` to go on its request. Two ways, both aging tests:
///  - starved: lag_s >= starve_factor x remaining_s, the response-ratio test of
///    highest-response-ratio-next (Brinch Hansen, "Short-term scheduling in multiprogramming
///    systems", SOSP 1971): (lag + remaining) / remaining >= 1 + starve_factor; it lets a long
///    waiting job pass the short ones heet's weight prefers, as Tiresias's starvation knob
///    (Gu et al., NSDI'19) promotes a job that waited too long;
///  - kept: the job runs on at least its request (`holds_request`) and has already lost at least
///    one round (`round_s`), i.e. the delay a round-based policy cannot avoid:
///    while it is critical it is not preempted or shrunk below its request.
/// Neither fires on the Heet prototype's trace (its goldens are unchanged, tests/test_heet.cpp).
bool heet_tail_guard_eligible(bool holds_request, double lag_s, double remaining_s, double round_s,
                              double starve_factor);

}  // namespace hetsim

namespace hetsim {

/// W summed exactly (issue 19, tail=guard's incremental bookkeeping): each job's part is rounded
/// once to an integer count of nano-GPU-seconds and the parts are added as integers, so the sum
/// does not depend on the order jobs are added or removed in (a double sum does in its last bits),
/// and the waiting jobs' parts can be kept as one running total across rounds.
class HeetExactGpuSeconds {
 public:
  void add(double gpu_s) { nano_ += to_nano(gpu_s); }
  void sub(double gpu_s) { nano_ -= to_nano(gpu_s); }
  void add(const HeetExactGpuSeconds& o) { nano_ += o.nano_; }
  double gpu_s() const { return static_cast<double>(nano_) / 1e9; }

 private:
  __extension__ typedef __int128 Nano;  // 1e12 s x 1e6 GPUs x 1e9 is far below 2^127
  static Nano to_nano(double gpu_s);
  Nano nano_ = 0;
};

/// tail=guard's view of the waiting jobs, kept across rounds from the jobs reported changed
/// (issue 19: a round costs what changed, not the backlog). While a job waits its remaining work
/// is fixed, so its part of W is fixed and its lag grows with the clock alone: it becomes starved
/// at a fixed instant (submit + work done / rate + tail_starve x remaining, all on its request)
/// and stays starved until it starts. Jobs are queued by that instant and only those whose
/// instant has come are read; the test itself is heet_tail_guard_eligible's, on the same values.
class HeetGuardWaiting {
 public:
  /// Job `tj` starts waiting (submitted at `submit`, `done_s` of work done on its request).
  void add(const HeetTailJob& tj, double done_s, SimTime submit, double starve_factor);
  /// Job j no longer waits (or is re-added with new values); no-op when it is not kept.
  void remove(JobIndex j);
  std::size_t size() const { return count_; }
  void clear();
  /// The waiting jobs' part of W.
  const HeetExactGpuSeconds& work() const { return work_; }
  /// The waiting jobs starved at `now`, longest first.
  const HeetLongestFirst& starved(SimTime now);

 private:
  struct Entry {
    HeetTailJob tj;
    double done_s = 0.0;
    double need_s = 0.0;  // starve_factor x remaining_s, as heet_tail_guard_eligible computes it
    SimTime submit;
    std::int64_t queued_us = -1;  // key in queue_; -1 = not queued
    bool kept = false;            // waiting and counted
    bool starved = false;         // in starved_
  };
  bool is_starved(const Entry& e, SimTime now) const;

  std::vector<Entry> entries_;                            // by job index
  std::set<std::pair<std::int64_t, JobIndex>> queue_;     // (an instant at or before starvation, job)
  std::set<JobIndex> near_;                               // instant passed, not yet starved by the exact test
  HeetLongestFirst starved_;
  HeetExactGpuSeconds work_;
  std::size_t count_ = 0;
  double starve_factor_ = 1.0;  // tail_starve, the same for every job of a run
};

}  // namespace hetsim
