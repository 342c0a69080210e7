// Elastic baselines on heterogeneous clusters (issue 14): tiresias, optimus and pollux choose a GPU
// type per job from its goodput profiles, and their `type_choice` parameter restores the rule they
// had before (values pinned from the build before the change, main at 3c63ec4).
#include <catch2/catch.hpp>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

// Two GPU types: one node of 2 A100s (Sia's dgx-ext profiles) and one of 4 T4s, so the T4s are
// the largest type and the A100s the fastest one.
constexpr const char* kTwoTypes = R"json({
  "name": "a100-2-t4-4",
  "gpu_types": [{"name": "t4"}, {"name": "a100"}],
  "racks": [{"name": "r0"}],
  "nodes": [{"name": "t4-0", "gpu_type": "t4", "gpus": 4, "rack": "r0"},
            {"name": "a100-0", "gpu_type": "a100", "gpus": 2, "rack": "r0"}]
})json";

// Three cifar10 jobs at t = 0 (names in arrival order); each may use up to 4 GPUs.
constexpr const char* kThreeJobs =
    "name,time,application,num_replicas,batch_size\n"
    "j0,0,cifar10,1,512\n"
    "j1,0,cifar10,1,512\n"
    "j2,0,cifar10,1,512\n";

std::optional<RunOutput> run_two_types(const test::TempDir& dir, const std::string& policy, PolicyParams params) {
  auto sia = test::shared_data("sia/traces");
  auto pollux = test::shared_data("pollux/traces");
  if (!sia || !pollux) return std::nullopt;
  RunSpec spec;
  spec.cluster = dir.write("cluster.json", kTwoTypes);
  spec.workload = dir.write("workload.csv", kThreeJobs);
  spec.profiles = {*sia, *pollux};
  spec.mechanism.interval_s = 60;
  spec.mechanism.restart_overhead_s = kPolluxRestartOverheadS;  // as the CLI runs a --workload
  spec.policy = policy;
  spec.params = std::move(params);
  PolicyRegistry registry = make_default_registry();
  return run_simulation(spec, registry);
}

// Mean JCT and GPU-hours per type of a Sia saturn workload on sia-64, 60 s rounds.
std::optional<RunOutput> run_saturn(const std::string& policy, PolicyParams params) {
  auto wl = test::shared_data("sia/workloads/saturn/workload-1.csv");
  if (!wl) return std::nullopt;
  RunSpec spec;
  spec.cluster = "sia-64";
  spec.workload = *wl;
  spec.mechanism.interval_s = 60;
  spec.mechanism.restart_overhead_s = kPolluxRestartOverheadS;  // as the CLI runs a --workload
  spec.policy = policy;
  spec.params = std::move(params);
  PolicyRegistry registry = make_default_registry();
  return run_simulation(spec, registry);
}

}  // namespace

TEST_CASE("optimus on two GPU types: first GPUs on the fastest type, the rest on the other") {
  const test::TempDir dir("hetero-optimus");
  auto out = run_two_types(dir, "optimus", {});
  if (!out) return;
  REQUIRE(out->summary.completed == 3);
  // j0 and j1 take the two A100s (one step of cifar10 at batch 512 is faster there); j2 finds no
  // A100 left and runs on the T4s; no job changes type.
  CHECK(test::record(*out, "j0").gpu_types == "a100");
  CHECK(test::record(*out, "j1").gpu_types == "a100");
  CHECK(test::record(*out, "j2").gpu_types == "t4");
  CHECK(out->summary.gpu_hours_by_type.at("a100") > 0.0);
  CHECK(out->summary.gpu_hours_by_type.at("t4") > 0.0);
  // The rule before: every job on the largest type (4 T4s), the A100s idle.
  auto largest = run_two_types(dir, "optimus", {{"type_choice", "largest"}});
  REQUIRE(largest->summary.completed == 3);
  for (const char* job : {"j0", "j1", "j2"}) CHECK(test::record(*largest, job).gpu_types == "t4");
  CHECK(largest->summary.gpu_hours_by_type.at("a100") == 0.0);
  CHECK(out->summary.jct_mean_s < largest->summary.jct_mean_s);
}

TEST_CASE("tiresias on two GPU types: queue order placed on the fastest type with room") {
  const test::TempDir dir("hetero-tiresias");
  auto out = run_two_types(dir, "tiresias", {});
  if (!out) return;
  REQUIRE(out->summary.completed == 3);
  // One GPU each (rigid): j0 and j1 on the two A100s, j2 on a T4.
  CHECK(test::record(*out, "j0").gpu_types == "a100");
  CHECK(test::record(*out, "j1").gpu_types == "a100");
  CHECK(test::record(*out, "j2").gpu_types == "t4");
  // The rule before: the type with the most unpromised GPUs (T4: 4, 3, 2 left against 2 A100s).
  auto most_free = run_two_types(dir, "tiresias", {{"type_choice", "most_free"}});
  REQUIRE(most_free->summary.completed == 3);
  for (const char* job : {"j0", "j1", "j2"}) CHECK(test::record(*most_free, job).gpu_types == "t4");
}

TEST_CASE("pollux on two GPU types: a new job starts where one GPU gives it the most goodput") {
  const test::TempDir dir("hetero-pollux");
  auto out = run_two_types(dir, "pollux", {});
  if (!out) return;
  REQUIRE(out->summary.completed == 3);
  // Least attained service first, ties by arrival: j0 and j1 take the A100s, j2 the T4s.
  CHECK(test::record(*out, "j0").gpu_types == "a100");
  CHECK(test::record(*out, "j1").gpu_types == "a100");
  CHECK(test::record(*out, "j2").gpu_types == "t4");
  CHECK(out->summary.gpu_hours_by_type.at("a100") > 0.0);
  CHECK(out->summary.gpu_hours_by_type.at("t4") > 0.0);
}

TEST_CASE("type_choice rejects unknown values, naming the parameter and the accepted ones") {
  PolicyRegistry registry = make_default_registry();
  CHECK_THROWS_WITH(registry.make("optimus", {{"type_choice", "all"}}, 0),
                    Catch::Contains("type_choice") && Catch::Contains("'fastest' or 'largest'"));
  CHECK_THROWS_WITH(registry.make("tiresias", {{"type_choice", "largest"}}, 0),
                    Catch::Contains("'fastest' or 'most_free'"));
  CHECK_THROWS_WITH(registry.make("pollux", {{"type_choice", "most_free"}}, 0),
                    Catch::Contains("'fastest' or 'default_batch'"));
}

// Mean JCTs of the build before the change (main 3c63ec4) on saturn workload-1, sia-64, 60 s
// rounds, 30 s restarts (`hetsim run --cluster sia-64 --workload .../workload-1.csv --policy P
// --interval 60`), one policy per case to keep each fast.
TEST_CASE("optimus type_choice=largest reproduces the earlier saturn workload-1 result on sia-64") {
  auto optimus = run_saturn("optimus", {{"type_choice", "largest"}});
  if (!optimus) return;
  CHECK(optimus->summary.jct_mean_s == Approx(25260.0125).margin(1e-6));
  CHECK(optimus->summary.gpu_hours_by_type.at("a100") == 0.0);
  CHECK(optimus->summary.gpu_hours_by_type.at("rtx2080ti") == 0.0);
}

TEST_CASE("tiresias type_choice=most_free reproduces the earlier saturn workload-1 result on sia-64") {
  auto tiresias = run_saturn("tiresias", {{"type_choice", "most_free"}});
  if (!tiresias) return;
  CHECK(tiresias->summary.jct_mean_s == Approx(3169.21875).margin(1e-6));
}

TEST_CASE("pollux type_choice=default_batch reproduces the earlier saturn workload-1 result on sia-64") {
  auto pollux = run_saturn("pollux", {{"type_choice", "default_batch"}});
  if (!pollux) return;
  CHECK(pollux->summary.jct_mean_s == Approx(2240.14375).margin(1e-6));
}
