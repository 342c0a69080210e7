// topology-aware: among candidate placements, the one the throughput model predicts to train
// fastest; under --network shared, at the speed the current sharing of NICs and uplinks would
// give it, so it steers around busy uplinks. With the analytic model this weighs NIC and uplink
// bottlenecks (hetsim's topology); the idea of scoring placements with a performance model
// follows Gandiva's and Tiresias's locality-aware placement (Xiao et al., OSDI 2018; Gu et al.,
// NSDI 2019) and Sia's placement-aware goodput (Jayaram Subramanya et al., SOSP 2023).
#include <cassert>
#include <tuple>

#include "hetsim/sched/placement.hpp"
#include "placement_candidates.hpp"
#include "placement_util.hpp"

namespace hetsim {
namespace {

std::vector<GpuId> fastest(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model, const NetworkView* network) {
  const Cluster& c = state.cluster();
  std::vector<GpuId> best;
  std::tuple<double, std::size_t, std::size_t> best_key{};
  for (auto& cand : placement_detail::topology_candidates(state, job, type, count, model)) {
    const auto [n_nodes, n_racks] = placement_detail::nodes_and_racks(c, cand);
    const double rate = placement_detail::score_on_network(job, c, cand, model, network).rate;
    // Higher rate first, then fewer nodes, fewer racks; strict comparison keeps the earliest.
    const std::tuple<double, std::size_t, std::size_t> key{-rate, n_nodes, n_racks};
    if (best.empty() || key < best_key) {
      best = std::move(cand);
      best_key = key;
    }
  }
  assert(best.empty() || placement_detail::distinct(best));
  return best;
}

}  // namespace

std::vector<GpuId> TopologyAwarePlacement::place(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                                                 int count, const ThroughputModel& model) const {
  return fastest(state, job, type, count, model, nullptr);
}

std::vector<GpuId> TopologyAwarePlacement::place_on_network(const ClusterState& state, const JobSpec& job,
                                                            GpuTypeId type, int count, const ThroughputModel& model,
                                                            const NetworkView& network) const {
  return fastest(state, job, type, count, model, &network);
}

}  // namespace hetsim
