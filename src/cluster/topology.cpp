#include "hetsim/cluster/topology.hpp"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace hetsim {
namespace {

constexpr double kBytesPerGigabyte = 1e9;
constexpr double kBytesPerGigabit = 1e9 / 8.0;
constexpr double kSecondsPerMicrosecond = 1e-6;
constexpr double kInf = std::numeric_limits<double>::infinity();

// DOT ids must be quoted when names contain '-' or '.'; names never hold quotes, but escape anyway.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

struct VertexWriter {
  const TopologyGraph* g;
  void operator()(std::ostream& out, VertexId v) const {
    const TopologyVertex& tv = (*g)[v];
    const char* shape = tv.kind == VertexKind::Gpu ? "box" : tv.kind == VertexKind::NodeSwitch ? "ellipse"
                                                          : tv.kind == VertexKind::Tor          ? "diamond"
                                                                                                 : "doubleoctagon";
    out << "[label=" << quoted(tv.name) << ", shape=" << shape << "]";
  }
};

struct EdgeWriter {
  const TopologyGraph* g;
  template <class Edge>
  void operator()(std::ostream& out, const Edge& e) const {
    const TopologyLink& l = (*g)[e];
    const bool nic = l.kind == "nic" || l.kind == "uplink";
    const std::string bw = nic ? fmt::format("{:g} Gbps", l.bytes_per_s / kBytesPerGigabit)
                               : fmt::format("{:g} GB/s", l.bytes_per_s / kBytesPerGigabyte);
    out << "[label=" << quoted(fmt::format("{} {}", l.kind, bw)) << "]";
  }
};

struct GraphWriter {
  std::string name;
  void operator()(std::ostream& out) const {
    out << "label=" << quoted(name) << ";\nrankdir=TB;\nnode [fontsize=10];\nedge [fontsize=8];\n";
  }
};

}  // namespace

const char* to_string(Locality locality) {
  switch (locality) {
    case Locality::SingleNode: return "node";
    case Locality::SingleRack: return "rack";
    case Locality::MultiRack: return "multi-rack";
  }
  return "multi-rack";
}

Topology::Topology(const Cluster& cluster) : cluster_(&cluster) {
  const auto gpus = static_cast<VertexId>(cluster.total_gpus());
  const auto nodes = cluster.nodes().size();
  const auto racks = cluster.racks().size();
  first_node_ = gpus;
  first_rack_ = first_node_ + nodes;
  spine_ = first_rack_ + racks;
  graph_ = TopologyGraph(spine_ + 1);
  for (const Node& n : cluster.nodes()) {
    const auto node_id = static_cast<NodeId>(&n - cluster.nodes().data());
    graph_[node_vertex(node_id)] = TopologyVertex{VertexKind::NodeSwitch, node_id, n.name};
    for (int i = 0; i < n.gpu_count; ++i) {
      const GpuId g = n.first_gpu + i;
      graph_[gpu_vertex(g)] = TopologyVertex{VertexKind::Gpu, g, fmt::format("{}/gpu{}", n.name, i)};
      boost::add_edge(gpu_vertex(g), node_vertex(node_id),
                      TopologyLink{n.interconnect_gbytes_per_s * kBytesPerGigabyte,
                                   n.interconnect_latency_us * kSecondsPerMicrosecond, to_string(n.interconnect)},
                      graph_);
    }
    boost::add_edge(node_vertex(node_id), rack_vertex(n.rack),
                    TopologyLink{n.nic_gbps * kBytesPerGigabit, n.nic_latency_us * kSecondsPerMicrosecond, "nic"},
                    graph_);
  }
  for (std::size_t r = 0; r < racks; ++r) {
    const Rack& rack = cluster.racks()[r];
    graph_[rack_vertex(static_cast<RackId>(r))] = TopologyVertex{VertexKind::Tor, static_cast<int>(r), "tor:" + rack.name};
    // Cluster fills uplink_gbps for every rack; value_or keeps this total for hand-built racks.
    boost::add_edge(rack_vertex(static_cast<RackId>(r)), spine_,
                    TopologyLink{rack.uplink_gbps.value_or(kInf) * kBytesPerGigabit,
                                 rack.uplink_latency_us * kSecondsPerMicrosecond, "uplink"},
                    graph_);
  }
  graph_[spine_] = TopologyVertex{VertexKind::Spine, 0, "spine"};

  // The tree view: a BFS from the spine gives every vertex its parent; the depth follows from the
  // discovery order (parents are discovered before their children).
  const std::size_t v_count = boost::num_vertices(graph_);
  parent_.assign(v_count, spine_);
  boost::breadth_first_search(
      graph_, spine_,
      boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(parent_.data(), boost::on_tree_edge()))));
  depth_.assign(v_count, 0);
  up_bytes_per_s_.assign(v_count, kInf);
  up_latency_s_.assign(v_count, 0.0);
  // Vertex ids grow from leaves to root (GPUs, nodes, racks, spine), so walk them root first.
  for (VertexId v = v_count; v-- > 0;) {
    if (v == spine_) continue;
    depth_[v] = depth_[parent_[v]] + 1;
    const auto [e, found] = boost::edge(v, parent_[v], graph_);
    if (!found) throw std::logic_error("topology: BFS parent without an edge");
    up_bytes_per_s_[v] = graph_[e].bytes_per_s;
    up_latency_s_[v] = graph_[e].latency_s;
  }
}

Locality Topology::locality(std::span<const GpuId> gpus) const {
  if (gpus.empty()) throw std::invalid_argument("locality of an empty GPU set");
  const NodeId node = cluster_->node_of(gpus.front());
  const RackId rack = cluster_->nodes()[static_cast<std::size_t>(node)].rack;
  bool one_node = true;
  for (GpuId g : gpus) {
    const NodeId n = cluster_->node_of(g);
    if (n == node) continue;
    one_node = false;
    if (cluster_->nodes()[static_cast<std::size_t>(n)].rack != rack) return Locality::MultiRack;
  }
  return one_node ? Locality::SingleNode : Locality::SingleRack;
}

TopologyPath Topology::path(VertexId a, VertexId b) const {
  TopologyPath p;
  p.bottleneck_bytes_per_s = kInf;
  std::vector<VertexId> down;  // from b up to (not including) the common ancestor
  while (a != b) {
    if (depth_[a] >= depth_[b]) {
      p.vertices.push_back(a);
      p.bottleneck_bytes_per_s = std::min(p.bottleneck_bytes_per_s, up_bytes_per_s_[a]);
      p.latency_s += up_latency_s_[a];
      a = parent_[a];
    } else {
      down.push_back(b);
      p.bottleneck_bytes_per_s = std::min(p.bottleneck_bytes_per_s, up_bytes_per_s_[b]);
      p.latency_s += up_latency_s_[b];
      b = parent_[b];
    }
  }
  p.vertices.push_back(a);
  p.vertices.insert(p.vertices.end(), down.rbegin(), down.rend());
  return p;
}

std::vector<GpuId> Topology::ring_order(std::span<const GpuId> gpus) const {
  std::vector<GpuId> order(gpus.begin(), gpus.end());
  std::stable_sort(order.begin(), order.end(), [&](GpuId x, GpuId y) {
    const Node& nx = cluster_->nodes()[static_cast<std::size_t>(cluster_->node_of(x))];
    const Node& ny = cluster_->nodes()[static_cast<std::size_t>(cluster_->node_of(y))];
    if (nx.rack != ny.rack) return nx.rack < ny.rack;
    return x < y;  // GPUs of a node are contiguous, so GPU order is node order within a rack
  });
  return order;
}

RingBottleneck Topology::ring_bottleneck(std::span<const VertexId> ring) const {
  RingBottleneck out{kInf, 0.0};
  if (ring.size() < 2) return out;
  // One byte per ring flow: the phase time is then the inverse of the per-flow bottleneck.
  std::vector<Flow> flows;
  for (std::size_t i = 0; i < ring.size(); ++i) flows.push_back(Flow{ring[i], ring[(i + 1) % ring.size()], 1.0});
  const PhaseCost cost = phase_cost(flows);
  out.bytes_per_s = cost.transfer_s > 0.0 ? 1.0 / cost.transfer_s : kInf;
  out.latency_s = cost.latency_s;
  return out;
}

template <class OnLink>
PhaseCost Topology::phase_cost_with(std::span<const Flow> flows, OnLink&& on_link) const {
  // Load per directed link: index 2*child for the child->parent direction, 2*child+1 for down.
  std::vector<double> load(2 * parent_.size(), 0.0);
  double latency = 0.0;
  for (const Flow& f : flows) {
    if (f.src == f.dst || f.bytes <= 0.0) continue;
    VertexId a = f.src;
    VertexId b = f.dst;
    double lat = 0.0;
    while (a != b) {
      const bool up = depth_[a] >= depth_[b];
      const VertexId child = up ? a : b;
      const LinkId link = up ? 2 * a : 2 * b + 1;
      load[link] += f.bytes;
      on_link(link, f.bytes);
      lat += up_latency_s_[child];
      if (up)
        a = parent_[a];
      else
        b = parent_[b];
    }
    latency = std::max(latency, lat);
  }
  double worst = 0.0;
  for (std::size_t i = 0; i < load.size(); ++i)
    if (load[i] > 0.0) worst = std::max(worst, load[i] / up_bytes_per_s_[i / 2]);
  return PhaseCost{worst, latency};
}

PhaseCost Topology::phase_cost(std::span<const Flow> flows) const {
  return phase_cost_with(flows, [](LinkId, double) {});
}

PhaseCost Topology::phase_cost(std::span<const Flow> flows, double repeat, std::vector<LinkBytes>& loads) const {
  // A sparse list: a job's flows cross few shared links, and the dense load vector covers the
  // whole cluster.
  return phase_cost_with(flows, [&](LinkId link, double bytes) {
    if (!link_shared(link)) return;
    auto it = std::find_if(loads.begin(), loads.end(), [&](const LinkBytes& l) { return l.link == link; });
    if (it == loads.end()) {
      loads.push_back(LinkBytes{link, 0.0});
      it = loads.end() - 1;
    }
    it->bytes += repeat * bytes;
  });
}

void Topology::write_dot(std::ostream& out) const {
  boost::write_graphviz(out, graph_, VertexWriter{&graph_}, EdgeWriter{&graph_}, GraphWriter{cluster_->name()});
}

}  // namespace hetsim
