// Communication models with hand-computed times (docs/models.md derives each formula).
#include <catch2/catch.hpp>

#include "hetsim/perf/communication.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {
constexpr double kGB = 1e9;

CommEstimate run(const Topology& t, std::vector<GpuId> gpus, double bytes, CommAlgorithm a, int shards = 1) {
  CommConfig c;
  c.algorithm = a;
  c.ps_shards = shards;
  return estimate_communication(t, gpus, bytes, c);
}
}  // namespace

TEST_CASE("ring all-reduce: 1 GB over 4 GPUs of one node at 100 GB/s", "[comm]") {
  // 2(n-1)/n * S / B = 2 * 3/4 * 1 GB / 100 GB/s = 15 ms.
  const Cluster c = flat_cluster(1, 4, 100.0, 100.0);
  const Topology t(c);
  CHECK(run(t, {0, 1, 2, 3}, kGB, CommAlgorithm::Ring).time_s == Approx(0.015));
  SECTION("plus a per-step latency term") {
    // 10 µs per GPU link: every step's route is GPU -> switch -> GPU = 20 µs; 2(n-1) = 6 steps.
    Node n("n0", 0, 4, 0);
    n.interconnect_gbytes_per_s = 100.0;
    n.interconnect_latency_us = 10.0;
    const Cluster cl("lat", {GpuType{"gpu", 0, 1}}, {Rack("r")}, {n});
    const Topology tl(cl);
    CHECK(run(tl, {0, 1, 2, 3}, kGB, CommAlgorithm::Ring).time_s == Approx(0.015 + 6 * 20e-6));
  }
  SECTION("one GPU or no bytes: nothing to do") {
    CHECK(run(t, {2}, kGB, CommAlgorithm::Ring).time_s == 0.0);
    CHECK(run(t, {0, 1}, 0.0, CommAlgorithm::Ring).time_s == 0.0);
  }
}

TEST_CASE("2 nodes x 2 GPUs with 100 Gbit/s NICs: flat ring, hierarchical, parameter server", "[comm]") {
  // GPU links 100 GB/s, NICs 100 Gbit/s = 12.5 GB/s, no latency, S = 1 GB.
  const Cluster c = flat_cluster(2, 2, 100.0, 100.0);
  const Topology t(c);
  const std::vector<GpuId> gpus{0, 1, 2, 3};
  SECTION("flat ring: each NIC carries one ring flow per direction") {
    // 2(n-1)/n * S / B_nic = 1.5 GB / 12.5 GB/s.
    CHECK(run(t, gpus, kGB, CommAlgorithm::Ring).time_s == Approx(0.12));
  }
  SECTION("hierarchical beats flat") {
    // node level: ring of 2 GPUs, 2 * 1/2 * 1 GB / 100 GB/s = 0.01 s;
    // rack level: ring of 2 nodes, 2 * 1/2 * 1 GB / 12.5 GB/s = 0.08 s.
    const CommEstimate e = run(t, gpus, kGB, CommAlgorithm::Hierarchical);
    CHECK(e.time_s == Approx(0.09));
    CHECK(e.choice == "node=ar rack=ar cluster=-");
    CHECK(e.time_s < run(t, gpus, kGB, CommAlgorithm::Ring).time_s);
  }
  SECTION("parameter server, 1 shard: each node aggregates first") {
    // Node rings (reduce-scatter + all-gather) 2 * 0.5 GB / 100 GB/s = 0.01 s; shard on n0's host;
    // n1's two GPUs push their halves of n1's sum, 2 x 0.5 GB = 1 GB through n1's NIC: 0.08 s;
    // pull the same back: 0.01 + 0.16 = 0.17 s (without aggregation n1's NIC would carry 2 GB).
    CHECK(run(t, gpus, kGB, CommAlgorithm::ParameterServer, 1).time_s == Approx(0.17));
  }
  SECTION("parameter server, 2 shards") {
    // One shard per host; each NIC carries 2 GPUs x 0.25 GB out and in: 0.5 / 12.5 = 0.04 s per
    // phase; 0.01 + 2 x 0.04 = 0.09 s.
    CHECK(run(t, gpus, kGB, CommAlgorithm::ParameterServer, 2).time_s == Approx(0.09));
  }
  SECTION("4 shards on 2 hosts share the hosts' NICs: as 2 shards") {
    CHECK(run(t, gpus, kGB, CommAlgorithm::ParameterServer, 4).time_s == Approx(0.09));
  }
  SECTION("hybrid with a parameter server at the rack level") {
    // node: 0.01 s; rack: server n0, n1 pushes 1 GB over its NIC (0.08 s) and pulls it (0.08 s).
    CommConfig cfg;
    cfg.algorithm = CommAlgorithm::Hybrid;
    cfg.levels = {LevelSync::AllReduce, LevelSync::ParameterServer, LevelSync::AllReduce};
    const CommEstimate e = estimate_communication(t, gpus, kGB, cfg);
    CHECK(e.time_s == Approx(0.17));
    CHECK(e.choice == "node=ar rack=ps cluster=-");
  }
  SECTION("auto picks all-reduce on both levels here") {
    const CommEstimate e = run(t, gpus, kGB, CommAlgorithm::Auto);
    CHECK(e.time_s == Approx(0.09));
    CHECK(e.choice == "node=ar rack=ar cluster=-");
  }
  SECTION("zero shards is a programming error") {
    CHECK_THROWS_AS(run(t, gpus, kGB, CommAlgorithm::ParameterServer, 0), std::invalid_argument);
  }
}

TEST_CASE("auto picks the parameter server where latency dominates", "[comm]") {
  // One node, 4 GPUs, 100 GB/s, 100 µs per GPU link (200 µs per route), S = 1 MB.
  // all-reduce: 6 steps x (0.25 MB / 100 GB/s + 200 µs) = 6 x 202.5 µs = 1215 µs;
  // PS on GPU 0: 3 MB into GPU 0's link (30 µs) + 200 µs, twice = 460 µs.
  Node n("n0", 0, 4, 0);
  n.interconnect_gbytes_per_s = 100.0;
  n.interconnect_latency_us = 100.0;
  const Cluster c("lat", {GpuType{"gpu", 0, 1}}, {Rack("r")}, {n});
  const Topology t(c);
  const CommEstimate e = run(t, {0, 1, 2, 3}, 1e6, CommAlgorithm::Auto);
  CHECK(e.choice == "node=ps rack=- cluster=-");
  CHECK(e.time_s == Approx(460e-6));
  CHECK(run(t, {0, 1, 2, 3}, 1e6, CommAlgorithm::Hierarchical).time_s == Approx(1215e-6));
}

TEST_CASE("an oversubscribed uplink slows the cluster level", "[comm]") {
  // Two racks of one 1-GPU node each; NICs 100 Gbit/s, rack uplinks 25 Gbit/s (3.125 GB/s).
  const Cluster c("2r", {GpuType{"gpu", 0, 1}}, {net_rack("r0", 25.0), net_rack("r1", 25.0)},
                  {net_node("a", 0, 1, 0, 100, 100), net_node("b", 0, 1, 1, 100, 100)});
  const Topology t(c);
  // Ring of 2: 2 steps x 0.5 GB / 3.125 GB/s = 0.32 s, on every scheme's cluster level.
  CHECK(run(t, {0, 1}, kGB, CommAlgorithm::Ring).time_s == Approx(0.32));
  const CommEstimate h = run(t, {0, 1}, kGB, CommAlgorithm::Hierarchical);
  CHECK(h.time_s == Approx(0.32));
  CHECK(h.choice == "node=- rack=- cluster=ar");
}

TEST_CASE("parameter server: 4 workers on one node send one aggregated gradient over the NIC", "[comm]") {
  // GPU 0 alone on n0 (the server's host, first in ring order), GPUs 1-4 on n1; 100 GB/s inside a
  // node, 100 Gbit/s NICs, S = 1 GB, no latency.
  const Cluster c("ps", {GpuType{"gpu", 0, 1}}, {net_rack("r")},
                  {net_node("n0", 0, 1, 0, 100, 100), net_node("n1", 0, 4, 0, 100, 100)});
  const Topology t(c);
  const CommEstimate e = estimate_communication(t, std::vector<GpuId>{0, 1, 2, 3, 4}, kGB,
                                                CommConfig{CommAlgorithm::ParameterServer, 1, {}}, true);
  // n1's ring: 6 steps x 0.25 GB / 100 GB/s = 0.015 s. Push: 4 x 0.25 GB = 1 GB over n1's NIC
  // (12.5 GB/s) = 0.08 s; pull 0.08 s. Total 0.175 s, all of it transfer.
  CHECK(e.time_s == Approx(0.175));
  CHECK(e.transfer_s == Approx(0.175));
  CHECK(e.latency_s == 0.0);
  // Bytes per step on shared links: n1's NIC carries the aggregate once each way (push, pull).
  const LinkId up = 2 * t.node_vertex(1);
  const LinkId down = up + 1;
  REQUIRE(e.link_bytes.size() == 4);  // n1 up/down, n0 down/up
  for (const LinkBytes& l : e.link_bytes) {
    if (l.link == up || l.link == down) CHECK(l.bytes == Approx(kGB));
    CHECK(t.link_shared(l.link));
  }
}

TEST_CASE("auto takes the flat ring where it beats every hybrid: 3 nodes over 2 racks", "[comm]") {
  // n0, n1 on rack r0, n2 on r1; 2 GPUs each; 100 GB/s inside nodes, NICs and uplinks 100 Gbit/s.
  const Cluster c("3n2r", {GpuType{"gpu", 0, 1}}, {net_rack("r0", 100.0), net_rack("r1", 100.0)},
                  {net_node("n0", 0, 2, 0, 100, 100), net_node("n1", 0, 2, 0, 100, 100),
                   net_node("n2", 0, 2, 1, 100, 100)});
  const Topology t(c);
  const std::vector<GpuId> gpus{0, 1, 2, 3, 4, 5};
  // Ring: every NIC and uplink direction carries one flow of S/6: 10 steps x (1/6 GB / 12.5 GB/s).
  CHECK(run(t, gpus, kGB, CommAlgorithm::Ring).time_s == Approx(10.0 / 6.0 * 0.08));
  // Hierarchical: node 0.01 + rack r0 (2 nodes) 2 x 0.5 / 12.5 = 0.08 + cluster (2 racks) 0.08.
  CHECK(run(t, gpus, kGB, CommAlgorithm::Hierarchical).time_s == Approx(0.17));
  // Flat PS (shard on n0): node rings 0.01, then n0's NIC takes n1's and n2's aggregates: 2 x 0.16.
  CHECK(run(t, gpus, kGB, CommAlgorithm::ParameterServer).time_s == Approx(0.33));
  const CommEstimate a = run(t, gpus, kGB, CommAlgorithm::Auto);
  CHECK(a.choice == "ring");
  CHECK(a.time_s == Approx(10.0 / 6.0 * 0.08));
}

TEST_CASE("names of the schemes parse back", "[comm]") {
  for (CommAlgorithm a : {CommAlgorithm::Ring, CommAlgorithm::Hierarchical, CommAlgorithm::ParameterServer,
                          CommAlgorithm::Hybrid, CommAlgorithm::Auto})
    CHECK(parse_comm_algorithm(to_string(a)) == a);
  CHECK_FALSE(parse_comm_algorithm("tree"));
  CHECK(parse_level_sync("PS") == LevelSync::ParameterServer);
  CHECK_FALSE(parse_level_sync("x"));
}
