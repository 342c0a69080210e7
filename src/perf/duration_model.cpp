#include <algorithm>
#include <fmt/format.h>

#include "hetsim/perf/profile_tables.hpp"

namespace hetsim {

DurationModel::DurationModel(const Cluster& cluster) {
  speed_.reserve(cluster.gpu_types().size());
  for (const GpuType& t : cluster.gpu_types()) speed_.push_back(t.relative_speed);
}

double DurationModel::rate(const JobSpec& job, const AllocationShape& shape) const {
  if (shape.gpu_count <= 0 || job.requested_gpus <= 0) return 0.0;
  if (shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= speed_.size()) return 0.0;
  // The trace only says how long the job ran on its requested count, so extra GPUs cannot be
  // credited with any speed-up; fewer GPUs slow it down proportionally.
  const int used = std::min(shape.gpu_count, job.requested_gpus);
  return speed_[static_cast<std::size_t>(shape.gpu_type)] * static_cast<double>(used) /
         static_cast<double>(job.requested_gpus);
}

std::optional<std::string> DurationModel::check_job(const JobSpec& job, const Cluster& /*cluster*/) const {
  if (job.unit != WorkUnit::ReferenceSeconds)
    return fmt::format("job {} has work in {}; a duration-only run needs --throughputs for it", job.id,
                       to_string(job.unit));
  return std::nullopt;
}

}  // namespace hetsim
