#include "hetsim/sched/placement.hpp"

#include <algorithm>

namespace hetsim {
namespace {

void take_free_gpus(const ClusterState& state, NodeId node, int count, std::vector<GpuId>& out) {
  const Node& n = state.cluster().nodes()[static_cast<std::size_t>(node)];
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && count > 0; ++g) {
    if (state.owner(g) == ClusterState::kFree) {
      out.push_back(g);
      --count;
    }
  }
}

}  // namespace

std::vector<GpuId> ConsolidatePlacement::place(const ClusterState& state, const JobSpec&, GpuTypeId type,
                                               int count) const {
  std::vector<GpuId> out;
  if (count <= 0 || state.free_of_type(type) < count) return out;
  const auto& nodes = state.cluster().nodes();
  // Best fit on one node: the node of this type with the fewest free GPUs that still hold the job.
  NodeId best = -1;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].gpu_type != type) continue;
    int free = state.free_on_node(static_cast<NodeId>(i));
    if (free >= count && (best < 0 || free < state.free_on_node(best))) best = static_cast<NodeId>(i);
  }
  if (best >= 0) {
    take_free_gpus(state, best, count, out);
    return out;
  }
  // Spread: most free first so the job touches as few nodes as possible.
  std::vector<NodeId> order;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].gpu_type == type && state.free_on_node(static_cast<NodeId>(i)) > 0)
      order.push_back(static_cast<NodeId>(i));
  std::stable_sort(order.begin(), order.end(), [&](NodeId a, NodeId b) {
    return state.free_on_node(a) > state.free_on_node(b);
  });
  for (NodeId n : order) {
    int want = count - static_cast<int>(out.size());
    if (want == 0) break;
    take_free_gpus(state, n, want, out);
  }
  return out;
}

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name) {
  if (name == "consolidate") return std::make_unique<ConsolidatePlacement>();
  return nullptr;
}

std::vector<std::string> placement_names() { return {"consolidate"}; }

}  // namespace hetsim
