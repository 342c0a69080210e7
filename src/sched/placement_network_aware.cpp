// network-aware: among the topology-aware candidates, the one that costs the cluster least under
// the shared network: the job's own slowdown against the fastest candidate running alone, plus
// the relative rate every running job it would share a link with loses (max-min sharing,
// perf/link_sharing.hpp). Contention-aware placement of this kind is what CASSINI (Rajasekaran et
// al., NSDI 2024) and Crux (Cao et al., SIGCOMM 2024) argue for; this is the greedy per-job form.
// With the network alone (no sharing), no other job can be slowed, so it places as topology-aware.
#include <algorithm>
#include <cassert>
#include <tuple>

#include "hetsim/sched/placement.hpp"
#include "placement_candidates.hpp"
#include "placement_util.hpp"

namespace hetsim {

std::vector<GpuId> NetworkAwarePlacement::place(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                                                int count, const ThroughputModel& model) const {
  return TopologyAwarePlacement().place(state, job, type, count, model);
}

std::vector<GpuId> NetworkAwarePlacement::place_on_network(const ClusterState& state, const JobSpec& job,
                                                           GpuTypeId type, int count, const ThroughputModel& model,
                                                           const NetworkView& network) const {
  const Cluster& c = state.cluster();
  std::vector<std::vector<GpuId>> candidates = placement_detail::topology_candidates(state, job, type, count, model);
  std::vector<placement_detail::SharedScore> scores;
  double best_alone = 0.0;
  for (const auto& cand : candidates) {
    scores.push_back(placement_detail::score_on_network(job, c, cand, model, &network));
    best_alone = std::max(best_alone, scores.back().rate_alone);
  }
  std::size_t best = candidates.size();
  std::tuple<double, double, std::size_t, std::size_t> best_key{};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const placement_detail::SharedScore& s = scores[i];
    const double own_loss = best_alone > 0.0 ? 1.0 - s.rate / best_alone : 0.0;
    const auto [n_nodes, n_racks] = placement_detail::nodes_and_racks(c, candidates[i]);
    // Least total slowdown, then the faster, fewer nodes, fewer racks; strict keeps the earliest.
    const std::tuple<double, double, std::size_t, std::size_t> key{own_loss + s.effect.others_rate_loss, -s.rate,
                                                                    n_nodes, n_racks};
    if (best == candidates.size() || key < best_key) {
      best = i;
      best_key = key;
    }
  }
  if (best == candidates.size()) return {};
  assert(placement_detail::distinct(candidates[best]));
  return std::move(candidates[best]);
}

}  // namespace hetsim
