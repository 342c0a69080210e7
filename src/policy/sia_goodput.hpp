#pragma once
// The elastic form of the `sia` policy (goodput workloads, event mechanism in round mode); private
// to src/policy/: sia.cpp registers it beside the rigid allocation form.
#include <memory>

#include "hetsim/policy/policy.hpp"
#include "hetsim/policy/sia_plan.hpp"

namespace hetsim {

/// Sia on a goodput model. `default_penalty_s` is the restart penalty of jobs without their own
/// restart time; `bootstrap_s` the profiling seconds per GPU type charged at a job's first start.
std::unique_ptr<SchedulingPolicy> make_sia_goodput(const SiaPlanSettings& settings, double default_penalty_s,
                                                   double bootstrap_s);

}  // namespace hetsim
