#pragma once
// Helpers shared by the policies that follow Tiresias' own simulator (Gu et al., "Tiresias: A GPU
// Cluster Manager for Distributed Deep Learning", NSDI'19; github.com/SymbioticLab/Tiresias,
// simulator/run_sim.py): tiresias-fifo, tiresias-shortest, tiresias-dlas-gpu. That simulator has
// one GPU type and counts time in whole seconds; these policies use the cluster's first GPU type
// and the pass time rounded to whole seconds.
#include <cmath>
#include <vector>

#include "hetsim/policy/policy.hpp"
#include "hetsim/sched/placement.hpp"

namespace hetsim::policy_detail {

/// The simulator's GPU type: the cluster's first.
inline constexpr GpuTypeId kTiresiasType = 0;

inline long long whole_s(SimTime t) { return std::llround(t.seconds()); }

/// Nodes of the simulator's GPU type, with their capacities and (from `state`, or all free when
/// `empty`) free GPUs, in node order: the input of yarn_fit().
struct YarnNodes {
  std::vector<NodeId> nodes;
  std::vector<int> free;
  std::vector<int> capacity;
  YarnNodes(const ClusterState& state, bool empty) {
    const auto& all = state.cluster().nodes();
    for (std::size_t n = 0; n < all.size(); ++n) {
      if (all[n].gpu_type != kTiresiasType) continue;
      nodes.push_back(static_cast<NodeId>(n));
      capacity.push_back(all[n].gpu_count);
      free.push_back(empty ? all[n].gpu_count : state.free_on_node(static_cast<NodeId>(n)));
    }
  }
  /// Takes `count` GPUs by the yarn rule from `free`; false (nothing taken) when it finds none.
  bool take(int count, std::vector<std::pair<std::size_t, int>>* fit_out = nullptr) {
    auto fit = yarn_fit(free, capacity, count);
    if (fit.empty()) return false;
    for (const auto& [at, n] : fit) free[at] -= n;
    if (fit_out) *fit_out = std::move(fit);
    return true;
  }
};

}  // namespace hetsim::policy_detail
