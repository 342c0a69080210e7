// The Boost.Graph topology: structure, locality, paths, ring bottlenecks, phase pricing, DOT.
#include <catch2/catch.hpp>

#include <sstream>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/cluster/topology.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {
// Two racks: r0 holds a (4 GPUs, ids 0-3) and b (4, ids 4-7); r1 holds c (4, ids 8-11) and d (2,
// ids 12-13). GPU links 100 GB/s, NICs 100 Gbit/s (12.5 GB/s), r0 uplink 40 Gbit/s (5 GB/s).
Cluster two_racks() {
  return Cluster("toy", {GpuType{"gpu", 0.0, 1.0}}, {net_rack("r0", 40.0), net_rack("r1")},
                 {net_node("a", 0, 4, 0, 100, 100), net_node("b", 0, 4, 0, 100, 100), net_node("c", 0, 4, 1, 100, 100),
                  net_node("d", 0, 2, 1, 100, 100)});
}
}  // namespace

TEST_CASE("topology: vertices and edges of the tree", "[topology]") {
  const Cluster c = two_racks();
  const Topology t(c);
  // 14 GPUs + 4 node switches + 2 ToRs + 1 spine; a tree has one edge fewer than vertices.
  CHECK(boost::num_vertices(t.graph()) == 21);
  CHECK(boost::num_edges(t.graph()) == 20);
  CHECK(t.graph()[t.node_vertex(2)].name == "c");
  CHECK(t.graph()[t.spine_vertex()].kind == VertexKind::Spine);
  // r1's uplink defaults to its NICs' sum: 2 x 100 Gbit/s.
  CHECK(*c.racks()[1].uplink_gbps == 200.0);
}

TEST_CASE("topology: locality of GPU sets", "[topology]") {
  const Cluster c = two_racks();
  const Topology t(c);
  const std::vector<GpuId> one_node{0, 1, 3};
  const std::vector<GpuId> one_rack{0, 4};
  const std::vector<GpuId> two_racks_set{3, 12};
  CHECK(t.locality(one_node) == Locality::SingleNode);
  CHECK(t.locality(one_rack) == Locality::SingleRack);
  CHECK(t.locality(two_racks_set) == Locality::MultiRack);
  CHECK(t.locality(std::vector<GpuId>{13}) == Locality::SingleNode);
  CHECK(std::string(to_string(Locality::MultiRack)) == "multi-rack");
  CHECK_THROWS_AS(t.locality(std::vector<GpuId>{}), std::invalid_argument);
}

TEST_CASE("topology: path and bottleneck between two GPUs", "[topology]") {
  const Cluster c = two_racks();
  const Topology t(c);
  SECTION("same node: through the node switch only") {
    const TopologyPath p = t.gpu_path(0, 2);
    CHECK(p.vertices == std::vector<VertexId>{0, t.node_vertex(0), 2});
    CHECK(p.bottleneck_bytes_per_s == Approx(100e9));
  }
  SECTION("same rack: the NICs limit it") {
    const TopologyPath p = t.gpu_path(0, 4);
    CHECK(p.vertices.size() == 5);
    CHECK(p.bottleneck_bytes_per_s == Approx(12.5e9));
  }
  SECTION("across racks: r0's 40 Gbit/s uplink limits it") {
    const TopologyPath p = t.gpu_path(5, 12);
    CHECK(p.vertices == std::vector<VertexId>{5, t.node_vertex(1), t.rack_vertex(0), t.spine_vertex(), t.rack_vertex(1),
                                              t.node_vertex(3), 12});
    CHECK(p.bottleneck_bytes_per_s == Approx(5e9));
  }
  SECTION("latency adds up hop by hop") {
    Cluster lat = cluster_from_json(nlohmann::json::parse(R"({"gpu_types":[{"name":"g"}],
      "racks":[{"name":"r","uplink_latency_us":7}],
      "nodes":[{"gpu_type":"g","gpus":2,"rack":"r","count":2,"interconnect":{"kind":"pcie","latency_us":3},
                "nic_latency_us":5}]})"),
                                    "lat.json");
    const Topology tl(lat);
    CHECK(tl.gpu_path(0, 1).latency_s == Approx(6e-6));
    CHECK(tl.gpu_path(0, 2).latency_s == Approx(16e-6));  // 3 + 5 + 5 + 3; the uplink is not crossed
  }
}

TEST_CASE("topology: ring bottleneck through a placement", "[topology]") {
  const Cluster c = two_racks();
  const Topology t(c);
  auto ring = [&](std::vector<GpuId> gpus) {
    std::vector<VertexId> v;
    for (GpuId g : t.ring_order(gpus)) v.push_back(t.gpu_vertex(g));
    return t.ring_bottleneck(v);
  };
  CHECK(ring({0, 1, 2, 3}).bytes_per_s == Approx(100e9));
  // a and b: each NIC carries one ring flow per direction.
  CHECK(ring({0, 1, 4, 5}).bytes_per_s == Approx(12.5e9));
  // a and c: the r0 uplink carries one flow each way at 5 GB/s.
  CHECK(ring({0, 1, 8, 9}).bytes_per_s == Approx(5e9));
  // The ring order visits each node once, so the interleaved list gives the same bottleneck.
  CHECK(ring({9, 0, 8, 1}).bytes_per_s == Approx(5e9));
  CHECK(t.ring_order(std::vector<GpuId>{9, 12, 0, 4}) == std::vector<GpuId>{0, 4, 9, 12});
  // A ring in a bad order crosses a's NIC twice each way: 12.5 / 2 per flow.
  const std::vector<VertexId> zigzag{0, 4, 1, 5};
  CHECK(t.ring_bottleneck(zigzag).bytes_per_s == Approx(6.25e9));
}

TEST_CASE("topology: phase pricing adds flows sharing a link", "[topology]") {
  const Cluster c = two_racks();
  const Topology t(c);
  // Two GPUs of a each send 1 GB to b: a's NIC carries 2 GB at 12.5 GB/s.
  const std::vector<Flow> flows{{0, 4, 1e9}, {1, 5, 1e9}};
  CHECK(t.phase_time_s(flows) == Approx(0.16));
  // Opposite directions do not compete (full duplex).
  const std::vector<Flow> both{{0, 4, 1e9}, {4, 0, 1e9}};
  CHECK(t.phase_time_s(both) == Approx(0.08));
  const std::vector<Flow> self{{3, 3, 1e9}};
  CHECK(t.phase_time_s(self) == 0.0);
}

TEST_CASE("topology: Graphviz output", "[topology]") {
  const Cluster c = two_racks();
  const Topology t(c);
  std::ostringstream out;
  t.write_dot(out);
  const std::string dot = out.str();
  CHECK(dot.rfind("graph G {", 0) == 0);
  CHECK(dot.find("\"a/gpu0\"") != std::string::npos);
  CHECK(dot.find("uplink 40 Gbps") != std::string::npos);
  CHECK(dot.find("nic 100 Gbps") != std::string::npos);
  // 20 edges, written as "a -- b".
  std::size_t edges = 0;
  for (std::size_t p = dot.find("--"); p != std::string::npos; p = dot.find("--", p + 2)) ++edges;
  CHECK(edges == 20);
}
