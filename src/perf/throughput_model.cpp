#include "hetsim/perf/throughput_model.hpp"

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

}  // namespace hetsim
