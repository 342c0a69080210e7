#pragma once
// Room for jobs that ask for a fraction of a GPU (JobSpec::gpu_milli), as a policy counts it while
// it fills one decision: the free GPUs it has not given away yet, and the room left on shared GPUs,
// updated with the mechanism's own rule (best fit among shared GPUs, else a free GPU), so a job the
// policy counts as placed is one the mechanism places. Private to src/policy.
#include <cstddef>
#include <set>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim::policy_detail {

class ShareTally {
 public:
  explicit ShareTally(const ClusterState& state) : state_(&state), rooms_(state.cluster().gpu_types().size()) {}

  /// Whether a share of `milli` fits on type `type`: a shared GPU with that much room, or one of
  /// the `free_left` free GPUs.
  bool fits(GpuTypeId type, int milli, int free_left) {
    return free_left > 0 || best(type, milli) != rooms(type).end();
  }
  /// Takes a share of `milli` on `type` as the mechanism will: the best-fitting shared GPU, else
  /// one free GPU (then `free_left` drops by one). Call only after fits().
  void take(GpuTypeId type, int milli, int& free_left) {
    auto& r = rooms(type);
    auto it = best(type, milli);
    int room = 0;
    if (it != r.end()) {
      room = it->first;
      r.erase(it);
    } else {
      room = ClusterState::kWholeMilli;
      --free_left;
    }
    // Which GPU of equal room is taken does not change the rooms left, so an entry's second key
    // only needs to be unique.
    if (room > milli) r.emplace(room - milli, next_key_++);
  }

 private:
  using Rooms = std::multiset<std::pair<int, long long>>;
  Rooms& rooms(GpuTypeId type) {
    auto& slot = rooms_[static_cast<std::size_t>(type)];
    if (!slot.first) {  // copied at first use: a pass with no fractional job pays nothing
      slot.first = true;
      for (const auto& [room, gpu] : state_->shared_by_room(type)) slot.second.emplace(room, gpu);
    }
    return slot.second;
  }
  Rooms::iterator best(GpuTypeId type, int milli) { return rooms(type).lower_bound({milli, -1}); }

  const ClusterState* state_;
  std::vector<std::pair<bool, Rooms>> rooms_;  // [gpu type] copied yet, rooms
  long long next_key_ = 1LL << 40;  // above every GPU index
};

}  // namespace hetsim::policy_detail
