// Built-in clusters, so common runs need no spec file. Each mirrors the cluster of a paper's
// experiments; GPU type names are lower-case to match the throughput tables' keys.
#include <fmt/format.h>

#include "hetsim/cluster/cluster_spec.hpp"

namespace hetsim {
namespace {

// Memory per GPU model (GB). The V100 is the 16 GB part, as in Gavel's and Heet's testbeds.
constexpr double kV100MemoryGb = 16.0;
constexpr double kP100MemoryGb = 16.0;
constexpr double kK80MemoryGb = 12.0;
constexpr double kT4MemoryGb = 16.0;
constexpr double kA10MemoryGb = 24.0;
constexpr double kA100MemoryGb = 40.0;       // DGX-A100 40 GB, Sia's testbed
constexpr double kRtx2080TiMemoryGb = 11.0;

// Network of one server model (docs/cluster-format.md lists where each figure comes from).
struct NodeNet {
  InterconnectKind kind = InterconnectKind::Pcie;
  double nic_gbps = kDefaultNicGbps;
};

// Appends `count` nodes of `gpus_per_node` GPUs named "<type>-0", "<type>-1", ... like unnamed
// nodes in a spec file, with the default bandwidth and latency of their interconnect kind.
void add_nodes(std::vector<Node>& nodes, const std::vector<GpuType>& types, GpuTypeId type, int count,
               int gpus_per_node, RackId rack = 0, int first_index = 0, NodeNet net = {}) {
  for (int i = 0; i < count; ++i) {
    Node n{fmt::format("{}-{}", types[static_cast<std::size_t>(type)].name, first_index + i), type, gpus_per_node,
           rack, 0};
    n.interconnect = net.kind;
    n.interconnect_gbytes_per_s = default_interconnect_gbytes_per_s(net.kind);
    n.interconnect_latency_us = default_interconnect_latency_us(net.kind);
    n.nic_gbps = net.nic_gbps;
    nodes.push_back(std::move(n));
  }
}

// Gavel's servers, after the AWS instances of its testbed: p3.8xlarge (4 V100, NVLink, 10 Gbit/s)
// and PCIe servers for P100 and K80, all with 10 Gbit/s networking.
constexpr NodeNet kGavelNet[3] = {{InterconnectKind::NvLink, 10.0}, {InterconnectKind::Pcie, 10.0},
                                  {InterconnectKind::Pcie, 10.0}};

// Gavel's three-type simulated cluster with `nodes_per_type` 4-GPU servers of each type. The
// relative speeds (rough V100 : P100 : K80 ratios) only matter to the duration model; Gavel's
// table has measured rates per type. With `racks` = 2, node i of each type sits on rack i % 2 and
// each rack's uplink is `oversubscription` times thinner than its nodes' NICs together.
Cluster gavel_cluster(const std::string& name, int nodes_per_type, int racks = 1, double oversubscription = 1.0) {
  std::vector<GpuType> types{{"v100", kV100MemoryGb, 1.0}, {"p100", kP100MemoryGb, 0.6}, {"k80", kK80MemoryGb, 0.25}};
  std::vector<Node> nodes;
  for (GpuTypeId t = 0; t < 3; ++t)
    for (int i = 0; i < nodes_per_type; ++i) add_nodes(nodes, types, t, 1, 4, i % racks, i, kGavelNet[t]);
  std::vector<Rack> rack_list;
  for (int r = 0; r < racks; ++r) {
    Rack rack{fmt::format("rack{}", r)};
    rack.oversubscription = oversubscription;
    rack_list.push_back(std::move(rack));
  }
  return Cluster(name, std::move(types), std::move(rack_list), std::move(nodes), "preset:" + name);
}

struct Preset {
  const char* name;
  const char* description;
  Cluster (*build)();
};

Cluster build_default() {
  std::vector<GpuType> types{{"v100", kV100MemoryGb, 1.0}, {"k80", kK80MemoryGb, 0.4}};
  std::vector<Node> nodes;
  add_nodes(nodes, types, 0, 2, 4);
  add_nodes(nodes, types, 1, 2, 4);
  return Cluster("default", std::move(types), {Rack{"rack0"}}, std::move(nodes), "preset:default");
}

Cluster build_gavel_24() { return gavel_cluster("gavel-24", 2); }
Cluster build_gavel_108() { return gavel_cluster("gavel-108", 9); }
Cluster build_gavel_108_2rack() { return gavel_cluster("gavel-108-2rack", 9, 2, 4.0); }

Cluster build_pollux_64() {
  // Pollux's simulated cluster: 16 AWS g4dn.12xlarge (4 T4 on PCIe, 50 Gbit/s networking).
  std::vector<GpuType> types{{"t4", kT4MemoryGb, 1.0}};
  std::vector<Node> nodes;
  add_nodes(nodes, types, 0, 16, 4, 0, 0, {InterconnectKind::Pcie, 50.0});
  return Cluster("pollux-64", std::move(types), {Rack{"rack0"}}, std::move(nodes), "preset:pollux-64");
}

Cluster build_sia_64() {
  // Sia's simulated heterogeneous cluster: 6 g4dn.12xlarge (4 T4, PCIe, 50 Gbit/s), 2 DGX-A100
  // (8 A100 on NVSwitch, 8 x 200 Gbit/s HDR InfiniBand) and 3 servers of 8 RTX 2080 Ti on PCIe
  // (networking not published: 25 Gbit/s assumed). One rack per GPU type, non-blocking uplinks.
  // Relative speeds stay 1.0: the goodput model has measured step times per type.
  std::vector<GpuType> types{{"t4", kT4MemoryGb, 1.0}, {"a100", kA100MemoryGb, 1.0}, {"rtx2080ti", kRtx2080TiMemoryGb, 1.0}};
  std::vector<Node> nodes;
  add_nodes(nodes, types, 0, 6, 4, 0, 0, {InterconnectKind::Pcie, 50.0});
  add_nodes(nodes, types, 1, 2, 8, 1, 0, {InterconnectKind::NvSwitch, 1600.0});
  add_nodes(nodes, types, 2, 3, 8, 2, 0, {InterconnectKind::Pcie, 25.0});
  return Cluster("sia-64", std::move(types), {Rack{"t4"}, Rack{"a100"}, Rack{"rtx2080ti"}}, std::move(nodes),
                 "preset:sia-64");
}

Cluster build_heet_12() {
  // The Heet prototype's testbed: one 4-GPU host per type (profiles.json, "cluster").
  std::vector<GpuType> types{{"a10", kA10MemoryGb, 1.0}, {"v100", kV100MemoryGb, 1.0}, {"t4", kT4MemoryGb, 1.0}};
  std::vector<Node> nodes;
  for (GpuTypeId t = 0; t < 3; ++t) add_nodes(nodes, types, t, 1, 4);
  return Cluster("heet-12", std::move(types), {Rack{"rack0"}}, std::move(nodes), "preset:heet-12");
}

Cluster build_heet_120() {
  // Heet's simulation scale (ASPLOS'24: a 120-GPU heterogeneous cluster of A10, V100 and T4); the
  // split into 10 four-GPU hosts per type is ours, matching the prototype's 4-GPU hosts.
  std::vector<GpuType> types{{"a10", kA10MemoryGb, 1.0}, {"v100", kV100MemoryGb, 1.0}, {"t4", kT4MemoryGb, 1.0}};
  std::vector<Node> nodes;
  for (GpuTypeId t = 0; t < 3; ++t) add_nodes(nodes, types, t, 10, 4);
  return Cluster("heet-120", std::move(types), {Rack{"rack0"}}, std::move(nodes), "preset:heet-120");
}

Cluster build_philly_2048() {
  // The Philly trace does not say which GPU model a job ran on, so one generic type stands in.
  constexpr int kRacks = 8;
  constexpr int kNodesPerRack = 32;
  std::vector<GpuType> types{{"gpu", 0.0, 1.0}};
  std::vector<Rack> racks;
  std::vector<Node> nodes;
  for (int r = 0; r < kRacks; ++r) {
    racks.push_back(Rack{fmt::format("rack{}", r)});
    add_nodes(nodes, types, 0, kNodesPerRack, 8, r, r * kNodesPerRack);
  }
  return Cluster("philly-2048", std::move(types), std::move(racks), std::move(nodes), "preset:philly-2048");
}

constexpr Preset kPresets[] = {
    {"default", "8 v100 (speed 1.0) + 8 k80 (speed 0.4) on four 4-GPU nodes, one rack; used when no cluster is given",
     build_default},
    {"gavel-24", "Gavel's small simulated cluster: 8 v100 + 8 p100 + 8 k80, 4 GPUs per node, one rack", build_gavel_24},
    {"gavel-108", "Gavel's simulated cluster: 36 v100 + 36 p100 + 36 k80, 4 GPUs per node, one rack", build_gavel_108},
    {"gavel-108-2rack",
     "gavel-108 on two racks (node i of each type on rack i % 2), each uplink 4:1 oversubscribed",
     build_gavel_108_2rack},
    {"pollux-64", "Pollux's cluster: 16 nodes x 4 t4 (PCIe), 50 Gbit/s NICs, one rack", build_pollux_64},
    {"sia-64", "Sia's cluster: 6 x 4 t4, 2 x 8 a100 (NVSwitch), 3 x 8 rtx2080ti; one rack per type", build_sia_64},
    {"heet-12", "Heet's prototype testbed: one 4-GPU host each of a10, v100, t4", build_heet_12},
    {"heet-120", "Heet's simulation scale: 10 four-GPU hosts each of a10, v100, t4 (120 GPUs), one rack",
     build_heet_120},
    {"philly-2048", "Philly-sized cluster: 256 nodes x 8 GPUs of one generic type 'gpu', 8 racks of 32 nodes",
     build_philly_2048},
};

}  // namespace

std::optional<Cluster> make_preset(const std::string& name) {
  for (const Preset& p : kPresets)
    if (name == p.name) return p.build();
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> list_presets() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Preset& p : kPresets) out.emplace_back(p.name, p.description);
  return out;
}

}  // namespace hetsim
