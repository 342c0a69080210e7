#pragma once
// Helpers shared by the placement policies (private to src/sched).
#include <algorithm>
#include <cassert>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"

namespace hetsim::placement_detail {

/// Appends up to `count` free GPUs of `node` in GPU order.
inline void take_free_gpus(const ClusterState& state, NodeId node, int count, std::vector<GpuId>& out) {
  const Node& n = state.cluster().nodes()[static_cast<std::size_t>(node)];
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && count > 0; ++g) {
    if (state.owner(g) == ClusterState::kFree) {
      out.push_back(g);
      --count;
    }
  }
}

/// Nodes of `type` with at least one free GPU, in node order (ClusterState keeps this set up to date).
inline std::vector<NodeId> nodes_with_free(const ClusterState& state, GpuTypeId type) {
  const auto& nodes = state.nodes_with_free(type);
  return {nodes.begin(), nodes.end()};
}

/// Fills `count` GPUs from `order` (whole nodes' free GPUs, in that order).
inline std::vector<GpuId> fill_in_order(const ClusterState& state, const std::vector<NodeId>& order, int count) {
  std::vector<GpuId> out;
  for (NodeId n : order) {
    const int want = count - static_cast<int>(out.size());
    if (want <= 0) break;
    take_free_gpus(state, n, want, out);
  }
  if (static_cast<int>(out.size()) < count) out.clear();
  return out;
}

/// Debug-build check of the placement contract: distinct GPUs.
inline bool distinct(std::vector<GpuId> gpus) {
  std::sort(gpus.begin(), gpus.end());
  return std::adjacent_find(gpus.begin(), gpus.end()) == gpus.end();
}

}  // namespace hetsim::placement_detail
