#pragma once
// The rigid greedy step's choice of GPU type, shared by las and edf: the fastest type that still
// has room for the job's requested GPUs.
#include <vector>

#include "hetsim/policy/policy.hpp"

namespace hetsim::policy_detail {

/// The type with at least `spec.requested_gpus` GPUs left in `left` and the highest positive rate
/// at that count (the first such type on a tie); -1 if none.
inline GpuTypeId fastest_type_with_room(const PolicyView& ctx, const JobSpec& spec, const std::vector<int>& left) {
  GpuTypeId pick = -1;
  double best = 0.0;
  for (std::size_t t = 0; t < left.size(); ++t) {
    if (left[t] < spec.requested_gpus) continue;
    const double rate = ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), spec.requested_gpus);
    if (rate > best) {
      best = rate;
      pick = static_cast<GpuTypeId>(t);
    }
  }
  return pick;
}

}  // namespace hetsim::policy_detail
