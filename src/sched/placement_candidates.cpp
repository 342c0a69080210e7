// Candidate placements for the model-scored placements (topology-aware, network-aware). The
// candidates are few (a few dozen on a 256-node cluster) so that scoring each with the throughput
// model, and under --network shared with the current link loads, stays cheap.
#include "placement_candidates.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "hetsim/sched/placement.hpp"
#include "placement_util.hpp"

namespace hetsim::placement_detail {

std::pair<std::size_t, std::size_t> nodes_and_racks(const Cluster& c, const std::vector<GpuId>& gpus) {
  std::set<NodeId> nodes;
  std::set<RackId> racks;
  for (GpuId g : gpus) {
    nodes.insert(c.node_of(g));
    racks.insert(c.nodes()[static_cast<std::size_t>(c.node_of(g))].rack);
  }
  return {nodes.size(), racks.size()};
}

std::vector<std::vector<GpuId>> topology_candidates(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                                                    int count, const ThroughputModel& model) {
  if (count <= 0 || state.free_of_type(type) < count) return {};
  const Cluster& c = state.cluster();
  std::vector<std::vector<GpuId>> candidates;
  candidates.push_back(ConsolidatePlacement().place(state, job, type, count, model));
  candidates.push_back(SpreadPlacement().place(state, job, type, count, model));

  const std::vector<NodeId> nodes = nodes_with_free(state, type);
  auto emptiest_first = [&](std::vector<NodeId> v) {
    std::stable_sort(v.begin(), v.end(), [&](NodeId a, NodeId b) { return state.free_on_node(a) > state.free_on_node(b); });
    return v;
  };
  std::map<RackId, std::vector<NodeId>> by_rack;
  for (NodeId n : nodes) by_rack[c.nodes()[static_cast<std::size_t>(n)].rack].push_back(n);
  for (auto& [rack, rack_nodes] : by_rack) {
    rack_nodes = emptiest_first(rack_nodes);
    candidates.push_back(fill_in_order(state, rack_nodes, count));
  }
  const std::vector<NodeId> all = emptiest_first(nodes);
  // Every node as a seed: its GPUs, then its rack's emptiest nodes, then the other racks'. Seeds
  // alike in rack, free GPUs and network give the same candidate shape, so only the first of
  // each kind is tried.
  std::set<std::tuple<RackId, int, double, double>> tried;
  for (NodeId seed : nodes) {
    const Node& sn = c.nodes()[static_cast<std::size_t>(seed)];
    if (!tried.emplace(sn.rack, state.free_on_node(seed), sn.interconnect_gbytes_per_s, sn.nic_gbps).second) continue;
    std::vector<NodeId> order{seed};
    for (NodeId n : by_rack[sn.rack])
      if (n != seed) order.push_back(n);
    for (NodeId n : all)
      if (c.nodes()[static_cast<std::size_t>(n)].rack != sn.rack) order.push_back(n);
    candidates.push_back(fill_in_order(state, order, count));
  }
  std::erase_if(candidates, [&](const std::vector<GpuId>& v) { return static_cast<int>(v.size()) != count; });
  for (auto& cand : candidates) std::sort(cand.begin(), cand.end());
  return candidates;
}

SharedScore score_on_network(const JobSpec& job, const Cluster& c, const std::vector<GpuId>& gpus,
                             const ThroughputModel& model, const NetworkView* network) {
  SharedScore s;
  s.rate_alone = s.rate = model.rate_on(job, c, gpus);
  if (network == nullptr || !(s.rate_alone > 0.0)) return s;
  const std::optional<NetworkDemand> demand = model.network_demand(job, gpus);
  if (!demand) return s;
  s.effect = network->join_effect(*demand);
  // At full speed keep the model's own rate bit for bit (what the mechanism will run it at).
  if (s.effect.speed < 1.0) s.rate = demand->rate_at_speed(s.effect.speed);
  return s;
}

}  // namespace hetsim::placement_detail
