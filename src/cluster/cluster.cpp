#include "hetsim/cluster/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

Cluster::Cluster(std::string name, std::vector<GpuType> gpu_types, std::vector<Rack> racks,
                 std::vector<Node> nodes, const std::string& source)
    : name_(std::move(name)), gpu_types_(std::move(gpu_types)), racks_(std::move(racks)), nodes_(std::move(nodes)) {
  if (gpu_types_.empty()) throw InputError(source, 0, "gpu_types", "a cluster needs at least one GPU type");
  if (racks_.empty()) throw InputError(source, 0, "racks", "a cluster needs at least one rack");
  if (nodes_.empty()) throw InputError(source, 0, "nodes", "a cluster needs at least one node");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < gpu_types_.size(); ++i) {
    auto& t = gpu_types_[i];
    t.name = to_lower(t.name);
    if (t.name.empty()) throw InputError(source, 0, fmt::format("gpu_types[{}].name", i), "must not be empty");
    if (!seen.insert(t.name).second)
      throw InputError(source, 0, fmt::format("gpu_types[{}].name", i), "duplicate GPU type '" + t.name + "'");
    if (!(t.relative_speed > 0.0) || !std::isfinite(t.relative_speed))
      throw InputError(source, 0, fmt::format("gpu_types[{}].relative_speed", i), "must be a positive number");
    if (t.memory_gb < 0.0) throw InputError(source, 0, fmt::format("gpu_types[{}].memory_gb", i), "must not be negative");
  }
  std::vector<int> nodes_per_rack(racks_.size(), 0);
  seen.clear();
  gpus_by_type_.assign(gpu_types_.size(), 0);
  max_per_node_.assign(gpu_types_.size(), 0);
  GpuId next = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = nodes_[i];
    const std::string where = fmt::format("nodes[{}]", i);
    if (n.gpu_type < 0 || static_cast<std::size_t>(n.gpu_type) >= gpu_types_.size())
      throw InputError(source, 0, where + ".gpu_type", "unknown GPU type");
    if (n.rack < 0 || static_cast<std::size_t>(n.rack) >= racks_.size())
      throw InputError(source, 0, where + ".rack", "unknown rack");
    if (n.gpu_count <= 0) throw InputError(source, 0, where + ".gpus", "a node needs at least one GPU");
    if (!seen.insert(n.name).second) throw InputError(source, 0, where + ".name", "duplicate node name '" + n.name + "'");
    n.first_gpu = next;
    next += n.gpu_count;
    for (int g = 0; g < n.gpu_count; ++g) gpu_node_.push_back(static_cast<NodeId>(i));
    gpus_by_type_[static_cast<std::size_t>(n.gpu_type)] += n.gpu_count;
    auto& m = max_per_node_[static_cast<std::size_t>(n.gpu_type)];
    m = std::max(m, n.gpu_count);
    nodes_per_rack[static_cast<std::size_t>(n.rack)]++;
  }
  for (std::size_t r = 0; r < racks_.size(); ++r) {
    if (nodes_per_rack[r] == 0)
      throw InputError(source, 0, fmt::format("racks[{}]", r), "rack '" + racks_[r].name + "' has no nodes");
  }
}

std::optional<GpuTypeId> Cluster::find_gpu_type(const std::string& name) const {
  std::string lower = to_lower(name);
  for (std::size_t i = 0; i < gpu_types_.size(); ++i)
    if (gpu_types_[i].name == lower) return static_cast<GpuTypeId>(i);
  return std::nullopt;
}

}  // namespace hetsim
