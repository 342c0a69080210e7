#pragma once
// Gavel's round-based scheduling of rigid jobs on Pollux/Sia goodput workloads under the event
// mechanism in round mode (private to src/policy/; gavel_goodput.cpp says how).
#include <memory>

#include "hetsim/policy/allocation.hpp"
#include "hetsim/policy/policy.hpp"

namespace hetsim {

/// Gavel's default round length (s), used when the run gives no --interval: Gavel's
/// time_per_iteration and the Sia artifact's Gavel baseline (--interval 360).
inline constexpr double kGavelGoodputRoundS = 360.0;

/// The event-mechanism form of an allocation policy for goodput jobs: each round the policy's X
/// over (job, GPU type), then Gavel's priorities pick the jobs that run, each rigidly on its
/// requested GPU count and batch size. Named as `allocation`.
std::unique_ptr<SchedulingPolicy> make_gavel_goodput(std::unique_ptr<AllocationPolicy> allocation);

}  // namespace hetsim
