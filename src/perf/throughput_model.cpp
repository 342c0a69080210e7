#include "hetsim/perf/throughput_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
  while (seconds > 0.0 && done < job.work) {
    double r = rate_at(job, cluster, gpus, batch_size, done);
    if (!(r > 0.0)) break;
    double bp = std::min(next_rate_change(job, done), job.work);
    double need = (bp - done) / r;
    if (need <= seconds) {
      done = bp;
      seconds -= need;
    } else {
      done += r * seconds;
      seconds = 0.0;
    }
  }
  return done;
}

double ThroughputModel::time_to_finish_s(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                         int batch_size, double done) const {
  double seconds = 0.0;
  while (done < job.work) {
    double r = rate_at(job, cluster, gpus, batch_size, done);
    if (!(r > 0.0)) return std::numeric_limits<double>::infinity();
    double bp = std::min(next_rate_change(job, done), job.work);
    seconds += (bp - done) / r;
    done = bp;
  }
  return seconds;
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
