#include "hetsim/sched/gavel_placement.hpp"

#include <algorithm>

namespace hetsim {
namespace {

// One type's servers as GPU lists, in cluster order.
std::vector<std::vector<GpuId>> servers_of_type(const Cluster& cluster, std::size_t type) {
  std::vector<std::vector<GpuId>> servers;
  for (const Node& node : cluster.nodes()) {
    if (static_cast<std::size_t>(node.gpu_type) != type) continue;
    std::vector<GpuId> gpus;
    for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) gpus.push_back(g);
    servers.push_back(std::move(gpus));
  }
  return servers;
}

// Places one type's chosen jobs into `next` (see gavel_place_round).
void place_type(const Cluster& cluster, std::size_t type, RoundChoice& list,
                const std::map<JobIndex, std::vector<GpuId>>& previous,
                const std::map<JobIndex, std::vector<double>>& allocation, std::map<JobIndex, std::vector<GpuId>>& next) {
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::vector<GpuId>> servers = servers_of_type(cluster, type);
  std::vector<std::size_t> front(servers.size(), 0);
  std::vector<char> assigned(static_cast<std::size_t>(cluster.total_gpus()), 0);
  std::size_t ptr = 0;
  std::vector<int> sizes;
  for (const auto& [j, sf] : list)
    if (std::find(sizes.begin(), sizes.end(), sf) == sizes.end()) sizes.push_back(sf);
  for (int size : sizes) {
    for (const auto& [j, sf] : list) {
      if (sf != size) continue;
      auto prev = previous.find(j);
      if (prev == previous.end() || static_cast<std::size_t>(cluster.type_of(prev->second.front())) != type) continue;
      const bool free = std::none_of(prev->second.begin(), prev->second.end(),
                                     [&](GpuId g) { return assigned[static_cast<std::size_t>(g)] != 0; });
      if (!free) continue;
      next[j] = prev->second;
      for (GpuId g : prev->second) assigned[static_cast<std::size_t>(g)] = 1;
    }
    for (const auto& [j, sf] : list) {
      if (sf != size || !allocation.count(j)) continue;
      std::vector<GpuId>& gpus = next[j];
      while (static_cast<int>(gpus.size()) < sf && ptr < servers.size()) {
        if (front[ptr] >= servers[ptr].size()) {
          ++ptr;
          continue;
        }
        GpuId g = servers[ptr][front[ptr]++];
        if (!assigned[static_cast<std::size_t>(g)]) {
          gpus.push_back(g);
          assigned[static_cast<std::size_t>(g)] = 1;
        }
      }
      if (static_cast<int>(gpus.size()) != sf) next.erase(j);  // cannot happen when counts fit; never half-place
    }
  }
}

}  // namespace

std::map<JobIndex, std::vector<GpuId>> gavel_place_round(const Cluster& cluster,
                                                          const std::vector<std::size_t>& type_order,
                                                          std::vector<RoundChoice> chosen,
                                                          const std::map<JobIndex, std::vector<GpuId>>& previous,
                                                          const std::map<JobIndex, std::vector<double>>& allocation) {
  std::map<JobIndex, std::vector<GpuId>> next;
  for (std::size_t t : type_order) place_type(cluster, t, chosen[t], previous, allocation, next);
  return next;
}

}  // namespace hetsim
