// Round skipping for the round mechanism (issue 19 item 1: rounds that cost what changes).
//
// Why a round can be skipped. Between two computations of X, a round's choice (choose_jobs) walks
// the types in order and, per type, the jobs with an entry there by priority. When, on every type,
// all the jobs with an entry that are not taken yet fit in its GPUs, every such job is taken
// whatever the priorities: the choice is "each job on its first type with an entry", which depends
// on the entries only. Entries do not depend on the priorities either (an entry exists where the
// job's rate is > 0 and, under FIFO's rule, where its share x is > 0, which makes its priority
// > 0). When types are shuffled each round, the choice is also free of the type order if no job
// has entries on two types. note_round_choice() records that ("steady"); the placement of such a
// round then gives every chosen job of X its GPUs, which nobody else claims in the next round, so
// the next round keeps every job where it is: no start, stop or move. That holds round after round
// until a job joins or finishes, X is recomputed, or the run's horizon comes.
//
// What a skipped round still does. Everything that is not placement: the round counters and the
// round limit, the type shuffle's draws (CPython's generator must stay in step), the invariant
// hook, each job's steps (Gavel's whole steps of a full round), and Gavel's priority accounting.
// That accounting is a sum of doubles, round by round and job by job in dispatch order
// ((round start + run time) - round start, added to the job's time on its type and to the type's
// total): multiplying by the number of rounds would round differently, and priorities compare those
// sums, so the skipped rounds replay the sums in a tight loop over the running jobs (a few
// additions each, against a full round's sorting, placement and JobTable work). Remaining work is
// replayed the same way (max(0, remaining - steps), as end_round does). Round ends are arithmetic:
// the latest finish of a round is that of the job with the longest run time (rounding is
// monotone), computed with the same expressions as dispatch_at() and schedule_round_end().
//
// Where skipping stops: the last round of a stretch is dispatched live (events at its end, as
// start_round would) when a job finishes in it, it ends at or after the next arrival or the --until
// horizon, or X would be recomputed at its end (Gavel's reset rule). Off for packing policies, for
// policies that recompute X every round or do not declare steady_rounds_skippable(), while a job
// still pays a restart overhead, and with --no-round-skip.
#include <algorithm>
#include <cmath>

#include "hetsim/sched/gavel_mechanism.hpp"

namespace hetsim {

bool GavelMechanism::skipping_allowed() const {
  return config_.skip_steady_rounds && !packing_ && policy_.steady_rounds_skippable() && !policy_.every_round();
}

// start_round's test for recomputing X (when the active set changed): Gavel's reset interval, or
// no reset yet.
bool GavelMechanism::reset_due(double now_s) const {
  return now_s - last_reset_s_ >= config_.min_reset_interval_s || last_reset_s_ == 0.0;
}

void GavelMechanism::note_round_choice(bool contended, bool several_types) {
  steady_ = !contended && (policy_.fixed_type_order() || !several_types);
}

// What start_round does in a round that places nothing new (see the top of this file).
void GavelMechanism::begin_skipped_round(SimTime start) {
  ++solver_.rounds;
  check_round_limit(solver_.rounds, config_.max_rounds, config_.round_s, start);
  ++table_.stats().scheduling_passes;
  type_order();  // the shuffle's draws of this round; the order itself changes nothing here
  table_.clear_changed();
  table_.end_pass(start);
}

// At a round end with nothing changed since a steady round: runs the rounds that follow by
// arithmetic up to the first one in which something can change, which is dispatched live.
// Returns false (nothing done) when the round starting now must run in full.
bool GavelMechanism::skip_steady_rounds() {
  if (!steady_ || active_changed_ || !skipping_allowed()) return false;
  const SimTime now = sim_.now();
  if (!round_end_ || now != *round_end_ || table_.running().empty()) return false;
  if (need_update_ && reset_due(gavel_round_end_s_)) return false;  // X is recomputed now
  skip_.clear();
  double longest_s = 0.0;  // the longest run time of a job in a round
  bool finishes = false;   // some job finishes in the round about to start
  for (JobIndex j : table_.running()) {
    const JobRuntime& job = table_.job(j);
    double* run_time = priorities_.run_time_of(j);
    if (job.resume_at > now || run_time == nullptr) return false;
    const auto t = static_cast<std::size_t>(job.gpu_type);
    const double rate = throughput_[static_cast<std::size_t>(j)][t];
    // dispatch_at()'s arithmetic with no overhead to pay.
    double steps = std::floor(rate * config_.round_s);
    if (steps < 1.0) steps = rate * config_.round_s;
    const double seconds = steps / rate;
    skip_.push_back({steps, seconds, job.remaining_work, run_time, t});
    longest_s = std::max(longest_s, seconds);
    finishes = finishes || steps >= job.remaining_work;
  }
  const bool arrivals_left = arrived_upto_ < workload_.jobs.size();
  const SimTime next_arrival = arrivals_left ? workload_.jobs[arrived_upto_].submit : SimTime{};
  const bool horizon = config_.until_s.has_value();
  const SimTime until = horizon ? SimTime::from_seconds(*config_.until_s) : SimTime{};
  double* type_s = priorities_.type_run_times();
  SimTime start = now;
  double start_frac_us = round_end_frac_us_, start_s = gavel_round_end_s_;
  std::uint64_t skipped = 0;
  for (;;) {
    begin_skipped_round(start);
    now_frac_us_ = start_frac_us;
    gavel_s_ = start_s;
    const double end_offset_us = start_frac_us + longest_s * 1e6;  // as dispatch_at()
    const double end_whole_us = std::round(end_offset_us);
    const SimTime end = start + SimTime::from_us(static_cast<std::int64_t>(end_whole_us));
    const double end_s = start_s + longest_s;
    if (finishes || (arrivals_left && end >= next_arrival) || (horizon && end >= until) ||
        (need_update_ && reset_due(end_s))) {
      if (skipped > 0) {
        std::size_t k = 0;
        for (JobIndex j : table_.running()) {
          JobRuntime& job = table_.job(j);
          job.remaining_work = skip_[k++].remaining;
          job.work_done = job.spec->work - job.remaining_work;
        }
      }
      for (JobIndex j : table_.running()) dispatch_at(j, start);
      schedule_round_end();
      skipped_rounds_ += skipped;
      return true;
    }
    // The round ends before anything can change: schedule_round_end()'s and end_round()'s work.
    gavel_round_start_s_ = gavel_round_end_s_;
    round_end_ = end;
    round_end_frac_us_ = end_offset_us - end_whole_us;
    gavel_round_end_s_ = end_s;
    forced_ = false;
    for (SkipJob& s : skip_) {
      const double run_s = (start_s + s.seconds) - start_s;  // Gavel's finish - round start, in doubles
      s.run_time[s.type] += run_s;
      type_s[s.type] += run_s;
      s.remaining = std::max(0.0, s.remaining - s.steps);
      finishes = finishes || s.steps >= s.remaining;
    }
    ++skipped;
    start = end;
    start_frac_us = round_end_frac_us_;
    start_s = end_s;
  }
}

}  // namespace hetsim
