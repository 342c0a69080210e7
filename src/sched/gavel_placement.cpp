#include "hetsim/sched/gavel_placement.hpp"

#include <algorithm>

namespace hetsim {
namespace {
constexpr std::size_t kInsertionSortMax = 64;  // longer lists: std::stable_sort (quadratic cost bounded)
}  // namespace

GavelPlacement::GavelPlacement(const Cluster& cluster)
    : cluster_(cluster),
      servers_(cluster.gpu_types().size()),
      assigned_(static_cast<std::size_t>(cluster.total_gpus()), 0) {
  for (std::size_t n = 0; n < cluster.nodes().size(); ++n)
    servers_[static_cast<std::size_t>(cluster.nodes()[n].gpu_type)].push_back(static_cast<NodeId>(n));
}

std::vector<GpuId>& GavelPlacement::entry(JobIndex j) {
  const auto k = static_cast<std::size_t>(j);
  if (k >= entry_of_job_.size()) entry_of_job_.resize(k + 1, -1);
  if (entry_of_job_[k] < 0) {
    if (used_ == pool_.size()) pool_.emplace_back();
    pool_[used_].job = j;
    pool_[used_].gpus.clear();  // keeps its capacity from earlier rounds
    entry_of_job_[k] = static_cast<int>(used_++);
  }
  return pool_[static_cast<std::size_t>(entry_of_job_[k])].gpus;
}

void GavelPlacement::drop(JobIndex j) {
  int& e = entry_of_job_[static_cast<std::size_t>(j)];
  pool_[static_cast<std::size_t>(e)].job = -1;  // skipped when the result is listed
  e = -1;
}

const std::vector<GpuId>* GavelPlacement::find(JobIndex j) const {
  const auto k = static_cast<std::size_t>(j);
  if (k >= entry_of_job_.size() || entry_of_job_[k] < 0) return nullptr;
  return &pool_[static_cast<std::size_t>(entry_of_job_[k])].gpus;
}

const std::vector<const RoundPlacement*>& GavelPlacement::place(
    const std::vector<std::size_t>& type_order, std::vector<RoundChoice>& chosen,
    const std::vector<const std::vector<GpuId>*>& previous, const std::map<JobIndex, std::vector<double>>& allocation) {
  for (const RoundPlacement* p : result_) entry_of_job_[static_cast<std::size_t>(p->job)] = -1;
  used_ = 0;
  for (std::size_t t : type_order) place_type(t, chosen[t], previous, allocation);
  result_.clear();
  for (std::size_t e = 0; e < used_; ++e)
    if (pool_[e].job >= 0) result_.push_back(&pool_[e]);
  std::sort(result_.begin(), result_.end(), [](const RoundPlacement* a, const RoundPlacement* b) { return a->job < b->job; });
  return result_;
}

// One type's chosen jobs (see place()).
void GavelPlacement::place_type(std::size_t type, RoundChoice& list,
                                const std::vector<const std::vector<GpuId>*>& previous,
                                const std::map<JobIndex, std::vector<double>>& allocation) {
  // Stable by GPU count, descending. A round's list on one type is short (at most its GPUs): an
  // insertion sort, which moves an entry only past strictly smaller counts (so equal counts keep
  // their order, as std::stable_sort's), spares the buffer std::stable_sort allocates every call.
  if (list.size() <= kInsertionSortMax) {
    for (std::size_t i = 1; i < list.size(); ++i) {
      const auto entry = list[i];
      std::size_t k = i;
      for (; k > 0 && list[k - 1].second < entry.second; --k) list[k] = list[k - 1];
      list[k] = entry;
    }
  } else {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  const std::vector<NodeId>& servers = servers_[type];
  front_.assign(servers.size(), 0);
  std::size_t ptr = 0;
  // Sorted by count, so each count's jobs are one run of the list, in the order the count first
  // appears (largest first): the same visiting order as a pass over the whole list per count,
  // without scanning the other counts' entries (gavel5).
  for (auto run_begin = list.begin(); run_begin != list.end();) {
    const int size = run_begin->second;
    auto run_end = run_begin;
    while (run_end != list.end() && run_end->second == size) ++run_end;
    for (auto it = run_begin; it != run_end; ++it) {
      const JobIndex j = it->first;
      const auto k = static_cast<std::size_t>(j);
      const std::vector<GpuId>* prev = k < previous.size() ? previous[k] : nullptr;
      if (prev == nullptr || static_cast<std::size_t>(cluster_.type_of(prev->front())) != type) continue;
      const bool free =
          std::none_of(prev->begin(), prev->end(), [&](GpuId g) { return assigned_[static_cast<std::size_t>(g)] != 0; });
      if (!free) continue;
      entry(j) = *prev;
      for (GpuId g : *prev) {
        assigned_[static_cast<std::size_t>(g)] = 1;
        marked_.push_back(g);
      }
    }
    for (auto it = run_begin; it != run_end; ++it) {
      const auto [j, sf] = *it;
      // A job that kept all its GPUs above needs nothing more, whether or not it has a row of X:
      // spared the map look-up (issue 19: most of a round's jobs stay where they are).
      if (const std::vector<GpuId>* kept = find(j); kept != nullptr && static_cast<int>(kept->size()) == sf) continue;
      if (!allocation.count(j)) continue;
      std::vector<GpuId>& gpus = entry(j);
      while (static_cast<int>(gpus.size()) < sf && ptr < servers.size()) {
        const Node& node = cluster_.nodes()[static_cast<std::size_t>(servers[ptr])];
        if (front_[ptr] >= static_cast<std::size_t>(node.gpu_count)) {
          ++ptr;
          continue;
        }
        const GpuId g = node.first_gpu + static_cast<GpuId>(front_[ptr]++);
        if (!assigned_[static_cast<std::size_t>(g)]) {
          gpus.push_back(g);
          assigned_[static_cast<std::size_t>(g)] = 1;
          marked_.push_back(g);
        }
      }
      if (static_cast<int>(gpus.size()) != sf) drop(j);  // cannot happen when counts fit; never half-place
    }
    run_begin = run_end;
  }
  for (GpuId g : marked_) assigned_[static_cast<std::size_t>(g)] = 0;
  marked_.clear();
}

}  // namespace hetsim
