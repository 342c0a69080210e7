#pragma once
// Private helper of the heet policy (src/policy/heet.cpp): tail protection. Ours, not the paper's
// nor the prototype's (mozizhao/elastic): heet's weight remaining x T(s)^2 / T(1) favours short
// jobs, so a long job waits or runs shrunk while shorter ones pass it, and when it is the job that
// ends last the makespan grows by its delay (ITP cluster04: 8-GPU jobs of 1.2M s waited 6.3M s and
// started when everything else had finished). The rule is the critical-path / LPT argument
// (Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 1969: start the
// longest jobs first): a job whose remaining time on its requested GPUs outlasts the rest of the
// active work spread over the rest of the cluster decides the makespan unless it runs now.
#include <vector>

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

/// The same walk given W (`work_gpu_s`, the sum of heet_tail_work_gpu_s over every active job in
/// order) and only the eligible jobs: heet builds just those each round (tail=guard reads a few
/// of thousands), with W summed in the same order, so the answer is bit for bit the one above.
std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> eligible_jobs, double work_gpu_s, int total_gpus);

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
