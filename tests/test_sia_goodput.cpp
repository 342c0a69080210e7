// sia on goodput workloads: Sia's ILP over (job, GPU type, GPU count) solved by hand on 2 jobs and
// 2 types, its configuration set, an end-to-end run whose JCT follows from pollux's, and the
// warnings/rejections for applications without a profile on a GPU type.
#include <catch2/catch.hpp>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <tuple>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/policy/sia_plan.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

// Two types of one GPU each: configuration 0 = 1 GPU of type 0 ("slow"), 1 = 1 GPU of type 1.
const std::vector<SiaConfig> kTwoTypes{{0, 1}, {1, 1}};
const std::vector<int> kOneEach{1, 1};

// Job A gains 4x on type 1, job B only 1.44x: A^-0.5 coefficients {1.00, 0.50} and {1.00, 0.83}.
SiaPlanJob job_a() { return SiaPlanJob{0, {1.0, 4.0}, -1, 1.0, false}; }
SiaPlanJob job_b() { return SiaPlanJob{1, {1.0, 1.44}, -1, 1.0, false}; }

}  // namespace

TEST_CASE("sia ILP coefficients: goodput normalised to the job's least, to the power p, 2 decimals") {
  CHECK(sia_coefficients(job_a(), -0.5) == std::vector<double>{1.0, 0.5});
  CHECK(sia_coefficients(job_b(), -0.5) == std::vector<double>{1.0, 0.83});  // 1.44^-0.5 = 0.8333
  SiaPlanJob moved = job_a();
  moved.current = 0;
  moved.realloc_factor = 0.25;  // type 1 now scores 4 x 0.25 = 1 -> 1.00; the current one keeps 1.00
  CHECK(sia_coefficients(moved, -0.5) == std::vector<double>{1.0, 1.0});
  SiaPlanJob cannot = job_a();
  cannot.goodput[1] = 0.0;  // no profile / no valid batch on type 1: not a variable
  CHECK(sia_coefficients(cannot, -0.5) == std::vector<double>{1.0, 0.0});
  CHECK(sia_coefficients(job_a(), 0.5) == std::vector<double>{1.0, 2.0});
}

TEST_CASE("sia ILP, hand-solved: the job that gains most gets the fast type") {
  // Both placed (each saves lambda_n = 1.1). A fast + B slow: 0.50 + 1.00 = 1.50; A slow + B fast:
  // 1.00 + 0.83 = 1.83. Minimum: A on type 1, B on type 0.
  SiaPlan plan = sia_plan(kTwoTypes, kOneEach, {job_a(), job_b()}, SiaPlanSettings{});
  REQUIRE(plan.status == LpResult::Status::Optimal);
  CHECK(plan.config == std::vector<int>{1, 0});
  // p > 0 maximises sum A + lambda_n: A^0.5 = {1, 2}, B {1, 1.2}: A fast + B slow 3.0 > 2.2.
  SiaPlanSettings positive;
  positive.p = 0.5;
  CHECK(sia_plan(kTwoTypes, kOneEach, {job_a(), job_b()}, positive).config == std::vector<int>{1, 0});
  // One GPU in all: only one job is placed, the one that scores best (A on type 1: 0.50 - 1.1).
  CHECK(sia_plan(kTwoTypes, {0, 1}, {job_a(), job_b()}, SiaPlanSettings{}).config == std::vector<int>{1, -1});
}

TEST_CASE("sia ILP, hand-solved: the restart penalty keeps a running job in place") {
  // A holds type 0 and B type 1. A is old and has restarted once: r = (100 - 60) / (100 + 60) = 0.25,
  // so moving to type 1 scores 4 x 0.25 = 1 -> 1.00. B is younger than its penalty: r = 1.
  CHECK(sia_realloc_factor(100.0, 1, 60.0) == Approx(0.25));
  CHECK(sia_realloc_factor(10.0, 0, 60.0) == 1.0);
  SiaPlanJob a = job_a(), b = job_b();
  a.current = 0;
  a.realloc_factor = sia_realloc_factor(100.0, 1, 60.0);
  b.current = 1;
  b.realloc_factor = sia_realloc_factor(10.0, 0, 60.0);
  // Stay: A 1.00 + B 0.83 = 1.83; swap: A 1.00 + B 1.00 = 2.00. Sia keeps both where they are.
  CHECK(sia_plan(kTwoTypes, kOneEach, {a, b}, SiaPlanSettings{}).config == std::vector<int>{0, 1});
  // Without A's penalty the swap wins (0.50 + 1.00 = 1.50 < 1.83).
  a.realloc_factor = 1.0;
  CHECK(sia_plan(kTwoTypes, kOneEach, {a, b}, SiaPlanSettings{}).config == std::vector<int>{1, 0});
  // A job inside its checkpoint-restore is pinned: B keeps type 1 even though the swap scores less.
  b.pinned = true;
  CHECK(sia_plan(kTwoTypes, kOneEach, {a, b}, SiaPlanSettings{}).config == std::vector<int>{0, 1});
}

TEST_CASE("sia ILP, crowded: the table proof reaches the optimum the full search proves, pinned jobs kept") {
  // 60 jobs of 1, 2 or 4 GPUs on types of 12, 10 and 8 GPUs; each job can use the configurations of
  // its own GPU count (as in the rigid form, where this ILP is hard), goodput from a fixed
  // generator (seed 129: the first of 200 where 3 nodes of search stop short); jobs 0 and 1 pinned.
  const std::vector<SiaConfig> configs{{0, 1}, {0, 2}, {0, 4}, {1, 1}, {1, 2}, {1, 4}, {2, 1}, {2, 2}, {2, 4}};
  const std::vector<int> capacity{12, 10, 8};
  std::uint64_t state = 129;
  auto draw = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % n);
  };
  std::vector<SiaPlanJob> jobs;
  for (JobIndex i = 0; i < 60; ++i) {
    SiaPlanJob j{i, {}, -1, 1.0, false};
    const int gpus = 1 << static_cast<int>(draw(3));
    for (const SiaConfig& c : configs) j.goodput.push_back(c.gpus == gpus ? 1.0 + draw(12) : 0.0);
    jobs.push_back(j);
  }
  jobs[0].goodput[2] = jobs[1].goodput[4] = 10.0;
  jobs[0].current = 2;
  jobs[1].current = 4;
  jobs[0].pinned = jobs[1].pinned = true;
  // The objective by hand: sum over placed jobs of (coefficient - lambda_n), minimised.
  auto objective = [&](const SiaPlan& plan) {
    double sum = 0.0;
    std::vector<int> used(3, 0);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (plan.config[i] < 0) continue;
      const auto c = static_cast<std::size_t>(plan.config[i]);
      sum += sia_coefficients(jobs[i], -0.5)[c] - 1.1;
      used[static_cast<std::size_t>(configs[c].type)] += configs[c].gpus;
    }
    for (std::size_t t = 0; t < 3; ++t) CHECK(used[t] <= capacity[t]);
    return sum;
  };
  SiaPlanSettings full, short_search, table;
  full.table_proof = short_search.table_proof = false;
  full.node_limit = 100000;
  short_search.node_limit = table.node_limit = 3;
  const SiaPlan a = sia_plan(configs, capacity, jobs, full), b = sia_plan(configs, capacity, jobs, short_search),
                t = sia_plan(configs, capacity, jobs, table);
  REQUIRE(a.status == LpResult::Status::Optimal);
  REQUIRE(t.status == LpResult::Status::Optimal);
  CHECK_FALSE(t.node_limit_hit);
  CHECK(b.node_limit_hit);  // 3 nodes do not prove it ...
  CHECK(objective(b) > objective(a) + 0.005);  // ... and end short of the optimum
  CHECK(objective(t) == Approx(objective(a)).margin(1e-9));
  CHECK(t.config[0] == 2);
  CHECK(t.config[1] == 4);
}

TEST_CASE("sia configurations of sia-64 are the artifact's CONFIGS_4GPU / CONFIGS_8GPU within each type") {
  const Cluster c = *make_preset("sia-64");
  std::vector<std::vector<int>> counts(c.gpu_types().size());
  for (const SiaConfig& k : sia_configurations(c)) counts[static_cast<std::size_t>(k.type)].push_back(k.gpus);
  CHECK(counts[0] == std::vector<int>{1, 2, 4, 8, 12, 16, 20, 24});  // t4: 6 nodes x 4
  CHECK(counts[1] == std::vector<int>{1, 2, 4, 8, 16});              // a100: 2 nodes x 8
  CHECK(counts[2] == std::vector<int>{1, 2, 4, 8, 16, 24});          // rtx2080ti: 3 nodes x 8
}

namespace {

// One job of `app` (1 GPU requested, global batch `batch`) at time 0 on `cluster`, profiles from the
// shared data.
std::optional<RunOutput> run_one(const std::string& app, int batch, const Cluster& cluster, const std::string& policy,
                                 const PolicyParams& params) {
  auto sia = test::shared_data("sia/traces");
  auto pollux = test::shared_data("pollux/traces");
  if (!sia || !pollux) return std::nullopt;
  Workload w = read_pollux_workload(
      "w.csv", "name,time,application,num_replicas,batch_size\n" + app + "-0,0," + app + ",1," + std::to_string(batch) + "\n");
  auto model = load_goodput_model(cluster, w, {*sia, *pollux}, "pollux-table");
  attach_goodput_work(w, *model, false);
  auto p = make_default_registry().make(policy, params, 0);
  ConsolidatePlacement placement;
  MechanismConfig cfg;
  cfg.interval_s = 60.0;
  cfg.restart_overhead_s = 30.0;
  cfg.round_grid_from_zero = true;
  return simulate(cluster, w, *model, *p, placement, cfg, RunInfo{});
}

Cluster one_t4() { return Cluster("t4x1", {GpuType{"t4", 16.0, 1.0}}, {Rack{"r0"}}, {Node{"n0", 0, 1, 0, 0}}); }

}  // namespace

TEST_CASE("sia end to end: one job on one GPU finishes as under pollux, plus its bootstrap profiling") {
  // With one GPU there is no choice: both policies start the job at the first round (60 s) on it,
  // pay the 30 s restart and pick the same batch size (the same 50-point grid), so without
  // profiling sia's JCT is pollux's to the microsecond. Sia's bootstrap adds bootstrap_s per GPU
  // type of the cluster (one type here) at the first start: 20 s. ncf keeps its batch size, so the
  // whole run is only shifted by 20 s; cifar10 changes its batch at round times, which fall
  // elsewhere in its epochs once shifted (whole-second epochs): its JCT moves by 20 s +- 1 s.
  for (auto [app, batch, margin] : {std::tuple{"ncf", 4096, 1e-6}, std::tuple{"cifar10", 128, 1.0}}) {
    INFO(app);
    auto pollux = run_one(app, batch, one_t4(), "pollux", {});
    if (!pollux) return;
    auto bare = run_one(app, batch, one_t4(), "sia", {{"bootstrap_s", "0"}});
    auto sia = run_one(app, batch, one_t4(), "sia", {});
    const double jct = pollux->records.at(0).jct_s();
    CHECK(jct > 90.0);
    CHECK(bare->records.at(0).status == JobStatus::Completed);
    CHECK(bare->records.at(0).jct_s() == Approx(jct).margin(1e-6));
    CHECK(sia->records.at(0).jct_s() == Approx(jct + 20.0).margin(margin));
    CHECK(sia->records.at(0).restarts == 1);
  }
}

TEST_CASE("sia: a GPU type without a profile for an application is excluded with one warning, none at all rejects") {
  auto sia_root = test::shared_data("sia/traces");
  auto pollux_root = test::shared_data("pollux/traces");
  if (!sia_root || !pollux_root) return;
  // "h100" has no profile in the data: cifar10 can run on t4 only.
  const Cluster mixed("mixed", {GpuType{"t4", 16.0, 1.0}, GpuType{"h100", 80.0, 1.0}}, {Rack{"r0"}},
                      {Node{"n0", 0, 1, 0, 0}, Node{"n1", 1, 4, 0, 0}});
  Workload w = read_pollux_workload("w.csv",
                                    "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n"
                                    "cifar10-1,0,cifar10,1,128\n");
  auto model = load_goodput_model(mixed, w, {*sia_root, *pollux_root}, "pollux-table");
  const std::vector<std::string> warnings = missing_profile_warnings(*model, mixed);
  REQUIRE(warnings.size() == 1);  // one per application and type, not one per job
  CHECK_THAT(warnings[0], Catch::Contains("'cifar10'") && Catch::Contains("'h100'"));
  attach_goodput_work(w, *model, false);
  auto p = make_default_registry().make("sia", {}, 0);
  ConsolidatePlacement placement;
  MechanismConfig cfg;
  cfg.interval_s = 60.0;
  cfg.round_grid_from_zero = true;
  RunOutput out = simulate(mixed, w, *model, *p, placement, cfg, RunInfo{});
  // Both finish although only one t4 GPU can serve them: the four h100 GPUs stay idle.
  for (const JobRecord& r : out.records) {
    CHECK(r.status == JobStatus::Completed);
    CHECK(r.gpu_types == "t4");
  }
  const JobRecord &a = out.records[0], &b = out.records[1];
  CHECK((a.start_s >= b.finish_s || b.start_s >= a.finish_s));  // one after the other

  const Cluster only_h100("h", {GpuType{"h100", 80.0, 1.0}}, {Rack{"r0"}}, {Node{"n0", 0, 4, 0, 0}});
  auto none = load_goodput_model(only_h100, w, {*sia_root, *pollux_root}, "pollux-table");
  CHECK(missing_profile_warnings(*none, only_h100).empty());  // the jobs are rejected instead
  auto why = none->check_job(w.jobs[0], only_h100);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("cifar10") && Catch::Contains("no step profile for any GPU type"));
  auto p2 = make_default_registry().make("sia", {}, 0);
  RunOutput rejected = simulate(only_h100, w, *none, *p2, placement, cfg, RunInfo{});
  CHECK(rejected.records[0].status == JobStatus::Rejected);
  CHECK_THAT(rejected.records[0].reason, Catch::Contains("no step profile"));
}

TEST_CASE("sia on the first 20 jobs of Sia's saturn workload 1 on sia-64: all finish, several GPU types used, twice the same") {
  auto wl = test::shared_data("sia/workloads/saturn/workload-1.csv");
  if (!wl) return;
  std::ifstream in(*wl);
  auto small = std::filesystem::temp_directory_path() / ("hetsim-sia-" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(small);
    std::string line;
    for (int i = 0; i < 21 && std::getline(in, line); ++i) out << line << "\n";
  }
  RunSpec spec;
  spec.cluster = "sia-64";
  auto sia_root = test::shared_data("sia/traces");
  auto pollux_root = test::shared_data("pollux/traces");
  if (!sia_root || !pollux_root) return;
  spec.workload = small.string();
  spec.profiles = {*sia_root, *pollux_root};
  spec.mechanism.interval_s = 60;
  spec.mechanism.restart_overhead_s = 30;
  spec.mechanism.check_invariants = true;
  spec.policy = "sia";
  RunOutput out = run_simulation(spec, make_default_registry());
  RunOutput again = run_simulation(spec, make_default_registry());
  std::filesystem::remove(small);
  REQUIRE(again.records.size() == out.records.size());
  for (std::size_t i = 0; i < out.records.size(); ++i) CHECK(again.records[i].finish_s == out.records[i].finish_s);
  CHECK(out.summary.completed == 20);
  CHECK(out.summary.utilization <= 1.0);
  int types_used = 0;
  for (const auto& [type, busy] : out.summary.utilization_by_type) types_used += busy > 0.0 ? 1 : 0;
  CHECK(types_used >= 2);
}
