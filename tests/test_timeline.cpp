// Timelines: Chrome trace-event JSON with one slice per allocation on each GPU it holds, restarts
// marked; the utilisation-over-time CSV.
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hetsim/metrics/timeline.hpp"
#include "test_support.hpp"  // Catch first: sim_fixtures.hpp uses FAIL
#include "sim_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

// The jobs of a tiny srtf run on 2 GPUs with a 5 s restart overhead, hand-traced:
//   t=0   srtf places the shortest first: B (1 GPU, 50 s) on gpu 0, then A (1 GPU, 100 s) on gpu 1;
//         both pay 5 s
//   t=10  C (1 GPU, 10 s) arrives; remaining A = 95, B = 45: srtf preempts A (the longest) for C,
//         which gets gpu 1
//   t=25  C completes (10 + 5 + 10); A restarts on gpu 1, done at 25 + 5 + 95 = 125
//   t=55  B completes (0 + 5 + 50)
// Allocations: B@0, A@0, C@10, A@25 -> 4 slices; 4 restarts.
RunOutput tiny_run(std::vector<JobEventSink*> sinks) {
  Cluster cluster = homogeneous_cluster(1, 2);
  Workload w;
  w.jobs = {duration_job("A", 0, 1, 100), duration_job("B", 0, 1, 50), duration_job("C", 10, 1, 10)};
  w.source = "test";
  DurationModel model(cluster);
  PolicyRegistry registry = make_default_registry();
  auto policy = registry.make("srtf", {}, 0);
  ConsolidatePlacement placement;
  MechanismConfig config;
  config.restart_overhead_s = 5;
  return simulate(cluster, w, model, *policy, placement, config, RunInfo{}, sinks);
}

}  // namespace

TEST_CASE("timeline: valid trace-event JSON, one slice per allocation of a tiny run", "[metrics][timeline]") {
  TimelineRecorder timeline;
  UtilizationRecorder utilization;
  const RunOutput out = tiny_run({&timeline, &utilization});
  REQUIRE(out.summary.completed == 3);
  REQUIRE(record(out, "A").finish_s == 125);
  std::ostringstream text;
  timeline.write(text);
  const nlohmann::json j = nlohmann::json::parse(text.str());  // throws when not valid JSON
  REQUIRE(j.contains("traceEvents"));
  std::vector<nlohmann::json> slices, instants, names;
  for (const auto& e : j["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    if (e["ph"] == "X") slices.push_back(e);
    if (e["ph"] == "i") instants.push_back(e);
    if (e["ph"] == "M" && e["name"] == "thread_name") names.push_back(e);
  }
  CHECK(names.size() == 2);  // one track per GPU
  REQUIRE(slices.size() == 4);
  CHECK(slices[0]["name"] == "B");
  CHECK(slices[0]["tid"] == 0);
  CHECK(slices[0]["dur"] == 55'000'000);  // microseconds
  CHECK(slices[0]["args"]["end"] == "completed");
  CHECK(slices[1]["name"] == "A");
  CHECK(slices[1]["ts"] == 0);
  CHECK(slices[1]["dur"] == 10'000'000);  // preempted at t=10 s
  CHECK(slices[1]["args"]["end"] == "preempted");
  CHECK(slices[2]["name"] == "C");
  CHECK(slices[2]["tid"] == 1);
  CHECK(slices[2]["ts"] == 10'000'000);
  CHECK(slices[3]["name"] == "A");
  CHECK(slices[3]["ts"] == 25'000'000);
  CHECK(slices[3]["dur"] == 100'000'000);
  CHECK(slices[3]["args"]["allocation"] == 3);
  CHECK(instants.size() == 4);  // every start paid the restart overhead
  for (const auto& s : slices) CHECK(s["args"]["restart"] == true);

  std::ostringstream csv;
  utilization.write_csv(csv);
  CHECK(csv.str() ==
        "time_s,busy_gpus,total_gpus,utilization,busy_gpu\n"
        "0.000000,2,2,1.000000,2\n"
        "55.000000,1,2,0.500000,1\n"
        "125.000000,0,2,0.000000,0\n");
}

TEST_CASE("timeline: a multi-GPU allocation is one slice on each of its GPUs", "[metrics][timeline]") {
  Cluster cluster = homogeneous_cluster(2, 2);
  Workload w;
  w.jobs = {duration_job("big", 0, 4, 30), duration_job("one", 1, 1, 10)};
  DurationModel model(cluster);
  PolicyRegistry registry = make_default_registry();
  auto policy = registry.make("fifo", {}, 0);
  ConsolidatePlacement placement;
  TimelineRecorder timeline;
  JobEventSink* sinks[] = {&timeline};
  simulate(cluster, w, model, *policy, placement, {}, RunInfo{}, sinks);
  REQUIRE(timeline.slices().size() == 2);
  CHECK(timeline.slices()[0].gpus.size() == 4);
  std::ostringstream text;
  timeline.write(text);
  const nlohmann::json j = nlohmann::json::parse(text.str());
  int big = 0;
  std::set<int> pids;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["name"] == "big") {
      ++big;
      pids.insert(e["pid"].get<int>());
      CHECK(e["dur"] == 30'000'000);
    }
  CHECK(big == 4);
  CHECK(pids == std::set<int>{1, 2});  // spread over both nodes (processes)
}
