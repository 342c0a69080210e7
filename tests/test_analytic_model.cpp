// The analytic throughput model: compute + communication, overlap, heterogeneous synchronous
// training, model selection by name, and the table models' fallback rules.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "test_support.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

// Node "v" with one V100 (type 0), node "k" with one K80 (type 1), same rack; 100 Gbit/s NICs.
Cluster mixed_cluster() {
  return Cluster("mixed", {GpuType{"v100", 16, 1}, GpuType{"k80", 12, 0.25}}, {net_rack("r")},
                 {net_node("v", 0, 1, 0, 100, 100), net_node("k", 1, 1, 0, 100, 100)});
}

// 1.25 GB gradient; 0.1 s per step on a V100, 0.4 s on a K80.
std::unique_ptr<ComputeProfile> mixed_profile() {
  return fixed_profile({{"m", {1.25e9, {0.1, 0.4}}}});
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("analytic: mixed V100 + K80 job, slowest worker vs rebalanced batch", "[analytic]") {
  const Cluster c = mixed_cluster();
  const JobSpec job = iter_job("j", "m", 2, 100);
  const std::vector<GpuId> both{0, 1};
  // Communication: ring of 2 nodes over 12.5 GB/s NICs, 2 x 0.625 GB / 12.5 GB/s = 0.1 s.
  SECTION("synchronous, no overlap: the K80 paces the step") {
    AnalyticConfig cfg;
    cfg.overlap = 0.0;
    const AnalyticModel m(c, mixed_profile(), cfg);
    const auto b = m.step(job, both);
    REQUIRE(b);
    CHECK(b->compute_s == Approx(0.4));
    CHECK(b->comm_s == Approx(0.1));
    CHECK(b->step_s == Approx(0.5));
    CHECK(m.rate_on(job, c, both) == Approx(2 / 0.5));
  }
  SECTION("rebalanced: batches in proportion to speed, compute = n / sum(1/t)") {
    AnalyticConfig cfg;
    cfg.overlap = 0.0;
    cfg.rebalance = true;
    const AnalyticModel m(c, mixed_profile(), cfg);
    // 2 / (10 + 2.5) = 0.16 s; step 0.26 s.
    CHECK(m.step(job, both)->compute_s == Approx(0.16));
    CHECK(m.rate_on(job, c, both) == Approx(2 / 0.26));
  }
  SECTION("overlap hides part of the shorter phase") {
    AnalyticConfig cfg;
    cfg.overlap = 0.5;
    const AnalyticModel m(c, mixed_profile(), cfg);
    // 0.4 + 0.1 - 0.5 * 0.1 = 0.45 s.
    CHECK(m.step(job, both)->step_s == Approx(0.45));
    cfg.overlap = 1.0;
    const AnalyticModel full(c, mixed_profile(), cfg);
    CHECK(full.step(job, both)->step_s == Approx(0.4));  // max(compute, comm)
  }
  SECTION("one GPU: the profile's own rate, no communication") {
    const AnalyticModel m(c, mixed_profile(), AnalyticConfig{});
    CHECK(m.rate_on(job, c, std::vector<GpuId>{0}) == Approx(10.0));
    CHECK(m.rate(job, AllocationShape{1, 1, true}) == Approx(2.5));
  }
  SECTION("bad settings") {
    AnalyticConfig cfg;
    cfg.overlap = 1.5;
    CHECK_THROWS_AS(AnalyticModel(c, mixed_profile(), cfg), std::invalid_argument);
  }
}

TEST_CASE("analytic: placement changes the rate through the topology", "[analytic]") {
  // 2 nodes x 2 GPUs, GPU links 100 GB/s, NICs 12.5 GB/s; 1 GB gradient, 0.1 s compute.
  const Cluster c = flat_cluster(2, 2, 100.0, 100.0);
  AnalyticConfig cfg;
  cfg.overlap = 0.0;
  const AnalyticModel m(c, fixed_profile({{"m", {1e9, {0.1}}}}),
                        cfg);
  const JobSpec job = iter_job("j", "m", 2, 100);
  // One node: 0.1 + 2 x 0.5 / 100 = 0.11 s per step; two nodes: 0.1 + 2 x 0.5 / 12.5 = 0.18 s.
  CHECK(m.rate_on(job, c, std::vector<GpuId>{0, 1}) == Approx(2 / 0.11));
  CHECK(m.rate_on(job, c, std::vector<GpuId>{0, 2}) == Approx(2 / 0.18));
  CHECK(m.rate(job, AllocationShape{0, 2, true}) == Approx(2 / 0.11));
  CHECK(m.rate(job, AllocationShape{0, 2, false}) == Approx(2 / 0.18));
  CHECK(m.rate(job, AllocationShape{0, 5, false}) == 0.0);  // only 4 GPUs
  CHECK(m.step(job, std::vector<GpuId>{0, 1, 2, 3})->comm_choice == "node=ar rack=ar cluster=-");
}

TEST_CASE("analytic: admission checks", "[analytic]") {
  const Cluster c = mixed_cluster();
  const AnalyticModel m(c, mixed_profile(), AnalyticConfig{});
  CHECK_FALSE(m.check_job(iter_job("a", "m", 1, 1), c));
  CHECK(m.check_job(iter_job("b", "unknown", 1, 1), c)->find("is not in the profile") != std::string::npos);
  JobSpec secs = iter_job("c", "m", 1, 1);
  secs.unit = WorkUnit::ReferenceSeconds;
  CHECK(m.check_job(secs, c)->find("iterations") != std::string::npos);
}

TEST_CASE("analytic: job-types JSON and model selection by name", "[analytic][model]") {
  const Cluster c = mixed_cluster();
  const std::string path = write_temp("hetsim_job_types.json", R"({"job_types": {"m": {"gradient_bytes": 1.25e9,
      "step_time_s": {"V100": 0.1, "k80": 0.4, "a100": 0.05}}}})");
  ModelParams params{{"overlap", "0"}, {"comm", "ring"}};
  auto model = make_throughput_model("analytic", path, params, c);
  CHECK(model->name() == "analytic");
  const JobSpec job = iter_job("j", "m", 2, 100);
  CHECK(model->rate_on(job, c, std::vector<GpuId>{0, 1}) == Approx(4.0));
  // "auto" recognises a job-types file.
  CHECK(make_throughput_model("auto", path, {}, c)->name() == "analytic");
  SECTION("bad parameters and files name the field") {
    CHECK_THROWS_WITH(make_throughput_model("analytic", path, {{"overlap", "2"}}, c), Catch::Contains("overlap"));
    CHECK_THROWS_WITH(make_throughput_model("analytic", path, {{"comm", "tree"}}, c), Catch::Contains("comm"));
    CHECK_THROWS_WITH(make_throughput_model("analytic", path, {{"levels", "ar,ps,ar"}}, c), Catch::Contains("hybrid"));
    CHECK_THROWS_WITH(make_throughput_model("analytic", path, {{"bogus", "1"}}, c), Catch::Contains("bogus"));
    CHECK_THROWS_WITH(make_throughput_model("analytic", "", {}, c), Catch::Contains("--throughputs"));
    CHECK_THROWS_WITH(make_throughput_model("nope", "", {}, c), Catch::Contains("--model") && Catch::Contains("analytic"));
    CHECK_THROWS_WITH(make_throughput_model("duration", "", {{"overlap", "0"}}, c), Catch::Contains("--model-param"));
    const std::string bad = write_temp("hetsim_job_types_bad.json",
                                       R"({"job_types": {"m": {"gradient_bytes": 0, "step_time_s": {"v100": 1}}}})");
    CHECK_THROWS_WITH(make_throughput_model("analytic", bad, {}, c), Catch::Contains("job_types.m.gradient_bytes"));
    const std::string bad2 = write_temp("hetsim_job_types_bad2.json",
                                        R"({"job_types": {"m": {"gradient_bytes": 1, "step_time_s": {"v100": -1}}}})");
    CHECK_THROWS_WITH(make_throughput_model("analytic", bad2, {}, c), Catch::Contains("job_types.m.step_time_s.v100"));
  }
}

TEST_CASE("table models: documented fallbacks instead of silent zeros", "[model]") {
  const Cluster c = mixed_cluster();
  // Gavel-format table: no unconsolidated entries, no scale factor 4.
  const std::string path = write_temp("hetsim_tiny_gavel.json", R"json({
    "v100": {"('X', 1)": {"null": 10.0}, "('X', 2)": {"null": 18.0}},
    "k80":  {"('X', 1)": {"null": 4.0},  "('X', 2)": {"null": 7.0}}})json");
  auto table = make_throughput_model("gavel-table", path, {}, c);
  JobSpec job = iter_job("j", "X", 2, 10);
  SECTION("a mixed placement runs at its slowest type's rate") {
    CHECK(table->rate_on(job, c, std::vector<GpuId>{0, 1}) == Approx(7.0));
  }
  SECTION("an unmeasured scale factor is extrapolated, never 0") {
    CHECK(table->rate(job, AllocationShape{0, 4, false}) == Approx(36.0));
  }
  SECTION("a table of the wrong kind is refused by name") {
    CHECK_THROWS_WITH(make_throughput_model("heet-profile", path, {}, c), Catch::Contains("gavel-table"));
  }
}

TEST_CASE("analytic on Gavel's table: one GPU reproduces the measured rate", "[analytic][data]") {
  const auto path = shared_data("gavel/simulation_throughputs.json");
  if (!path) return;
  const auto preset = make_preset("gavel-108");
  REQUIRE(preset);
  const Cluster& c = *preset;
  auto model = make_throughput_model("analytic", *path, {}, c);
  const JobSpec job = iter_job("j", "ResNet-50 (batch size 64)", 1, 1);
  const GpuTypeId v100 = *c.find_gpu_type("v100");
  CHECK(model->rate(job, AllocationShape{v100, 1, true}) == Approx(4.394774823323071));
  // 4 V100s on one NVLink node: 102 MB ring at 150 GB/s is ~1 ms, far below compute (0.23 s).
  const double four = model->rate(job, AllocationShape{v100, 4, true});
  CHECK(four > 3.9 * 4.394774823323071);
  CHECK(four < 4.0 * 4.394774823323071);
  // 8 GPUs on two nodes: node level 6 x (25.56 MB / 150 GB/s + 4 us) = 1.046 ms; rack level
  // 2 x (51.12 MB / 1.25 GB/s + 14 us) = 81.82 ms over the 10 Gbit/s NICs. Compute 0.22754 s,
  // overlap 0.5: step = 0.22754 + 0.5 x 0.08287.
  CHECK(model->rate(job, AllocationShape{v100, 8, false}) == Approx(8 / (0.227543 + 0.5 * 0.082866)).epsilon(1e-4));
  CHECK(gavel_gradient_bytes("ResNet-50 (batch size 64)") == Approx(25.56e6 * 4));
  CHECK_FALSE(gavel_gradient_bytes("GPT-3"));
}
