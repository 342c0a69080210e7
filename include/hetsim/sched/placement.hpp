#pragma once
/// Placement: which exact GPUs a job gets once the policy chose a GPU type and count.
#include <memory>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Picks `count` free GPUs of `type`. Returns an empty vector when fewer than `count` are free.
/// Deterministic: ties are broken by node index, then GPU index.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string name() const = 0;
  virtual std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                                   int count) const = 0;
};

/// Fewest nodes first: the fullest node that still fits the whole job (best fit); when no single
/// node fits, nodes with the most free GPUs first, so the job spans as few nodes as possible.
class ConsolidatePlacement final : public PlacementPolicy {
 public:
  std::string name() const override { return "consolidate"; }
  std::vector<GpuId> place(const ClusterState& state, const JobSpec& job, GpuTypeId type,
                           int count) const override;
};

/// Builds a placement policy by name ("consolidate"); nullptr when unknown.
std::unique_ptr<PlacementPolicy> make_placement(const std::string& name);
/// Names accepted by make_placement, for help texts and errors.
std::vector<std::string> placement_names();

}  // namespace hetsim
