// yarn: the placement scheme of Tiresias' simulator (Gu et al., "Tiresias: A GPU Cluster Manager
// for Distributed Deep Learning", NSDI'19; github.com/SymbioticLab/Tiresias, simulator/switch.py,
// try_single_node_alloc / try_cross_node_alloc). Nodes are scanned in index order:
//  - a job of at most G GPUs (G = GPUs per node) takes the first node with enough free GPUs, so a
//    job of up to 8 GPUs on 8-GPU nodes always stays on one node;
//  - a larger job takes the first count / G idle nodes whole, and count % G more on the first
//    other node with that many free; it gets nothing unless both parts are found.
// The simulator's CPU and memory checks are left out (hetsim models GPUs only; with 6 CPUs per GPU
// and 256 GB nodes they never bind for jobs of up to 16 GPUs).
#include <algorithm>
#include <cassert>

#include "hetsim/sched/placement.hpp"
#include "placement_util.hpp"

namespace hetsim {

std::vector<std::pair<std::size_t, int>> yarn_fit(const std::vector<int>& free, const std::vector<int>& capacity,
                                                  int count) {
  std::vector<std::pair<std::size_t, int>> out;
  if (count <= 0 || free.empty()) return out;
  const int per_node = *std::max_element(capacity.begin(), capacity.end());
  if (count <= per_node) {
    for (std::size_t i = 0; i < free.size(); ++i)
      if (free[i] >= count) return {{i, count}};
    return out;
  }
  const int whole = count / per_node;
  const int rest = count % per_node;
  std::vector<char> used(free.size(), 0);
  for (std::size_t i = 0; i < free.size() && static_cast<int>(out.size()) < whole; ++i) {
    if (capacity[i] == per_node && free[i] == per_node) {
      out.emplace_back(i, per_node);
      used[i] = 1;
    }
  }
  if (static_cast<int>(out.size()) < whole) return {};
  if (rest == 0) return out;
  for (std::size_t i = 0; i < free.size(); ++i) {
    if (!used[i] && free[i] >= rest) {
      out.emplace_back(i, rest);
      return out;
    }
  }
  return {};
}

std::vector<GpuId> YarnPlacement::place(const ClusterState& state, const JobSpec&, GpuTypeId type, int count,
                                        const ThroughputModel&) const {
  std::vector<GpuId> out;
  if (count <= 0 || state.free_of_type(type) < count) return out;
  const Cluster& c = state.cluster();
  std::vector<NodeId> nodes;
  std::vector<int> free, capacity;
  for (std::size_t n = 0; n < c.nodes().size(); ++n) {
    if (c.nodes()[n].gpu_type != type) continue;
    nodes.push_back(static_cast<NodeId>(n));
    free.push_back(state.free_on_node(static_cast<NodeId>(n)));
    capacity.push_back(c.nodes()[n].gpu_count);
  }
  const auto fit = yarn_fit(free, capacity, count);
  if (fit.empty()) return placement_detail::fill_in_order(state, nodes, count);
  for (const auto& [at, gpus] : fit) placement_detail::take_free_gpus(state, nodes[at], gpus, out);
  assert(placement_detail::distinct(out));
  return out;
}

}  // namespace hetsim
