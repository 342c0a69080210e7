#include "hetsim/perf/throughput_model.hpp"

#include <algorithm>

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

}  // namespace hetsim
