#include "hetsim/perf/throughput_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "progress_walk.hpp"

namespace hetsim {

AllocationShape shape_of(const Cluster& cluster, std::span<const GpuId> gpus) {
  AllocationShape s;
  s.gpu_count = static_cast<int>(gpus.size());
  if (gpus.empty()) return s;
  s.gpu_type = cluster.type_of(gpus.front());
  NodeId first = cluster.node_of(gpus.front());
  for (GpuId g : gpus) {
    if (cluster.node_of(g) != first) {
      s.consolidated = false;
      break;
    }
  }
  return s;
}

double ThroughputModel::rate_on(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const {
  AllocationShape shape = shape_of(cluster, gpus);
  double slowest = rate(job, shape);
  for (GpuId g : gpus) {
    if (cluster.type_of(g) == shape.gpu_type) continue;
    // Mixed types: the rate is per-type-uniform in table models, so the minimum over the types
    // present is the slowest worker's pace.
    slowest = std::min(slowest, rate(job, AllocationShape{cluster.type_of(g), shape.gpu_count, false}));
  }
  return slowest;
}

double ThroughputModel::integrate_progress(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                           int batch_size, double done, double seconds) const {
  return perf_detail::walk_progress(
      job.work, done, seconds, [&](double d) { return rate_at(job, cluster, gpus, batch_size, d); },
      [&](double d) { return next_rate_change(job, d); });
}

double ThroughputModel::time_to_finish_s(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                         int batch_size, double done) const {
  return perf_detail::walk_to_finish(
      job.work, done, [&](double d) { return rate_at(job, cluster, gpus, batch_size, d); },
      [&](double d) { return next_rate_change(job, d); });
}

double progress_after(const ThroughputModel& model, const JobSpec& job, const Cluster& cluster,
                      std::span<const GpuId> gpus, int batch_size, double done, double seconds) {
  return model.integrate_progress(job, cluster, gpus, batch_size, done, seconds);
}

double seconds_to_finish(const ThroughputModel& model, const JobSpec& job, const Cluster& cluster,
                         std::span<const GpuId> gpus, int batch_size, double done) {
  return model.time_to_finish_s(job, cluster, gpus, batch_size, done);
}

}  // namespace hetsim
