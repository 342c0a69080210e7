#include "node_pool.hpp"

#include <algorithm>

namespace hetsim::policy_detail {

NodePool::NodePool(const ClusterState& state) : cluster_(state.cluster()), free_(state.cluster().nodes().size()) {
  for (GpuId g = 0; g < cluster_.total_gpus(); ++g)
    if (state.owner(g) == ClusterState::kFree) free_[static_cast<std::size_t>(cluster_.node_of(g))].push_back(g);
}

void NodePool::release(std::span<const GpuId> gpus) {
  for (GpuId g : gpus) {
    auto& v = free_[static_cast<std::size_t>(cluster_.node_of(g))];
    v.insert(std::lower_bound(v.begin(), v.end(), g), g);
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
  int n = 0;
  for (std::size_t i = 0; i < free_.size(); ++i)
    if (cluster_.nodes()[i].gpu_type == type) n += static_cast<int>(free_[i].size());
  return n;
}

std::vector<GpuId> NodePool::take_most_free(GpuTypeId type, int count) {
  if (count <= 0 || free_of_type(type) < count) return {};
  std::vector<GpuId> out;
  while (static_cast<int>(out.size()) < count) {
    std::size_t best = free_.size();
    for (std::size_t i = 0; i < free_.size(); ++i) {
      if (cluster_.nodes()[i].gpu_type != type || free_[i].empty()) continue;
      if (best == free_.size() || free_[i].size() > free_[best].size()) best = i;
    }
    auto& v = free_[best];
    auto take = std::min<std::size_t>(v.size(), static_cast<std::size_t>(count) - out.size());
    out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
  }
  return out;
}

std::vector<GpuId> NodePool::take_packed(GpuTypeId type, int count) {
  if (count <= 0 || free_of_type(type) < count) return {};
  std::vector<GpuId> out;
  while (static_cast<int>(out.size()) < count) {
    const std::size_t need = static_cast<std::size_t>(count) - out.size();
    std::size_t fit = free_.size(), most = free_.size();
    for (std::size_t i = 0; i < free_.size(); ++i) {
      if (cluster_.nodes()[i].gpu_type != type || free_[i].empty()) continue;
      if (free_[i].size() >= need && (fit == free_.size() || free_[i].size() < free_[fit].size())) fit = i;
      if (most == free_.size() || free_[i].size() > free_[most].size()) most = i;
    }
    auto& v = free_[fit != free_.size() ? fit : most];
    auto take = std::min(v.size(), need);
    out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
  }
  return out;
}

}  // namespace hetsim::policy_detail
