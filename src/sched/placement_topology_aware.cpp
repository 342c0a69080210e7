// topology-aware: among candidate placements, the one the throughput model predicts to train
// fastest. With the analytic model this weighs NIC and uplink bottlenecks (hetsim's topology);
// the idea of scoring placements with a performance model follows Gandiva's and Tiresias's
// locality-aware placement (Xiao et al., OSDI 2018; Gu et al., NSDI 2019) and Sia's
// placement-aware goodput (Jayaram Subramanya et al., SOSP 2023).
#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <tuple>

#include "hetsim/sched/placement.hpp"
#include "placement_util.hpp"

namespace hetsim {
namespace {

std::pair<std::size_t, std::size_t> nodes_and_racks(const Cluster& c, const std::vector<GpuId>& gpus) {
  std::set<NodeId> nodes;
  std::set<RackId> racks;
  for (GpuId g : gpus) {
    nodes.insert(c.node_of(g));
    racks.insert(c.nodes()[static_cast<std::size_t>(c.node_of(g))].rack);
  }
  return {nodes.size(), racks.size()};
}

}  // namespace

std::vector<GpuId> TopologyAwarePlacement::place(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                                                 int count, const ThroughputModel& model) const {
  if (count <= 0 || state.free_of_type(type) < count) return {};
  const Cluster& c = state.cluster();
  std::vector<std::vector<GpuId>> candidates;
  candidates.push_back(ConsolidatePlacement().place(state, job, type, count, model));
  candidates.push_back(SpreadPlacement().place(state, job, type, count, model));

  const std::vector<NodeId> nodes = placement_detail::nodes_with_free(state, type);
  auto emptiest_first = [&](std::vector<NodeId> v) {
    std::stable_sort(v.begin(), v.end(), [&](NodeId a, NodeId b) { return state.free_on_node(a) > state.free_on_node(b); });
    return v;
  };
  std::map<RackId, std::vector<NodeId>> by_rack;
  for (NodeId n : nodes) by_rack[c.nodes()[static_cast<std::size_t>(n)].rack].push_back(n);
  for (auto& [rack, rack_nodes] : by_rack) {
    rack_nodes = emptiest_first(rack_nodes);
    candidates.push_back(placement_detail::fill_in_order(state, rack_nodes, count));
  }
  const std::vector<NodeId> all = emptiest_first(nodes);
  // Every node as a seed: its GPUs, then its rack's emptiest nodes, then the other racks'. Seeds
  // alike in rack, free GPUs and network give the same candidate shape, so only the first of
  // each kind is tried (this keeps a 256-node cluster to a few dozen candidates).
  std::set<std::tuple<RackId, int, double, double>> tried;
  for (NodeId seed : nodes) {
    const Node& sn = c.nodes()[static_cast<std::size_t>(seed)];
    if (!tried.emplace(sn.rack, state.free_on_node(seed), sn.interconnect_gbytes_per_s, sn.nic_gbps).second) continue;
    std::vector<NodeId> order{seed};
    for (NodeId n : by_rack[sn.rack])
      if (n != seed) order.push_back(n);
    for (NodeId n : all)
      if (c.nodes()[static_cast<std::size_t>(n)].rack != sn.rack) order.push_back(n);
    candidates.push_back(placement_detail::fill_in_order(state, order, count));
  }

  std::vector<GpuId> best;
  std::tuple<double, std::size_t, std::size_t> best_key{};
  for (auto& cand : candidates) {
    if (static_cast<int>(cand.size()) != count) continue;
    std::sort(cand.begin(), cand.end());
    const auto [n_nodes, n_racks] = nodes_and_racks(c, cand);
    // Higher rate first, then fewer nodes, fewer racks; strict comparison keeps the earliest.
    const std::tuple<double, std::size_t, std::size_t> key{-model.rate_on(job, c, cand), n_nodes, n_racks};
    if (best.empty() || key < best_key) {
      best = cand;
      best_key = key;
    }
  }
  assert(best.empty() || placement_detail::distinct(best));
  return best;
}

}  // namespace hetsim
