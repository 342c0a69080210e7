// The time-sharing mechanism's guard against a livelock: with a restart overhead longer than a
// round, jobs that time sharing re-places every round pay a fresh restart each time and never run
// (a run found by a new-user trial spun for hours towards the round limit). A job kept in place
// ends its restart within ceil(restart / round) rounds, so many more rounds in a row without any
// progress cannot end: the run stops there and reports its jobs unfinished, with the reason.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsim/sched/gavel_mechanism.hpp"

namespace hetsim {
namespace {
constexpr double kStalledRoundsAllowed = 1000.0;  // beyond twice the longest restart, in rounds
}  // namespace

bool GavelMechanism::stalled() {
  const SimTime now = sim_.now();
  bool progress = dispatched_.empty();  // an idle round is the end-of-arrivals rule's business
  for (const Dispatch& d : dispatched_) {
    progress = progress || d.steps > 0.0 || d.partner_steps > 0.0;
    const JobRuntime& job = table_.job(d.job);
    if (job.resume_at > now) longest_restart_s_ = std::max(longest_restart_s_, (job.resume_at - now).seconds());
  }
  stalled_rounds_ = progress ? 0 : stalled_rounds_ + 1;
  return static_cast<double>(stalled_rounds_) >
         kStalledRoundsAllowed + 2.0 * std::ceil(longest_restart_s_ / config_.round_s);
}

void GavelMechanism::end_stalled_run() {
  const SimTime now = sim_.now();
  const std::string why = fmt::format(
      "no job progressed in {} rounds in a row: every placed job spent its round restarting (restarts up to {:.0f} s, "
      "rounds of {:.0f} s, and time sharing placed the jobs anew round after round); lower --restart-overhead or "
      "lengthen --interval",
      stalled_rounds_, longest_restart_s_, config_.round_s);
  table_.warn(fmt::format("t={:.6f}s: the run stopped: {}", now.seconds(), why));
  if (packing_) stop_sharers(now, StopReason::RunEnded);
  table_.end_unfinished(now, EndOfRun{StopReason::RunEnded, why, why, "arrives after the run stopped: " + why},
                        [](JobRuntime&) {});
  sim_.stop();
}

}  // namespace hetsim
