// spread: as many nodes and racks as possible (load balancing across servers, the opposite of
// consolidation in Tiresias, Gu et al., NSDI 2019). Useful as the communication worst case.
#include <algorithm>
#include <cassert>
#include <map>

#include "hetsim/sched/placement.hpp"
#include "placement_util.hpp"

namespace hetsim {

std::vector<GpuId> SpreadPlacement::place(const ClusterState& state, const JobSpec&, GpuTypeId type, int count,
                                          const ThroughputModel&) const {
  std::vector<GpuId> out;
  if (count <= 0 || state.free_of_type(type) < count) return out;
  const Cluster& c = state.cluster();
  // Per rack, emptiest node first; then interleave the racks so consecutive picks change rack.
  std::map<RackId, std::vector<NodeId>> by_rack;
  for (NodeId n : placement_detail::nodes_with_free(state, type)) by_rack[c.nodes()[static_cast<std::size_t>(n)].rack].push_back(n);
  std::vector<std::vector<NodeId>> lists;
  for (auto& [rack, nodes] : by_rack) {
    std::stable_sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) { return state.free_on_node(a) > state.free_on_node(b); });
    lists.push_back(nodes);
  }
  std::size_t total = 0;
  for (const auto& l : lists) total += l.size();
  std::vector<NodeId> order;
  for (std::size_t i = 0; order.size() < total; ++i)
    for (const auto& l : lists)
      if (i < l.size()) order.push_back(l[i]);
  // One GPU per node per pass.
  std::vector<int> taken(order.size(), 0);
  while (static_cast<int>(out.size()) < count) {
    for (std::size_t i = 0; i < order.size() && static_cast<int>(out.size()) < count; ++i) {
      if (taken[i] >= state.free_on_node(order[i])) continue;
      const Node& node = c.nodes()[static_cast<std::size_t>(order[i])];
      int skip = taken[i];
      for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
        if (state.owner(g) != ClusterState::kFree) continue;
        if (skip-- > 0) continue;
        out.push_back(g);
        break;
      }
      ++taken[i];
    }
  }
  std::sort(out.begin(), out.end());
  assert(placement_detail::distinct(out));
  return out;
}

}  // namespace hetsim
