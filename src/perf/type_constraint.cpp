#include "hetsim/perf/type_constraint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "hetsim/util/parse.hpp"

namespace hetsim {

bool type_allowed(const JobSpec& job, const Cluster& cluster, GpuTypeId type) {
  if (job.allowed_gpu_types.empty()) return true;
  if (type < 0 || static_cast<std::size_t>(type) >= cluster.gpu_types().size()) return false;
  const std::string name = to_lower(cluster.gpu_types()[static_cast<std::size_t>(type)].name);
  for (const std::string& allowed : job.allowed_gpu_types)
    if (to_lower(allowed) == name) return true;
  return false;
}

TypeConstrainedModel::TypeConstrainedModel(std::unique_ptr<ThroughputModel> base, const Cluster& cluster)
    : base_(std::move(base)), cluster_(cluster) {
  if (!base_) throw std::invalid_argument("TypeConstrainedModel: null base model");
}

bool TypeConstrainedModel::all_allowed(const JobSpec& job, const Cluster& cluster,
                                       std::span<const GpuId> gpus) const {
  if (job.allowed_gpu_types.empty()) return true;
  for (GpuId g : gpus)
    if (!type_allowed(job, cluster, cluster.type_of(g))) return false;
  return true;
}

double TypeConstrainedModel::rate(const JobSpec& job, const AllocationShape& shape) const {
  return type_allowed(job, cluster_, shape.gpu_type) ? base_->rate(job, shape) : 0.0;
}

double TypeConstrainedModel::rate_on(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const {
  return all_allowed(job, cluster, gpus) ? base_->rate_on(job, cluster, gpus) : 0.0;
}

double TypeConstrainedModel::rate_at(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                     int batch_size, double done) const {
  return all_allowed(job, cluster, gpus) ? base_->rate_at(job, cluster, gpus, batch_size, done) : 0.0;
}

std::optional<std::string> TypeConstrainedModel::check_job(const JobSpec& job, const Cluster& cluster) const {
  if (!job.allowed_gpu_types.empty()) {
    bool any = false;
    for (std::size_t t = 0; t < cluster.gpu_types().size() && !any; ++t)
      any = type_allowed(job, cluster, static_cast<GpuTypeId>(t));
    if (!any)
      return fmt::format("job {} may only run on GPU types {} (its gpu_spec), none of which is in cluster {}", job.id,
                         fmt::join(job.allowed_gpu_types, "|"), cluster.name());
  }
  return base_->check_job(job, cluster);
}

}  // namespace hetsim
