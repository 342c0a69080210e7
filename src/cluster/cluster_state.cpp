#include "hetsim/cluster/cluster_state.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace hetsim {

ClusterState::ClusterState(const Cluster& cluster)
    : cluster_(&cluster),
      owner_(static_cast<std::size_t>(cluster.total_gpus()), kFree),
      free_node_(cluster.nodes().size()),
      free_type_(cluster.gpu_types().size(), 0),
      free_total_(cluster.total_gpus()) {
  for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
    free_node_[n] = cluster.nodes()[n].gpu_count;
    free_type_[static_cast<std::size_t>(cluster.nodes()[n].gpu_type)] += cluster.nodes()[n].gpu_count;
  }
}

void ClusterState::assign(std::int64_t job, std::span<const GpuId> gpus) {
  // Check everything first so a failed call changes nothing.
  for (GpuId g : gpus) {
    if (g < 0 || g >= cluster_->total_gpus()) throw std::logic_error(fmt::format("GPU {} out of range", g));
    if (owner_[static_cast<std::size_t>(g)] != kFree)
      throw std::logic_error(fmt::format("GPU {} given to job {} but held by job {}", g, job, owner_[static_cast<std::size_t>(g)]));
  }
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j)
      if (gpus[i] == gpus[j]) throw std::logic_error(fmt::format("GPU {} listed twice for job {}", gpus[i], job));
  for (GpuId g : gpus) {
    owner_[static_cast<std::size_t>(g)] = job;
    NodeId n = cluster_->node_of(g);
    --free_node_[static_cast<std::size_t>(n)];
    --free_type_[static_cast<std::size_t>(cluster_->nodes()[static_cast<std::size_t>(n)].gpu_type)];
    --free_total_;
  }
}

void ClusterState::release(std::int64_t job, std::span<const GpuId> gpus) {
  for (GpuId g : gpus) {
    if (g < 0 || g >= cluster_->total_gpus()) throw std::logic_error(fmt::format("GPU {} out of range", g));
    if (owner_[static_cast<std::size_t>(g)] != job)
      throw std::logic_error(fmt::format("job {} releases GPU {} it does not hold", job, g));
  }
  for (GpuId g : gpus) {
    owner_[static_cast<std::size_t>(g)] = kFree;
    NodeId n = cluster_->node_of(g);
    ++free_node_[static_cast<std::size_t>(n)];
    ++free_type_[static_cast<std::size_t>(cluster_->nodes()[static_cast<std::size_t>(n)].gpu_type)];
    ++free_total_;
  }
}

}  // namespace hetsim
