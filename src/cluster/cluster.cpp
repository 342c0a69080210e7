#include "hetsim/cluster/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

const char* to_string(InterconnectKind kind) {
  switch (kind) {
    case InterconnectKind::NvSwitch: return "nvswitch";
    case InterconnectKind::NvLink: return "nvlink";
    case InterconnectKind::Pcie: return "pcie";
  }
  return "pcie";
}

std::optional<InterconnectKind> parse_interconnect_kind(std::string_view text) {
  const std::string lower = to_lower(std::string(text));
  if (lower == "nvswitch") return InterconnectKind::NvSwitch;
  if (lower == "nvlink") return InterconnectKind::NvLink;
  if (lower == "pcie") return InterconnectKind::Pcie;
  return std::nullopt;
}

double default_interconnect_gbytes_per_s(InterconnectKind kind) {
  switch (kind) {
    case InterconnectKind::NvSwitch: return 300.0;
    case InterconnectKind::NvLink: return 150.0;
    case InterconnectKind::Pcie: return 12.0;
  }
  return 12.0;
}

double default_interconnect_latency_us(InterconnectKind kind) {
  return kind == InterconnectKind::Pcie ? 5.0 : 2.0;
}

bool is_valid_gpu_type_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {
bool positive(double v) { return v > 0.0 && std::isfinite(v); }
bool non_negative(double v) { return v >= 0.0 && std::isfinite(v); }
}  // namespace

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
    if (!is_valid_gpu_type_name(t.name))
      throw InputError(source, 0, fmt::format("gpu_types[{}].name", i),
                       fmt::format("GPU type name '{}' has a character outside the allowed set: {}", t.name,
                                   kGpuTypeNameRule));
    if (!seen.insert(t.name).second)
      throw InputError(source, 0, fmt::format("gpu_types[{}].name", i), "duplicate GPU type '" + t.name + "'");
    if (!(t.relative_speed > 0.0) || !std::isfinite(t.relative_speed))
      throw InputError(source, 0, fmt::format("gpu_types[{}].relative_speed", i), "must be a positive number");
    if (t.memory_gb < 0.0) throw InputError(source, 0, fmt::format("gpu_types[{}].memory_gb", i), "must not be negative");
  }
  long long total = 0;
  for (const Node& n : nodes_) total += std::max(0, n.gpu_count);
  if (total > kMaxClusterGpus)
    throw InputError(source, 0, "nodes",
                     fmt::format("{} GPUs in all; hetsim models at most {} GPUs per cluster", total, kMaxClusterGpus));
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
    if (!positive(n.interconnect_gbytes_per_s))
      throw InputError(source, 0, where + ".interconnect.gbytes_per_s",
                       fmt::format("bandwidth must be a positive number of GB/s, got {}", n.interconnect_gbytes_per_s));
    if (!non_negative(n.interconnect_latency_us))
      throw InputError(source, 0, where + ".interconnect.latency_us", "latency must not be negative");
    if (!positive(n.nic_gbps))
      throw InputError(source, 0, where + ".nic_gbps",
                       fmt::format("bandwidth must be a positive number of Gbit/s, got {}", n.nic_gbps));
    if (!non_negative(n.nic_latency_us)) throw InputError(source, 0, where + ".nic_latency_us", "latency must not be negative");
    n.first_gpu = next;
    next += n.gpu_count;
    for (int g = 0; g < n.gpu_count; ++g) gpu_node_.push_back(static_cast<NodeId>(i));
    gpus_by_type_[static_cast<std::size_t>(n.gpu_type)] += n.gpu_count;
    auto& m = max_per_node_[static_cast<std::size_t>(n.gpu_type)];
    m = std::max(m, n.gpu_count);
    nodes_per_rack[static_cast<std::size_t>(n.rack)]++;
  }
  std::vector<double> nic_sum(racks_.size(), 0.0);
  for (const Node& n : nodes_) nic_sum[static_cast<std::size_t>(n.rack)] += n.nic_gbps;
  for (std::size_t r = 0; r < racks_.size(); ++r) {
    Rack& rack = racks_[r];
    const std::string where = fmt::format("racks[{}]", r);
    if (nodes_per_rack[r] == 0) throw InputError(source, 0, where, "rack '" + rack.name + "' has no nodes");
    if (rack.uplink_gbps) {
      if (!positive(*rack.uplink_gbps))
        throw InputError(source, 0, where + ".uplink_gbps",
                         fmt::format("bandwidth must be a positive number of Gbit/s, got {}", *rack.uplink_gbps));
    } else {
      if (!positive(rack.oversubscription))
        throw InputError(source, 0, where + ".oversubscription",
                         fmt::format("must be a positive ratio, got {}", rack.oversubscription));
      rack.uplink_gbps = nic_sum[r] / rack.oversubscription;
    }
    // Keep the ratio true for an explicit uplink too, so summaries can print it.
    rack.oversubscription = nic_sum[r] / *rack.uplink_gbps;
    if (!non_negative(rack.uplink_latency_us))
      throw InputError(source, 0, where + ".uplink_latency_us", "latency must not be negative");
  }
}

std::optional<GpuTypeId> Cluster::find_gpu_type(const std::string& name) const {
  std::string lower = to_lower(name);
  for (std::size_t i = 0; i < gpu_types_.size(); ++i)
    if (gpu_types_[i].name == lower) return static_cast<GpuTypeId>(i);
  return std::nullopt;
}

}  // namespace hetsim
