#include "node_pool.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

namespace hetsim::policy_detail {

namespace {
// Whether `a` beats `b` when more free GPUs win (ties: lower node index).
bool more_free(std::size_t free, NodeId node, const auto& best) {
  return best.node < 0 || free > best.free || (free == best.free && node < best.node);
}
}  // namespace

NodePool::NodePool(const ClusterState& state) : state_(state), cluster_(state.cluster()) {
  free_type_.resize(cluster_.gpu_types().size());
  for (std::size_t t = 0; t < free_type_.size(); ++t) free_type_[t] = state.free_of_type(static_cast<GpuTypeId>(t));
}

std::vector<GpuId>& NodePool::touch(NodeId node) {
  auto [it, inserted] = touched_.try_emplace(node);
  if (inserted) {
    const Node& n = cluster_.nodes()[static_cast<std::size_t>(node)];
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g)
      if (state_.owner(g) == ClusterState::kFree) it->second.push_back(g);
  }
  return it->second;
}

void NodePool::release(std::span<const GpuId> gpus) {
  for (GpuId g : gpus) {
    auto& v = touch(cluster_.node_of(g));
    v.insert(std::lower_bound(v.begin(), v.end(), g), g);
    ++free_type_[static_cast<std::size_t>(cluster_.type_of(g))];
  }
}

std::vector<char> NodePool::keep_or_release(const PolicyView& ctx, std::span<const JobIndex> jobs,
                                            std::span<const GpuTypeId> types, std::span<const int> replicas,
                                            std::vector<JobIndex>& preempt) {
  std::vector<char> keep(jobs.size(), 0);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobRuntime& job = ctx.job(jobs[i]);
    if (job.status != JobStatus::Running) continue;
    keep[i] = static_cast<int>(job.gpus.size()) == replicas[i] && job.gpu_type == types[i];
    if (keep[i]) continue;
    release(job.gpus);
    if (replicas[i] == 0) preempt.push_back(jobs[i]);
  }
  return keep;
}

int NodePool::free_of_type(GpuTypeId type) const {
  if (type < 0 || static_cast<std::size_t>(type) >= free_type_.size()) return 0;
  return free_type_[static_cast<std::size_t>(type)];
}

NodePool::Candidate NodePool::most_free(GpuTypeId type) const {
  Candidate best;
  // Untouched nodes: the state's index by (free, node), from the most-free group down; within a
  // group the first untouched node has the lowest index.
  const auto& index = state_.nodes_by_free(type);
  for (auto group = index.rbegin(); group != index.rend() && best.node < 0;) {
    auto first = index.lower_bound({group->first, std::numeric_limits<NodeId>::min()});
    for (auto it = first; it != index.end() && it->first == group->first; ++it)
      if (!touched_.contains(it->second)) {
        best = {static_cast<std::size_t>(it->first), it->second};
        break;
      }
    group = std::make_reverse_iterator(first);
  }
  for (const auto& [node, gpus] : touched_)
    if (cluster_.nodes()[static_cast<std::size_t>(node)].gpu_type == type && !gpus.empty() &&
        more_free(gpus.size(), node, best))
      best = {gpus.size(), node};
  return best;
}

NodePool::Candidate NodePool::fullest_fit(GpuTypeId type, std::size_t need) const {
  Candidate best;
  const auto& index = state_.nodes_by_free(type);
  for (auto it = index.lower_bound({static_cast<int>(need), std::numeric_limits<NodeId>::min()}); it != index.end(); ++it)
    if (!touched_.contains(it->second)) {
      best = {static_cast<std::size_t>(it->first), it->second};
      break;
    }
  for (const auto& [node, gpus] : touched_) {
    if (cluster_.nodes()[static_cast<std::size_t>(node)].gpu_type != type || gpus.size() < need) continue;
    if (best.node < 0 || gpus.size() < best.free || (gpus.size() == best.free && node < best.node))
      best = {gpus.size(), node};
  }
  return best;
}

void NodePool::take_from(NodeId node, std::size_t need, std::vector<GpuId>& out) {
  auto& v = touch(node);
  const auto take = std::min(v.size(), need);
  out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
  free_type_[static_cast<std::size_t>(cluster_.nodes()[static_cast<std::size_t>(node)].gpu_type)] -= static_cast<int>(take);
}

std::vector<GpuId> NodePool::take_most_free(GpuTypeId type, int count) {
  if (count <= 0 || free_of_type(type) < count) return {};
  std::vector<GpuId> out;
  while (static_cast<int>(out.size()) < count)
    take_from(most_free(type).node, static_cast<std::size_t>(count) - out.size(), out);
  return out;
}

std::vector<GpuId> NodePool::take_packed(GpuTypeId type, int count) {
  if (count <= 0 || free_of_type(type) < count) return {};
  std::vector<GpuId> out;
  while (static_cast<int>(out.size()) < count) {
    const std::size_t need = static_cast<std::size_t>(count) - out.size();
    Candidate fit = fullest_fit(type, need);
    take_from(fit.node >= 0 ? fit.node : most_free(type).node, need, out);
  }
  return out;
}

}  // namespace hetsim::policy_detail
