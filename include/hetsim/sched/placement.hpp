#pragma once
/// Placement: which exact GPUs a job gets once the policy chose a GPU type and count. One policy
/// per file under src/sched/placement_*.cpp; docs/policies.md describes each.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/util/registry.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Picks `count` free GPUs of `type`. Returns an empty vector when fewer than `count` are free;
/// otherwise exactly `count` distinct free GPUs of `type` (the mechanism checks this and treats a
/// violation as a bug). Deterministic: ties are broken by node index, then GPU index.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string name() const = 0;
  /// `model` is the run's throughput model, for policies that compare candidate placements.
  virtual std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                                   const ThroughputModel& model) const = 0;
  /// The same under `--network shared`, with the current sharing of NICs and uplinks to look at.
  /// The default ignores it.
  virtual std::vector<GpuId> place_on_network(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                                              const ThroughputModel& model, const NetworkView& network) const {
    (void)network;
    return place(state, job, type, count, model);
  }
};

/// Fewest nodes, then fewest racks, best fit: the fullest node that still holds the whole job;
/// else the rack that holds it on the fewest nodes (ties: the rack left with the fewest free GPUs),
/// taking its emptiest nodes and best-fitting the last; else racks and nodes emptiest first.
class ConsolidatePlacement final : public PlacementPolicy {
 public:
  std::string name() const override { return "consolidate"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model) const override;
};

/// As many nodes and racks as possible: one GPU per node per pass, nodes with the most free GPUs
/// first, alternating racks (the opposite of consolidate; how Tiresias-style "spread" and load
/// balancing placements behave, and the worst case for communication).
class SpreadPlacement final : public PlacementPolicy {
 public:
  std::string name() const override { return "spread"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model) const override;
};

/// The candidate placement with the highest predicted rate (= shortest step) under the run's
/// throughput model; under `--network shared`, the rate at the speed the current sharing of NICs
/// and uplinks would give it. Candidates: consolidate's and spread's answers, each rack packed
/// emptiest node first, and every node with free GPUs as a seed filled from its own rack first
/// (one seed per kind of node: rack, free GPUs, network). Ties: fewer nodes, fewer racks, then
/// candidate order (consolidate's first).
class TopologyAwarePlacement final : public PlacementPolicy {
 public:
  std::string name() const override { return "topology-aware"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model) const override;
  std::vector<GpuId> place_on_network(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                                      const ThroughputModel& model, const NetworkView& network) const override;
};

/// Under `--network shared`, the topology-aware candidate with the least total slowdown: its own
/// (1 - rate under the current sharing / the best candidate's rate alone) plus, summed over the
/// running jobs it would slow, each one's relative rate loss. Ties: higher rate, fewer nodes,
/// fewer racks, candidate order. With the network alone it places as topology-aware.
class NetworkAwarePlacement final : public PlacementPolicy {
 public:
  std::string name() const override { return "network-aware"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model) const override;
  std::vector<GpuId> place_on_network(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                                      const ThroughputModel& model, const NetworkView& network) const override;
};

/// Tiresias' `yarn` scheme (Gu et al., NSDI'19; SymbioticLab/Tiresias simulator/switch.py,
/// ms_yarn_alloc_res): a job of at most one node's GPUs goes on the first node, in node order, with
/// enough free GPUs; a larger one takes the first count / G wholly idle nodes (G = GPUs per node)
/// and its remaining count % G GPUs on the first other node with that many free. When that finds
/// nothing although enough GPUs are free (the placement contract must answer then), the GPUs are
/// taken in node order; yarn_fit() is the strict rule, for policies that block on it.
class YarnPlacement final : public PlacementPolicy {
 public:
  std::string name() const override { return "yarn"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model) const override;
};

/// The yarn rule on plain counts: `free[i]` and `capacity[i]` are node i's free and total GPUs
/// (one GPU type, nodes in order). Returns (node position, GPUs taken) pairs, empty when the rule
/// finds no room. G is the largest capacity.
std::vector<std::pair<std::size_t, int>> yarn_fit(const std::vector<int>& free, const std::vector<int>& capacity,
                                                  int count);

/// Uniformly random free GPUs of the type. Seeded by the run seed and the job id (FNV-1a), so a
/// run is reproducible and the policy keeps no state.
class RandomPlacement final : public PlacementPolicy {
 public:
  explicit RandomPlacement(std::uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "random"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                           const ThroughputModel& model) const override;

 private:
  std::uint64_t seed_;
};

/// Everything needed to list and build one placement policy (the shared registry shape).
struct PlacementInfo {
  std::string name;
  std::string summary;  ///< one line: the rule
  std::string source;   ///< where the rule comes from
  std::vector<ParamInfo> params;  ///< none of the built-in placements takes parameters yet
  /// Builds the placement; `seed` is the run seed (used by `random`).
  std::function<std::unique_ptr<PlacementPolicy>(std::uint64_t seed)> make;
};
using PlacementRegistry = Registry<PlacementInfo>;

/// The registry with every built-in placement, `consolidate` (the default) first.
PlacementRegistry make_default_placement_registry();

/// Builds a placement policy of the default registry by name; nullptr when unknown.
std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, std::uint64_t seed = 0);
/// Names in the default registry, for help texts and errors.
std::vector<std::string> placement_names();

}  // namespace hetsim
