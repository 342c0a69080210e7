#pragma once
/// The `analytic` throughput model: per-GPU compute time from a profile plus gradient
/// synchronisation over the cluster topology, with a compute/communication overlap factor and the
/// heterogeneous synchronous-training rule (slowest worker paces the step, or per-worker batches
/// rebalanced in proportion to speed). Formulas and sources: docs/models.md, "analytic".
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hetsim/cluster/topology.hpp"
#include "hetsim/perf/communication.hpp"
#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// Where the analytic model gets a job type's single-GPU step time and gradient size.
class ComputeProfile {
 public:
  virtual ~ComputeProfile() = default;
  /// File the profile came from (for messages).
  virtual std::string source() const = 0;
  /// Seconds per step of `job` alone on one GPU of `type` at its per-GPU batch; 0 = cannot run
  /// there (measured 0 or not in the profile).
  virtual double step_time_s(const JobSpec& job, GpuTypeId type) const = 0;
  /// Bytes all-reduced per step (the gradient), or nullopt when unknown.
  virtual std::optional<double> gradient_bytes(const JobSpec& job) const = 0;
};

/// Gavel's throughput table at scale factor 1 (step time = 1 / steps per second) with gradient
/// sizes of Gavel's job families estimated from their architectures (gavel_gradient_bytes()).
/// Throws InputError as GavelThroughputTable::load does.
std::unique_ptr<ComputeProfile> load_gavel_compute_profile(const std::string& path, const Cluster& cluster);

/// One job type of a job-types profile.
struct JobTypeProfileEntry {
  double gradient_bytes = 0.0;      ///< bytes all-reduced per step
  std::vector<double> step_time_s;  ///< [GpuTypeId] seconds per step on one GPU; 0 (or missing) = cannot run there
};

/// A compute profile from per-job-type entries (what load_job_types_profile reads, or entries
/// given in code); `source` names it in messages. Job types not in `entries` have step time 0 and
/// unknown gradient bytes.
std::unique_ptr<ComputeProfile> make_job_types_profile(std::map<std::string, JobTypeProfileEntry> entries,
                                                       std::string source);

/// hetsim's job-types JSON (docs/models.md): {"job_types": {"<job type>": {"gradient_bytes": B,
/// "step_time_s": {"<gpu type>": s, ...}}, ...}}. Strict: unknown keys, non-positive numbers and a
/// missing field are InputErrors naming the key path.
std::unique_ptr<ComputeProfile> load_job_types_profile(const std::string& path, const Cluster& cluster);

/// Estimated fp32 gradient bytes of a Gavel job type ("ResNet-50 (batch size 64)" -> family
/// "ResNet-50"), or nullopt for an unknown family. Values and their derivation: docs/models.md.
std::optional<double> gavel_gradient_bytes(const std::string& job_type);

/// Settings of the analytic model (`--model-param` keys in brackets).
struct AnalyticConfig {
  CommConfig comm;          ///< [comm, levels, ps_shards]
  double overlap = 0.5;     ///< [overlap] fraction of min(compute, comm) hidden by overlap, in [0, 1]
  bool rebalance = false;   ///< [rebalance] split the global batch in proportion to worker speed
};

/// One step of a job on a placement, decomposed.
struct StepBreakdown {
  double compute_s = 0.0;   ///< slowest worker's time, or the rebalanced time
  double comm_s = 0.0;      ///< synchronisation time from the communication model
  double step_s = 0.0;      ///< compute + comm - overlap * min(compute, comm)
  std::string comm_choice;  ///< what the communication model ran (e.g. "node=ar rack=ar cluster=-")
};

/// Work unit: iterations counted per worker (Gavel's convention: a synchronous step on n GPUs
/// completes n iterations), so the rate on n GPUs is n / step_s and on one GPU the profile's rate.
class AnalyticModel final : public ThroughputModel {
 public:
  /// `cluster` must outlive the model. Throws std::invalid_argument for overlap outside [0, 1] or
  /// ps_shards < 1.
  AnalyticModel(const Cluster& cluster, std::unique_ptr<ComputeProfile> profile, AnalyticConfig config);

  std::string name() const override { return "analytic"; }
  /// Rate on a representative placement of the shape: consolidated = the first node of the type
  /// with enough GPUs; spread = split over two nodes of the type when it fits one node, else nodes
  /// packed in cluster order. 0 when the type has too few GPUs (or nodes) for the shape.
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  /// n / step_s on exactly these GPUs (any mix of types); 0 when any worker cannot run the job.
  double rate_on(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const override;
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;
  /// The step's compute and synchronisation parts and its bytes per shared link; nullopt on one
  /// node (no shared link) or when step() is nullopt.
  std::optional<NetworkDemand> network_demand(const JobSpec& job, std::span<const GpuId> gpus) const override;
  /// The step on these GPUs, or nullopt when a worker cannot run the job or its gradient size is
  /// unknown.
  std::optional<StepBreakdown> step(const JobSpec& job, std::span<const GpuId> gpus) const;
  const Topology* topology() const override { return &topology_; }
  const AnalyticConfig& config() const { return config_; }

 private:
  std::optional<std::vector<GpuId>> representative(const AllocationShape& shape) const;
  // Compute part of a step (slowest worker, or rebalanced); nullopt when a worker cannot run it.
  std::optional<double> compute_s(const JobSpec& job, std::span<const GpuId> gpus) const;
  using ShapeKey = std::pair<std::string, std::vector<int>>;
  // Job type + (node, GPU count) per node used, in node order: what a step depends on.
  ShapeKey shape_key(const JobSpec& job, std::span<const GpuId> gpus) const;

  const Cluster& cluster_;
  Topology topology_;
  std::unique_ptr<ComputeProfile> profile_;
  AnalyticConfig config_;
  // Memoised rates: key = job type + (node, GPU count) per node used; the step time depends only
  // on that (GPUs of one node are alike). Bounded: cleared when it grows past a limit.
  mutable std::map<ShapeKey, double> cache_;
  // Memoised network demands, same key and bound (placements under --network shared ask for the
  // demand of every candidate of every placement).
  mutable std::map<ShapeKey, std::optional<NetworkDemand>> demand_cache_;
};

}  // namespace hetsim
