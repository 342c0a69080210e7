// gavel-maxmin on Pollux/Sia goodput workloads (issue 14 item 5): Sia's Gavel baseline, rigid jobs
// at their requested GPU count, Gavel's max-min LP and priorities each round (gavel_goodput.cpp).
#include <catch2/catch.hpp>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

// One node of 2 A100s (type 0) and one of 4 T4s (type 1).
constexpr const char* kA100T4 = R"json({
  "name": "a100-2-t4-4",
  "gpu_types": [{"name": "a100"}, {"name": "t4"}],
  "racks": [{"name": "r0"}],
  "nodes": [{"name": "a100-0", "gpu_type": "a100", "gpus": 2, "rack": "r0"},
            {"name": "t4-0", "gpu_type": "t4", "gpus": 4, "rack": "r0"}]
})json";

// Every start of a job: (time, job, type of its GPUs, GPU count).
struct Start {
  double at_s;
  JobIndex job;
  GpuTypeId type;
  int gpus;
};
struct StartSink final : JobEventSink {
  const Cluster* cluster = nullptr;
  std::vector<Start> starts;
  void on_run_start(const Cluster& c) override { cluster = &c; }
  void on_event(const JobEvent& e) override {
    if (e.kind == JobEventKind::Started)
      starts.push_back({e.time.seconds(), e.job, cluster->type_of(e.gpus.front()), static_cast<int>(e.gpus.size())});
  }
};

std::optional<RunOutput> run_tiny(const test::TempDir& dir, const std::string& policy, const char* jobs,
                                  StartSink* sink = nullptr) {
  auto sia = test::shared_data("sia/traces");
  auto pollux = test::shared_data("pollux/traces");
  if (!sia || !pollux) return std::nullopt;
  RunSpec spec;
  spec.cluster = dir.write("cluster.json", kA100T4);
  spec.workload = dir.write("workload.csv", jobs);
  spec.profiles = {*sia, *pollux};
  spec.mechanism.interval_s = 60;
  spec.mechanism.restart_overhead_s = kPolluxRestartOverheadS;  // as the CLI runs a --workload
  spec.policy = policy;
  PolicyRegistry registry = make_default_registry();
  std::vector<JobEventSink*> sinks;
  if (sink) sinks.push_back(sink);
  return run_simulation(spec, registry, sinks);
}

}  // namespace

// j0 asks for 4 GPUs: only the T4 node has them, so its row of the LP has the T4 alone, and its
// normalised throughput there is T x 4 / (T x 4/6) = 6 at x = 1. j1 (2 GPUs, A100 faster: A > B)
// has 12 (A a + B t) / (2A + 4B) with a + t <= 1, largest at a = 1 and always below 6: the
// max-min optimum is j1 all on the A100s, j0 all on the T4s, and phase 2 keeps it. Gavel's
// priorities (x / fraction of the type's time) are then 2 for both chosen pairs and 0 for the
// others, every round: neither job ever moves, and each runs as Tiresias places them (j0 first
// in its queue takes the only type with 4 GPUs, j1 the fastest with room), so the JCTs agree.
TEST_CASE("gavel-maxmin on a goodput workload: the LP puts the 2-GPU job on the A100s, the 4-GPU job on the T4s") {
  const test::TempDir dir("gavel-goodput-fit");
  const char* jobs = "name,time,application,num_replicas,batch_size\n"
                     "j0,0,cifar10,4,512\n"
                     "j1,0,cifar10,2,512\n";
  StartSink sink;
  auto out = run_tiny(dir, "gavel-maxmin", jobs, &sink);
  if (!out) return;
  REQUIRE(out->summary.completed == 2);
  CHECK(test::record(*out, "j0").gpu_types == "t4");
  CHECK(test::record(*out, "j1").gpu_types == "a100");
  // One start each, at the first round (t = 60 s on the grid from 0), at the requested count.
  REQUIRE(sink.starts.size() == 2);
  for (const Start& s : sink.starts) {
    CHECK(s.at_s == 60.0);
    CHECK(s.gpus == (s.job == 0 ? 4 : 2));
  }
  CHECK(test::record(*out, "j0").preemptions == 0);
  CHECK(test::record(*out, "j1").preemptions == 0);
  auto tiresias = run_tiny(dir, "tiresias", jobs);
  REQUIRE(tiresias->summary.completed == 2);
  for (const char* id : {"j0", "j1"}) {
    INFO(id);
    CHECK(test::record(*out, id).finish_s == Approx(test::record(*tiresias, id).finish_s).epsilon(1e-12));
  }
}

// Two identical 2-GPU jobs: x = 1/2 on each type for both is the unique max-min optimum (each
// job's throughput grows with its A100 share a_i, and a_0 + a_1 <= 1). Round 1 (t = 60): every
// priority is 0.5 / (30 / 60) = 1, ties in type then arrival order: j0 takes the A100s, j1 the
// T4s. Round 2 (t = 120): on the A100s j0 has 90 of 180 s (priority 1) and j1 30 of 180 (3); on
// the T4s the reverse: the jobs swap types, each keeping its 2 GPUs.
TEST_CASE("gavel-maxmin on a goodput workload: equal jobs time-share the A100s round by round, always on 2 GPUs") {
  const test::TempDir dir("gavel-goodput-share");
  StartSink sink;
  auto out = run_tiny(dir, "gavel-maxmin",
                      "name,time,application,num_replicas,batch_size\n"
                      "j0,0,cifar10,2,512\n"
                      "j1,0,cifar10,2,512\n",
                      &sink);
  if (!out) return;
  REQUIRE(out->summary.completed == 2);
  REQUIRE(sink.starts.size() >= 4);
  for (const Start& s : sink.starts) CHECK(s.gpus == 2);  // rigid
  // Round 1: one job on each type; round 2: swapped.
  REQUIRE(sink.starts[0].at_s == 60.0);
  REQUIRE(sink.starts[1].at_s == 60.0);
  CHECK(sink.starts[0].type != sink.starts[1].type);
  REQUIRE(sink.starts[2].at_s == 120.0);
  REQUIRE(sink.starts[3].at_s == 120.0);
  for (int k : {2, 3}) {
    const Start& before = sink.starts[sink.starts[0].job == sink.starts[k].job ? 0 : 1];
    CHECK(sink.starts[k].type != before.type);
  }
  CHECK(test::record(*out, "j0").gpu_types == "a100|t4");
  CHECK(test::record(*out, "j1").gpu_types == "a100|t4");
  CHECK(test::record(*out, "j0").preemptions == 0);  // moved between types, never left without GPUs
}

TEST_CASE("gavel-maxmin on a goodput workload rejects a job no type has room for, and refuses packing") {
  const test::TempDir dir("gavel-goodput-reject");
  auto out = run_tiny(dir, "gavel-maxmin",
                      "name,time,application,num_replicas,batch_size\n"
                      "j0,0,cifar10,2,512\n"
                      "big,0,cifar10,5,512\n");
  if (!out) return;
  CHECK(out->summary.completed == 1);
  CHECK(test::record(*out, "big").status == JobStatus::Rejected);
  // The run's admission already refuses a count larger than every type (the policy's own check
  // covers types without a profile of the application).
  CHECK_THAT(test::record(*out, "big").reason, Catch::Contains("5 GPUs of one type") && Catch::Contains("has 4"));
  PolicyRegistry registry = make_default_registry();
  CHECK_THROWS_WITH(registry.make("gavel-maxmin", {{"packing", "true"}}, 0),
                    Catch::Contains("--param packing") && Catch::Contains("--workload"));
}
