#pragma once
/// Per-job GPU-type constraints (JobSpec::allowed_gpu_types, from Alibaba OpenB's `gpu_spec`),
/// enforced as a throughput-model decorator: a disallowed type has rate 0, which every policy and
/// mechanism already reads as "cannot run there". Keeping the rule in one wrapper means no policy
/// needs to know that constraints exist.
#include <memory>
#include <optional>
#include <string>

#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// True when `job` may run on GPU type `type` of `cluster` (always true without constraints).
bool type_allowed(const JobSpec& job, const Cluster& cluster, GpuTypeId type);

/// Wraps a model: rates on disallowed GPU types are 0 (a placement touching any disallowed GPU
/// too); check_job() rejects a job none of whose allowed types is in the cluster, naming them.
/// Everything else is the wrapped model's, which the wrapper owns.
class TypeConstrainedModel final : public ThroughputModel {
 public:
  /// Throws std::invalid_argument when `base` is null. `cluster` must outlive the wrapper.
  TypeConstrainedModel(std::unique_ptr<ThroughputModel> base, const Cluster& cluster);
  std::string name() const override { return base_->name(); }
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  double rate_on(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const override;
  double rate_at(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                 double done) const override;
  double next_rate_change(const JobSpec& job, double done) const override {
    return base_->next_rate_change(job, done);
  }
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;

 private:
  bool all_allowed(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const;
  std::unique_ptr<ThroughputModel> base_;
  const Cluster& cluster_;
};

}  // namespace hetsim
