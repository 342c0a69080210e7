// consolidate: fewest nodes, then fewest racks, best fit. Packing a data-parallel job onto as few
// servers as possible is the default of Gavel's and Tiresias's placement (Gu et al., NSDI 2019,
// "consolidation"), and best fit keeps whole nodes free for later large jobs.
#include <algorithm>
#include <cassert>
#include <limits>
#include <map>

#include "hetsim/sched/placement.hpp"
#include "placement_util.hpp"

namespace hetsim {
namespace {

using placement_detail::take_free_gpus;

// Emptiest first; node index breaks ties.
void sort_emptiest_first(const ClusterState& state, std::vector<NodeId>& nodes) {
  std::stable_sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) { return state.free_on_node(a) > state.free_on_node(b); });
}

// The job on the fewest nodes of `nodes` (emptiest first, the last one best fit), or empty.
std::vector<GpuId> fewest_nodes(const ClusterState& state, std::vector<NodeId> nodes, int count) {
  sort_emptiest_first(state, nodes);
  std::vector<GpuId> out;
  std::size_t used = 0;
  int have = 0;
  while (used < nodes.size() && have + state.free_on_node(nodes[used]) < count) have += state.free_on_node(nodes[used++]);
  if (used == nodes.size()) return out;
  // nodes[used] would complete the job; the fullest node from there on that still does is the best fit.
  const int rest = count - have;
  std::size_t last = used;
  for (std::size_t i = used; i < nodes.size(); ++i)
    if (state.free_on_node(nodes[i]) >= rest && state.free_on_node(nodes[i]) < state.free_on_node(nodes[last])) last = i;
  for (std::size_t i = 0; i < used; ++i) take_free_gpus(state, nodes[i], state.free_on_node(nodes[i]), out);
  take_free_gpus(state, nodes[last], rest, out);
  return out;
}

std::size_t count_nodes(const Cluster& c, const std::vector<GpuId>& gpus) {
  std::vector<NodeId> n;
  for (GpuId g : gpus) n.push_back(c.node_of(g));
  std::sort(n.begin(), n.end());
  return static_cast<std::size_t>(std::unique(n.begin(), n.end()) - n.begin());
}

}  // namespace

std::vector<GpuId> ConsolidatePlacement::place(const ClusterState& state, const JobSpec&, GpuTypeId type, int count,
                                               const ThroughputModel&) const {
  std::vector<GpuId> out;
  if (count <= 0 || state.free_of_type(type) < count) return out;
  const Cluster& c = state.cluster();
  // One node: the one with the fewest free GPUs that still holds the job (ties: lowest index),
  // straight from the state's (free GPUs, node) index.
  const auto& by_free = state.nodes_by_free(type);
  if (auto fit = by_free.lower_bound({count, std::numeric_limits<NodeId>::min()}); fit != by_free.end()) {
    take_free_gpus(state, fit->second, count, out);
    return out;
  }
  const std::vector<NodeId> nodes = placement_detail::nodes_with_free(state, type);
  // One rack: fewest nodes, then the rack left with the fewest free GPUs of the type.
  std::map<RackId, std::vector<NodeId>> by_rack;
  for (NodeId n : nodes) by_rack[c.nodes()[static_cast<std::size_t>(n)].rack].push_back(n);
  std::size_t best_nodes = 0;
  int best_left = 0;
  for (const auto& [rack, rack_nodes] : by_rack) {
    std::vector<GpuId> candidate = fewest_nodes(state, rack_nodes, count);
    if (candidate.empty()) continue;
    int free = 0;
    for (NodeId n : rack_nodes) free += state.free_on_node(n);
    const std::size_t k = count_nodes(c, candidate);
    if (out.empty() || k < best_nodes || (k == best_nodes && free - count < best_left)) {
      out = std::move(candidate);
      best_nodes = k;
      best_left = free - count;
    }
  }
  if (!out.empty()) return out;
  // Several racks: the fewest nodes over the whole cluster; among equal node counts, racks
  // emptiest first so the job touches as few racks as the node count allows.
  std::vector<GpuId> global = fewest_nodes(state, nodes, count);
  std::vector<std::pair<int, RackId>> racks;
  for (const auto& [rack, rack_nodes] : by_rack) {
    int free = 0;
    for (NodeId n : rack_nodes) free += state.free_on_node(n);
    racks.emplace_back(-free, rack);
  }
  std::sort(racks.begin(), racks.end());
  std::vector<NodeId> rack_order;
  for (const auto& [neg_free, rack] : racks) {
    std::vector<NodeId> rn = by_rack[rack];
    sort_emptiest_first(state, rn);
    rack_order.insert(rack_order.end(), rn.begin(), rn.end());
  }
  std::vector<GpuId> by_racks = placement_detail::fill_in_order(state, rack_order, count);
  out = count_nodes(c, by_racks) <= count_nodes(c, global) ? by_racks : global;
  assert(placement_detail::distinct(out));
  return out;
}

}  // namespace hetsim
