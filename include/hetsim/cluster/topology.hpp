#pragma once
/// The cluster network as a Boost.Graph tree: GPUs hang off their node's switch (NVSwitch, NVLink
/// or PCIe), node switches off their rack's ToR through the NIC, ToRs off one spine through the
/// rack uplink. Every edge carries a per-direction bandwidth and a one-hop latency; links are full
/// duplex, so traffic up and down an edge does not compete. Built once per cluster, immutable.
#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/cluster/link.hpp"

namespace hetsim {

/// What a graph vertex stands for.
enum class VertexKind : std::uint8_t { Gpu, NodeSwitch, Tor, Spine };

/// Where a set of GPUs sits: all on one node, on several nodes of one rack, or on several racks.
enum class Locality : std::uint8_t { SingleNode, SingleRack, MultiRack };

/// "node", "rack" or "multi-rack".
const char* to_string(Locality locality);

/// Vertex bundle: kind, index into the cluster's GPUs / nodes / racks (0 for the spine), name.
struct TopologyVertex {
  VertexKind kind = VertexKind::Gpu;
  int index = 0;
  std::string name;
};

/// Edge bundle: per-direction bandwidth (bytes/s), one-hop latency (s) and what the link is
/// ("nvswitch", "nvlink", "pcie", "nic", "uplink").
struct TopologyLink {
  double bytes_per_s = 0.0;
  double latency_s = 0.0;
  std::string kind;
};

/// The graph type. Vertex ids: GPUs 0..G-1 (= GpuId), then node switches, ToRs, the spine.
using TopologyGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopologyVertex, TopologyLink>;
using VertexId = std::size_t;

/// A transfer of `bytes` from vertex `src` to vertex `dst` within one communication phase.
struct Flow {
  VertexId src = 0;
  VertexId dst = 0;
  double bytes = 0.0;
};

/// Cost of one communication phase: the transfer time of the most loaded directed link and the
/// largest route latency among the flows. The phase takes transfer_s + latency_s.
struct PhaseCost {
  double transfer_s = 0.0;
  double latency_s = 0.0;
  double total_s() const { return transfer_s + latency_s; }
};

/// The route between two vertices and what limits it.
struct TopologyPath {
  std::vector<VertexId> vertices;      ///< from source to destination, both included
  double bottleneck_bytes_per_s = 0.0;  ///< smallest bandwidth on the route (inf for a vertex to itself)
  double latency_s = 0.0;               ///< sum of the hop latencies
};

/// What paces a ring through a set of participants (each sends to the next, the last to the first,
/// all at once): the smallest per-flow bandwidth over every directed link the ring uses, after
/// dividing each link among the ring flows crossing it, and the slowest hop's latency.
struct RingBottleneck {
  double bytes_per_s = 0.0;
  double latency_s = 0.0;
};

/// The network tree of one cluster (which must outlive it). Queries are O(path length) except
/// phase_time_s, which is O(flows x path length).
class Topology {
 public:
  /// Builds the graph; a cluster is already validated, so this cannot fail on input.
  explicit Topology(const Cluster& cluster);

  const Cluster& cluster() const { return *cluster_; }
  const TopologyGraph& graph() const { return graph_; }
  VertexId gpu_vertex(GpuId gpu) const { return static_cast<VertexId>(gpu); }
  VertexId node_vertex(NodeId node) const { return first_node_ + static_cast<VertexId>(node); }
  VertexId rack_vertex(RackId rack) const { return first_rack_ + static_cast<VertexId>(rack); }
  VertexId spine_vertex() const { return spine_; }
  std::size_t vertex_count() const { return parent_.size(); }

  /// Locality of a non-empty set of GPUs. Throws std::invalid_argument when it is empty.
  Locality locality(std::span<const GpuId> gpus) const;
  /// Route between two vertices (the tree has exactly one).
  TopologyPath path(VertexId a, VertexId b) const;
  /// Route between two GPUs.
  TopologyPath gpu_path(GpuId a, GpuId b) const { return path(gpu_vertex(a), gpu_vertex(b)); }
  /// Ring bottleneck through `ring` in the given order (fewer than two participants: infinite
  /// bandwidth, zero latency).
  RingBottleneck ring_bottleneck(std::span<const VertexId> ring) const;
  /// The GPUs in the order hetsim builds rings: by rack, then node, then GPU id, so that each node
  /// and each rack is entered and left once.
  std::vector<GpuId> ring_order(std::span<const GpuId> gpus) const;
  /// Time of one phase in which all `flows` run at once: the most loaded directed link (bytes over
  /// bandwidth, summed over the flows crossing it) plus the largest route latency among the flows.
  /// Flows from a vertex to itself cost nothing.
  double phase_time_s(std::span<const Flow> flows) const { return phase_cost(flows).total_s(); }
  /// The two parts of phase_time_s.
  PhaseCost phase_cost(std::span<const Flow> flows) const;
  /// Like phase_cost, and adds `repeat` x the bytes each directed link carries in this phase to
  /// `loads` (only links that can carry several jobs' traffic: NICs and uplinks; a GPU's own link
  /// belongs to the job holding the GPU).
  PhaseCost phase_cost(std::span<const Flow> flows, double repeat, std::vector<LinkBytes>& loads) const;

  /// Bandwidth of a directed link, bytes/s (links are full duplex: both directions have it).
  double link_bytes_per_s(LinkId link) const { return up_bytes_per_s_[link / 2]; }
  /// True for links that jobs share: a node's NIC and a rack's uplink (not a GPU's own link).
  bool link_shared(LinkId link) const { return graph_[link / 2].kind != VertexKind::Gpu; }

  /// Writes Graphviz DOT through boost::write_graphviz: vertex labels are names, edge labels the
  /// link kind and bandwidth.
  void write_dot(std::ostream& out) const;

 private:
  // phase_cost's one walk over the flows' routes; on_link(link, bytes) sees every hop.
  template <class OnLink>
  PhaseCost phase_cost_with(std::span<const Flow> flows, OnLink&& on_link) const;

  const Cluster* cluster_;
  TopologyGraph graph_;
  VertexId first_node_ = 0;
  VertexId first_rack_ = 0;
  VertexId spine_ = 0;
  // Tree view, from a breadth-first search rooted at the spine: the parent of each vertex and the
  // link to it (index of the child; the spine has none), and the depth.
  std::vector<VertexId> parent_;
  std::vector<int> depth_;
  std::vector<double> up_bytes_per_s_;  // bandwidth of the link vertex -> parent
  std::vector<double> up_latency_s_;
};

}  // namespace hetsim
