// The ISORC'24 scaling experiment (experiment/scaling.hpp, `hetsim scaling`): figures computed by
// hand on a 2-rack x 2-node cluster from the formulas of docs/models.md, and the CLI's errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "cli_support.hpp"
#include "hetsim/experiment/scaling.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

constexpr double kS = 1.25e9;  // gradient bytes: 0.1 s at 100 Gbit/s (12.5 GB/s)

// Racks r0 {a0 fast, a1 slow} and r1 {b0 fast, b1 slow}; 2 GPUs per node at 100 GB/s inside the
// node, 100 Gbit/s NICs and 100 Gbit/s uplinks, no latency (times are pure bandwidth terms).
Cluster two_racks() {
  auto node = [](const char* name, GpuTypeId type, RackId rack) { return net_node(name, type, 2, rack, 100, 100); };
  return Cluster("2x2", {GpuType{"fast", 0, 1}, GpuType{"slow", 0, 1}}, {net_rack("r0", 100.0), net_rack("r1", 100.0)},
                 {node("a0", 0, 0), node("a1", 1, 0), node("b0", 0, 1), node("b1", 1, 1)});
}

// Job type "j": 0.1 s per step on a fast GPU, 0.2 s on a slow one; no overlap, rebalanced batches.
SchemeModelMaker maker(const Cluster& c) {
  return [&c](const CommConfig& comm) {
    AnalyticConfig cfg;
    cfg.comm = comm;
    cfg.overlap = 0.0;
    cfg.rebalance = true;
    return std::make_unique<AnalyticModel>(c, fixed_profile({{"j", {kS, {0.1, 0.2}}}}), cfg);
  };
}

ScalingConfig config(const Cluster& c, int max_nodes, int background) {
  ScalingConfig cfg;
  cfg.job = iter_job("scaling", "j", 1, 1);
  const auto ring = maker(c)(CommConfig{CommAlgorithm::Ring});
  cfg.node_order = scaling_node_order(c, *ring, cfg.job, "mixed");
  cfg.max_nodes = max_nodes;
  cfg.background_jobs = background;
  cfg.schemes = scaling_schemes(1, {});
  return cfg;
}

const ScalingRow& row_of(const std::vector<ScalingRow>& rows, const std::string& scheme, int nodes, int background = 0) {
  for (const ScalingRow& r : rows)
    if (r.scheme == scheme && r.nodes == nodes && r.background == background) return r;
  FAIL("no row " << scheme << " n=" << nodes << " bg=" << background);
  return rows.front();
}

}  // namespace

TEST_CASE("scaling: mixed order alternates GPU types and racks, fastest type first", "[scaling]") {
  const Cluster c = two_racks();
  // fast on r0 (a0), slow on the emptier r1 (b1), fast on r1 (b0, the only fast node left), slow a1.
  CHECK(config(c, 1, 0).node_order == std::vector<NodeId>{0, 3, 2, 1});
  const auto ring = maker(c)(CommConfig{CommAlgorithm::Ring});
  const JobSpec job = iter_job("x", "j", 1, 1);
  CHECK(scaling_node_order(c, *ring, job, "type:slow") == std::vector<NodeId>{1, 3});
  CHECK_THROWS_AS(scaling_node_order(c, *ring, job, "type:k80"), InputError);
  CHECK_THROWS_AS(scaling_node_order(c, *ring, job, "random"), InputError);
}

TEST_CASE("scaling: hand-computed step times alone", "[scaling]") {
  const Cluster c = two_racks();
  const auto rows = run_scaling(c, maker(c), config(c, 4, 0));
  REQUIRE(rows.size() == 4 * 4);  // 4 schemes x n = 1..4, background 0 only
  // 1 node (a0, two fast GPUs): rebalanced compute 2 / (1/0.1 + 1/0.1) = 0.1 s; a 2-GPU ring in
  // the node 2(p-1)/p * S / B = 1 * 1.25 GB / 100 GB/s = 12.5 ms.
  const ScalingRow& one = row_of(rows, "ring", 1);
  CHECK(one.step_s == Approx(0.1125));
  for (const char* s : {"ps", "ring", "hierarchical", "auto"}) CHECK(row_of(rows, s, 1).speedup == 1.0);
  // 2 nodes (a0 + b1, across racks): compute 4 / (10 + 10 + 5 + 5) = 0.13333 s. Ring a0g0 a0g1
  // b1g0 b1g1: every NIC and uplink direction carries one flow, B = 12.5 GB/s:
  // 2 * 3/4 * 1.25 GB / 12.5 GB/s = 0.15 s; step 0.28333 s, 4 / step = 14.1176 it/s.
  const ScalingRow& ring2 = row_of(rows, "ring", 2);
  CHECK(ring2.gpu_mix == "fastx2+slowx2");
  CHECK(ring2.compute_s == Approx(4.0 / 30.0));
  CHECK(ring2.comm_s == Approx(0.15));
  CHECK(ring2.step_s == Approx(4.0 / 30.0 + 0.15));
  CHECK(ring2.throughput_iters_per_s == Approx(4.0 / (4.0 / 30.0 + 0.15)));
  CHECK(ring2.speedup == Approx((4.0 / (4.0 / 30.0 + 0.15)) / (2.0 / 0.1125)));
  // Hierarchical: node level 12.5 ms; rack level skipped (one node per rack); cluster level
  // 2 steps of S/2 over the NICs = 2 * 0.625 GB / 12.5 GB/s = 0.1 s. 0.1125 s < ring's 0.15 s.
  CHECK(row_of(rows, "hierarchical", 2).comm_s == Approx(0.1125));
  CHECK(row_of(rows, "hierarchical", 2).choice == "node=ar rack=- cluster=ar");
  // Flat PS, one shard on a0: node ring 12.5 ms + push and pull of b1's aggregate (1.25 GB each
  // way over b1's NIC) 2 * 0.1 s = 0.2125 s.
  CHECK(row_of(rows, "ps", 2).comm_s == Approx(0.2125));
  for (int n = 1; n <= 4; ++n) {
    INFO("n = " << n);
    const double best = std::min({row_of(rows, "ring", n).step_s, row_of(rows, "ps", n).step_s,
                                  row_of(rows, "hierarchical", n).step_s});
    CHECK(row_of(rows, "auto", n).step_s <= best * (1 + 1e-12));
  }
}

TEST_CASE("scaling: a background ring on the same uplinks halves the job's transfer speed", "[scaling]") {
  const Cluster c = two_racks();
  const auto rows = run_scaling(c, maker(c), config(c, 2, 1));
  REQUIRE(rows.size() == 2 * 4 * 2);
  // The background job holds b0 and a1 (the nodes the job does not use), ring a1g0 a1g1 b0g0
  // b0g1: alone it transfers at 12.5 GB/s over both uplinks, as the job's ring does; the 100
  // Gbit/s uplinks are full, so max-min gives each speed 0.5: the job's comm 0.15 -> 0.3 s,
  // step 0.28333 -> 0.43333 s, slower by 0.43333 / 0.28333 = 1.5294.
  const ScalingRow& alone = row_of(rows, "ring", 2, 0);
  const ScalingRow& shared = row_of(rows, "ring", 2, 1);
  CHECK(shared.net_speed == Approx(0.5));
  CHECK(shared.comm_s == Approx(0.3));
  CHECK(shared.step_s == Approx(4.0 / 30.0 + 0.3));
  CHECK(shared.step_s / alone.step_s == Approx((4.0 / 30.0 + 0.3) / (4.0 / 30.0 + 0.15)));
  // One node has no shared link: unchanged, and the speed-up baseline stays the same.
  CHECK(row_of(rows, "ring", 1, 1).step_s == row_of(rows, "ring", 1, 0).step_s);
  CHECK(row_of(rows, "ring", 1, 1).speedup == 1.0);
  // No room for a second background job beside a 2-node job.
  CHECK_THROWS_AS(run_scaling(c, maker(c), config(c, 2, 2)), InputError);
  CHECK_THROWS_AS(run_scaling(c, maker(c), config(c, 5, 0)), InputError);
  CHECK_THROWS_AS(run_scaling(c, maker(c), config(c, 0, 0)), InputError);
}

TEST_CASE("cli scaling: the fallback job types run, CSV written", "[scaling][cli]") {
  const TempDir dir("scaling");
  const std::string types = std::string(HETSIM_SOURCE_DIR) + "/experiments/isorc/job_types.json";
  const auto r = run_cli("scaling --job-types " + types + " --max-nodes 4 --background 2 --hybrid ar,ps,ar --out " +
                         dir.str());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("with 2 background ring jobs") && Catch::Contains("hybrid-ar-ps-ar"));
  const std::string csv = slurp(dir.path / "scaling.csv");
  CHECK(csv.rfind("nodes,gpus,gpu_mix,background,scheme,choice,", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 5 * 4);  // header + 2 settings x 5 schemes x 4
}

TEST_CASE("cli scaling: bad input exits 2 naming the option", "[scaling][cli]") {
  const std::string types = " --job-types " + std::string(HETSIM_SOURCE_DIR) + "/experiments/isorc/job_types.json";
  expect_input_error("scaling" + types + " --job-type nope", "job type 'nope' is not in the profile");
  expect_input_error("scaling" + types + " --cluster no-such-cluster", "no-such-cluster");
  expect_input_error("scaling" + types + " --max-nodes 0", "--max-nodes");
  expect_input_error("scaling" + types + " --max-nodes 999", "--max-nodes");
  expect_input_error("scaling" + types + " --model-param overlap=2", "overlap");
  expect_input_error("scaling" + types + " --model-param comm=ring", "--hybrid");
  expect_input_error("scaling" + types + " --nodes-order type:a100", "--nodes-order");
  expect_input_error("scaling" + types + " --hybrid ar,xx,ar", "--hybrid");
  expect_input_error("scaling" + types + " --background 20", "--background");
  expect_input_error("scaling" + types + " --throughputs x.json", "not both");
  expect_input_error("scaling" + types + " --hybrid ar,ps,ar --hybrid AR,PS,AR", "given twice");
  expect_input_error("scaling --job-types /no/such/types.json", "field '--job-types': no such file");
  expect_input_error("scaling --job-types " + std::string(HETSIM_SOURCE_DIR), "field '--job-types': not a regular file");
  expect_input_error("scaling" + types + " --background 2147483647", "need 4294967294 nodes");
}

TEST_CASE("cli scaling: without --max-nodes, background jobs get the nodes they need", "[scaling][cli]") {
  // gavel-108-2rack: 15 nodes on rack0, 12 on rack1; the mixed order alternates racks. 17 job
  // nodes (9 + 8) leave 6 + 4 nodes: 4 pairs across the racks; 18 (9 + 9) leave 6 + 3: 3 pairs.
  const std::string types = std::string(HETSIM_SOURCE_DIR) + "/experiments/isorc/job_types.json";
  const auto r = run_cli("scaling --job-types " + types + " --background 4");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("with 4 background ring jobs"));
  CHECK_THAT(r.output, Catch::Contains("\n   17 ") && !Catch::Contains("\n   18 "));
}
