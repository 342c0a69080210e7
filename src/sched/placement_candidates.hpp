#pragma once
// Candidate placements shared by the placements that score candidates with the throughput model
// (topology-aware, network-aware); private to src/sched.
#include <cstddef>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/perf/link_sharing.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim::placement_detail {

/// Full candidates of `count` free GPUs of `type`, each sorted, in a fixed order: consolidate's
/// answer, spread's, each rack packed emptiest node first, then one node of each kind (rack, free
/// GPUs, network) as a seed filled from its own rack first. Empty when too few GPUs are free.
std::vector<std::vector<GpuId>> topology_candidates(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                                                    int count, const ThroughputModel& model);

/// Distinct nodes and racks a GPU set touches.
std::pair<std::size_t, std::size_t> nodes_and_racks(const Cluster& c, const std::vector<GpuId>& gpus);

/// A candidate's rate if its job started on it now, and what that would do to the running jobs.
struct SharedScore {
  double rate_alone = 0.0;  ///< the model's rate with the network to itself
  double rate = 0.0;        ///< the rate at the speed the current sharing would give it
  JoinEffect effect;        ///< speed 1 and no loss when it would use no shared link
};
/// Scores `gpus` for `job` against the current sharing (`network`); with no view, rate = alone.
SharedScore score_on_network(const JobSpec& job, const Cluster& c, const std::vector<GpuId>& gpus,
                             const ThroughputModel& model, const NetworkView* network);

}  // namespace hetsim::placement_detail
