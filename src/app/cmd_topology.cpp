// `hetsim topology`: the network model of a cluster (summary, Graphviz DOT) and, for a GPU set,
// its locality, ring bottleneck and the time of each communication model.
#include <cmath>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <fstream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/cluster/topology.hpp"
#include "hetsim/perf/communication.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim::app {
namespace {

struct TopologyOptions {
  std::string cluster = "default";
  std::string dot;
  std::string gpus;
  double bytes = 100e6;
  int ps_shards = 1;
};

bool same_network(const Node& a, const Node& b) {
  return a.gpu_type == b.gpu_type && a.gpu_count == b.gpu_count && a.interconnect == b.interconnect &&
         a.interconnect_gbytes_per_s == b.interconnect_gbytes_per_s && a.nic_gbps == b.nic_gbps;
}

// "v100-3" -> ("v100-", 3); nullopt when the name does not end in digits.
std::optional<std::pair<std::string, long long>> split_number(const std::string& name) {
  std::size_t k = name.size();
  while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') --k;
  if (k == name.size() || name.size() - k > 15) return std::nullopt;
  return std::make_pair(name.substr(0, k), std::stoll(name.substr(k)));
}

// Names of a run of alike nodes, never implying nodes that are not in it: "v100-0 .. v100-8 (9
// nodes)" only for consecutive numbers; every 2nd node (a preset that alternates racks) is
// "v100-0, v100-2, .., v100-8 (5 nodes, every 2nd number)"; anything else is listed.
std::string describe_node_names(const std::vector<const Node*>& run) {
  const std::size_t count = run.size();
  if (count == 1) return run[0]->name;
  std::vector<std::string> names;
  for (const Node* n : run) names.push_back(n->name);
  const auto first = split_number(names.front()), second = split_number(names[1]);
  bool arithmetic = first && second && second->first == first->first && second->second > first->second;
  const long long step = arithmetic ? second->second - first->second : 0;
  for (std::size_t k = 1; arithmetic && k < count; ++k) {
    const auto x = split_number(names[k]);
    arithmetic = x && x->first == first->first && x->second == first->second + static_cast<long long>(k) * step;
  }
  if (arithmetic && step == 1) return fmt::format("{} .. {} ({} nodes)", names.front(), names.back(), count);
  if (arithmetic && count >= 3) {
    return fmt::format("{}, {}, .., {} ({} nodes, every {} number)", names[0], names[1], names.back(), count,
                       step == 2 ? std::string("2nd") : step == 3 ? std::string("3rd") : fmt::format("{}th", step));
  }
  if (count <= 8) return fmt::format("{} ({} nodes)", fmt::join(names, ", "), count);
  return fmt::format("{}, {}, {}, ... {} ({} nodes, not numbered in sequence)", names[0], names[1], names[2],
                     names.back(), count);
}

void print_summary(const Topology& topo) {
  const Cluster& c = topo.cluster();
  fmt::print("cluster {}: {} GPUs on {} nodes in {} racks; graph: {} vertices, {} edges\n", c.name(), c.total_gpus(),
             c.nodes().size(), c.racks().size(), boost::num_vertices(topo.graph()), boost::num_edges(topo.graph()));
  for (std::size_t r = 0; r < c.racks().size(); ++r) {
    const Rack& rack = c.racks()[r];
    std::vector<const Node*> nodes;
    int gpus = 0;
    for (const Node& n : c.nodes())
      if (n.rack == static_cast<RackId>(r)) {
        nodes.push_back(&n);
        gpus += n.gpu_count;
      }
    fmt::print("rack {}: {} nodes, {} GPUs; uplink {:g} Gbps to the spine (oversubscription {:.2f}:1)\n", rack.name,
               nodes.size(), gpus, rack.uplink_gbps.value_or(0.0), rack.oversubscription);
    // Runs of alike nodes on one line.
    for (std::size_t i = 0; i < nodes.size();) {
      std::size_t j = i;
      while (j + 1 < nodes.size() && same_network(*nodes[j + 1], *nodes[i])) ++j;
      const Node& n = *nodes[i];
      const std::string names =
          describe_node_names(std::vector<const Node*>(nodes.begin() + static_cast<std::ptrdiff_t>(i),
                                                       nodes.begin() + static_cast<std::ptrdiff_t>(j + 1)));
      fmt::print("  {}: {} x {}, {} {:g} GB/s per GPU, NIC {:g} Gbps\n", names, n.gpu_count,
                 c.gpu_types()[static_cast<std::size_t>(n.gpu_type)].name, to_string(n.interconnect),
                 n.interconnect_gbytes_per_s, n.nic_gbps);
      i = j + 1;
    }
  }
}

std::vector<GpuId> parse_gpu_list(const std::string& text, const Cluster& c) {
  std::vector<GpuId> out;
  for (std::string_view item : split(text, ',')) {
    const long long g = parse_int(item, SourcePos{"", 0, "--gpus"});
    if (g < 0 || g >= c.total_gpus())
      throw InputError("", 0, "--gpus", fmt::format("GPU {} is not in cluster {} (0..{})", g, c.name(), c.total_gpus() - 1));
    for (GpuId seen : out)
      if (seen == g) throw InputError("", 0, "--gpus", fmt::format("GPU {} listed twice", g));
    out.push_back(static_cast<GpuId>(g));
  }
  return out;
}

void print_gpu_set(const Topology& topo, const std::vector<GpuId>& gpus, double bytes, int shards) {
  fmt::print("GPUs {}: locality {}\n", fmt::join(gpus, ","), to_string(topo.locality(gpus)));
  if (gpus.size() >= 2) {
    const TopologyPath p = topo.gpu_path(gpus[0], gpus[1]);
    std::vector<std::string> names;
    for (VertexId v : p.vertices) names.push_back(topo.graph()[v].name);
    fmt::print("path {} -> {}: {}; bottleneck {:g} GB/s, latency {:g} us\n", gpus[0], gpus[1], fmt::join(names, " > "),
               p.bottleneck_bytes_per_s / 1e9, p.latency_s * 1e6);
    std::vector<VertexId> ring;
    for (GpuId g : topo.ring_order(gpus)) ring.push_back(topo.gpu_vertex(g));
    const RingBottleneck rb = topo.ring_bottleneck(ring);
    fmt::print("ring bottleneck: {:g} GB/s per flow, slowest hop latency {:g} us\n", rb.bytes_per_s / 1e9,
               rb.latency_s * 1e6);
  }
  fmt::print("synchronising {:g} bytes:\n", bytes);
  for (CommAlgorithm a : {CommAlgorithm::Ring, CommAlgorithm::Hierarchical, CommAlgorithm::ParameterServer,
                          CommAlgorithm::Auto}) {
    CommConfig config;
    config.algorithm = a;
    config.ps_shards = shards;
    const CommEstimate e = estimate_communication(topo, gpus, bytes, config);
    fmt::print("  {:<13}{:>14.6f} s   {}\n", to_string(a), e.time_s, e.choice);
  }
}

}  // namespace

Action add_topology_command(CLI::App& app) {
  auto opts = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand("topology", "Show a cluster's network model; write it as Graphviz DOT");
  cmd->add_option("--cluster", opts->cluster, "Cluster preset name, cluster JSON file, or node inventory (alibaba-openb:, alibaba-pai:, alibaba-spot:CSV)")->capture_default_str();
  cmd->add_option("--dot", opts->dot, "Write the topology graph to FILE in Graphviz DOT (render: dot -Tpng FILE)");
  cmd->add_option("--gpus", opts->gpus, "Comma-separated GPU ids: print their locality, path, ring bottleneck and "
                                        "communication times");
  cmd->add_option("--bytes", opts->bytes, "Gradient bytes for --gpus")->capture_default_str();
  cmd->add_option("--ps-shards", opts->ps_shards, "Parameter-server shards for --gpus")->capture_default_str();
  return [opts]() -> int {
    if (!std::isfinite(opts->bytes) || opts->bytes < 0.0)
      throw InputError("", 0, "--bytes", fmt::format("must be a finite number of bytes >= 0, got {}", opts->bytes));
    if (opts->ps_shards < 1) throw InputError("", 0, "--ps-shards", "must be at least 1");
    const Cluster cluster = resolve_cluster(opts->cluster);
    const Topology topo(cluster);
    print_summary(topo);
    if (!opts->gpus.empty()) print_gpu_set(topo, parse_gpu_list(opts->gpus, cluster), opts->bytes, opts->ps_shards);
    if (!opts->dot.empty()) {
      std::ofstream out(opts->dot, std::ios::binary);
      if (!out) throw InputError(opts->dot, 0, "--dot", "cannot write file");
      topo.write_dot(out);
      if (!out) throw InputError(opts->dot, 0, "--dot", "write failed");
      fmt::print("wrote {}\n", opts->dot);
    }
    return kOk;
  };
}

}  // namespace hetsim::app
