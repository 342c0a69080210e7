#include "hetsim/cluster/cluster_state.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace hetsim {

ClusterState::ClusterState(const Cluster& cluster)
    : cluster_(&cluster),
      owner_(static_cast<std::size_t>(cluster.total_gpus()), kFree),
      free_node_(cluster.nodes().size()),
      free_type_(cluster.gpu_types().size(), 0),
      free_total_(cluster.total_gpus()),
      nodes_with_free_(cluster.gpu_types().size()),
      nodes_by_free_(cluster.gpu_types().size()) {
  for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
    const Node& node = cluster.nodes()[n];
    const auto t = static_cast<std::size_t>(node.gpu_type);
    free_node_[n] = node.gpu_count;
    free_type_[t] += node.gpu_count;
    if (node.gpu_count > 0) {
      nodes_with_free_[t].insert(static_cast<NodeId>(n));
      nodes_by_free_[t].emplace(node.gpu_count, static_cast<NodeId>(n));
    }
  }
}

void ClusterState::change_free(NodeId node, int delta) {
  const auto n = static_cast<std::size_t>(node);
  const auto t = static_cast<std::size_t>(cluster_->nodes()[n].gpu_type);
  int& free = free_node_[n];
  if (free > 0) nodes_by_free_[t].erase({free, node});
  free += delta;
  free_type_[t] += delta;
  free_total_ += delta;
  if (free > 0) {
    nodes_by_free_[t].emplace(free, node);
    nodes_with_free_[t].insert(node);
  } else {
    nodes_with_free_[t].erase(node);
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
    change_free(cluster_->node_of(g), -1);
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
    change_free(cluster_->node_of(g), +1);
  }
}

}  // namespace hetsim
