#include "hetsim/cluster/cluster_state.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace hetsim {
namespace {

// Calls `per_node(node, count)` once per run of consecutive GPUs on the same node (an allocation
// lists a node's GPUs together), so assign and release move a node's free count once per node, not
// once per GPU; the indexes end in the same state either way.
template <class PerNode>
void for_node_runs(const Cluster& cluster, std::span<const GpuId> gpus, PerNode&& per_node) {
  for (std::size_t i = 0; i < gpus.size();) {
    const NodeId node = cluster.node_of(gpus[i]);
    std::size_t j = i + 1;
    while (j < gpus.size() && cluster.node_of(gpus[j]) == node) ++j;
    per_node(node, static_cast<int>(j - i));
    i = j;
  }
}

}  // namespace

ClusterState::ClusterState(const Cluster& cluster)
    : cluster_(&cluster),
      owner_(static_cast<std::size_t>(cluster.total_gpus()), kFree),
      free_node_(cluster.nodes().size()),
      free_type_(cluster.gpu_types().size(), 0),
      free_total_(cluster.total_gpus()),
      nodes_with_free_(cluster.gpu_types().size()),
      nodes_by_free_(cluster.gpu_types().size()),
      shared_milli_(static_cast<std::size_t>(cluster.total_gpus()), 0),
      sharers_(static_cast<std::size_t>(cluster.total_gpus())),
      shared_by_room_(cluster.gpu_types().size()) {
  for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
    const Node& node = cluster.nodes()[n];
    const auto t = static_cast<std::size_t>(node.gpu_type);
    free_node_[n] = node.gpu_count;
    free_type_[t] += node.gpu_count;
  }
}

void ClusterState::build_node_indexes() const {
  for (std::size_t n = 0; n < free_node_.size(); ++n) {
    if (free_node_[n] <= 0) continue;
    const auto t = static_cast<std::size_t>(cluster_->nodes()[n].gpu_type);
    nodes_with_free_[t].insert(static_cast<NodeId>(n));
    nodes_by_free_[t].emplace(free_node_[n], static_cast<NodeId>(n));
  }
  indexed_ = true;
}

void ClusterState::change_free(NodeId node, int delta) {
  const auto n = static_cast<std::size_t>(node);
  const auto t = static_cast<std::size_t>(cluster_->nodes()[n].gpu_type);
  int& free = free_node_[n];
  const int before = free;
  free += delta;
  free_type_[t] += delta;
  free_total_ += delta;
  if (!indexed_) return;
  auto& by_free = nodes_by_free_[t];
  if (before > 0 && free > 0) {
    // The node keeps room: re-key its entry in place (a node handle, so no allocation per change;
    // this runs for every GPU a round mechanism starts or stops).
    auto entry = by_free.extract({before, node});
    entry.value().first = free;
    by_free.insert(std::move(entry));
  } else if (before > 0) {
    by_free.erase({before, node});
    nodes_with_free_[t].erase(node);
  } else if (free > 0) {
    by_free.emplace(free, node);
    nodes_with_free_[t].insert(node);
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
  for (GpuId g : gpus) owner_[static_cast<std::size_t>(g)] = job;
  for_node_runs(*cluster_, gpus, [&](NodeId node, int count) { change_free(node, -count); });
}

void ClusterState::release(std::int64_t job, std::span<const GpuId> gpus) {
  for (GpuId g : gpus) {
    if (g < 0 || g >= cluster_->total_gpus()) throw std::logic_error(fmt::format("GPU {} out of range", g));
    if (owner_[static_cast<std::size_t>(g)] != job)
      throw std::logic_error(fmt::format("job {} releases GPU {} it does not hold", job, g));
  }
  for (GpuId g : gpus) owner_[static_cast<std::size_t>(g)] = kFree;
  for_node_runs(*cluster_, gpus, [&](NodeId node, int count) { change_free(node, count); });
}

void ClusterState::change_share(GpuId gpu, int delta) {
  const auto g = static_cast<std::size_t>(gpu);
  auto& by_room = shared_by_room_[static_cast<std::size_t>(cluster_->type_of(gpu))];
  int& used = shared_milli_[g];
  if (used > 0 && used < kWholeMilli) by_room.erase({kWholeMilli - used, gpu});
  used += delta;
  shared_milli_total_ += delta;
  if (used > 0 && used < kWholeMilli) by_room.emplace(kWholeMilli - used, gpu);
}

void ClusterState::assign_share(std::int64_t job, GpuId gpu, int milli) {
  if (gpu < 0 || gpu >= cluster_->total_gpus()) throw std::logic_error(fmt::format("GPU {} out of range", gpu));
  if (milli <= 0 || milli >= kWholeMilli)
    throw std::logic_error(fmt::format("job {}: a share of {} thousandths of a GPU", job, milli));
  const auto g = static_cast<std::size_t>(gpu);
  const std::int64_t owner = owner_[g];
  if (owner != kFree && owner != kShared)
    throw std::logic_error(fmt::format("GPU {} shared with job {} but held whole by job {}", gpu, job, owner));
  if (shared_milli_[g] + milli > kWholeMilli)
    throw std::logic_error(fmt::format("GPU {}: job {}'s {} thousandths on top of {} exceed one GPU", gpu, job, milli,
                                       shared_milli_[g]));
  if (std::find(sharers_[g].begin(), sharers_[g].end(), job) != sharers_[g].end())
    throw std::logic_error(fmt::format("job {} shares GPU {} twice", job, gpu));
  if (owner == kFree) {
    owner_[g] = kShared;
    change_free(cluster_->node_of(gpu), -1);
    ++shared_gpus_;
  }
  sharers_[g].push_back(job);
  change_share(gpu, milli);
}

void ClusterState::release_share(std::int64_t job, GpuId gpu, int milli) {
  if (gpu < 0 || gpu >= cluster_->total_gpus()) throw std::logic_error(fmt::format("GPU {} out of range", gpu));
  const auto g = static_cast<std::size_t>(gpu);
  auto it = std::find(sharers_[g].begin(), sharers_[g].end(), job);
  if (owner_[g] != kShared || it == sharers_[g].end() || shared_milli_[g] < milli)
    throw std::logic_error(fmt::format("job {} releases a share of GPU {} it does not hold", job, gpu));
  sharers_[g].erase(it);
  change_share(gpu, -milli);
  if (sharers_[g].empty()) {
    owner_[g] = kFree;
    change_free(cluster_->node_of(gpu), +1);
    --shared_gpus_;
  }
}

GpuId ClusterState::best_shared_gpu(GpuTypeId type, int milli) const {
  const auto& by_room = shared_by_room_[static_cast<std::size_t>(type)];
  auto it = by_room.lower_bound({milli, GpuId{-1}});
  return it == by_room.end() ? GpuId{-1} : it->second;
}

}  // namespace hetsim
