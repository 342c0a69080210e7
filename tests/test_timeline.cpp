// Timelines: Chrome trace-event JSON with one slice per allocation on each GPU it holds, restarts
// marked; the utilisation-over-time CSV.
#include <nlohmann/json.hpp>
#include <algorithm>
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
  std::ostringstream text, allocations, csv;
  TimelineRecorder timeline(text, &allocations);
  UtilizationRecorder utilization(csv);
  const RunOutput out = tiny_run({&timeline, &utilization});
  REQUIRE(out.summary.completed == 3);
  REQUIRE(record(out, "A").finish_s == 125);
  CHECK(timeline.slices_written() == 4);
  const nlohmann::json j = nlohmann::json::parse(text.str());  // throws when not valid JSON
  REQUIRE(j.contains("traceEvents"));
  CHECK(text.str().find("\n ") == std::string::npos);  // compact: one event a line, no indentation
  std::vector<nlohmann::json> slices, job_slices, instants, names, busy, jobs;
  const int jobs_pid = 2;  // after the one node
  for (const auto& e : j["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    if (e["ph"] == "X") (e["pid"] == jobs_pid ? job_slices : slices).push_back(e);
    if (e["ph"] == "i") instants.push_back(e);
    if (e["ph"] == "M" && e["name"] == "thread_name") names.push_back(e);
    if (e["ph"] == "C") (e["name"] == "busy GPUs" ? busy : jobs).push_back(e);
  }
  CHECK(names.size() == 2 + 3);  // one track per GPU, one per job
  REQUIRE(slices.size() == 4);
  // Streamed: each allocation is written when it ends (A's first at 10 s, C's at 25 s, ...).
  CHECK(slices[0]["name"] == "A");
  CHECK(slices[1]["name"] == "C");
  CHECK(slices[2]["name"] == "B");
  std::sort(slices.begin(), slices.end(),
            [](const auto& a, const auto& b) { return a["args"]["allocation"] < b["args"]["allocation"]; });
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

  // The jobs process: one slice per allocation on the job's own track (tid = job index + 1).
  REQUIRE(job_slices.size() == 4);
  CHECK(job_slices[0]["name"] == "1 x gpu");
  CHECK(job_slices[0]["tid"] == 1);  // A is job 0
  // Counters change only where their values do: busy GPUs 2 at 0 s, 1 at 55 s, 0 at 125 s; queued
  // jobs 1 at 10 s (A preempted for C), 0 at 25 s (A back).
  REQUIRE(busy.size() == 3);
  CHECK(busy[1]["ts"] == 55'000'000);
  CHECK(busy[1]["args"]["gpu"] == 1);
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[1]["ts"] == 10'000'000);
  CHECK(jobs[1]["args"]["queued"] == 1);
  CHECK(jobs[1]["args"]["running"] == 2);

  CHECK(allocations.str() ==
        "job_id,allocation,start_s,end_s,gpus,gpu_type,restart,end_reason\n"
        "A,1,0.000000,10.000000,1,gpu,1,preempted\n"
        "C,2,10.000000,25.000000,1,gpu,1,completed\n"
        "B,0,0.000000,55.000000,1,gpu,1,completed\n"
        "A,3,25.000000,125.000000,1,gpu,1,completed\n");
  CHECK(csv.str() ==
        "time_s,busy_gpus,total_gpus,utilization,queued_jobs,running_jobs,busy_gpu\n"
        "0.000000,2,2,1.000000,0,2,2\n"
        "10.000000,2,2,1.000000,1,2,2\n"
        "25.000000,2,2,1.000000,0,2,2\n"
        "55.000000,1,2,0.500000,0,1,1\n"
        "125.000000,0,2,0.000000,0,0,0\n");
}

TEST_CASE("timeline: a multi-GPU allocation is one slice on each of its GPUs", "[metrics][timeline]") {
  Cluster cluster = homogeneous_cluster(2, 2);
  Workload w;
  w.jobs = {duration_job("big", 0, 4, 30), duration_job("one", 1, 1, 10)};
  DurationModel model(cluster);
  PolicyRegistry registry = make_default_registry();
  auto policy = registry.make("fifo", {}, 0);
  ConsolidatePlacement placement;
  std::ostringstream text;
  TimelineRecorder timeline(text);
  JobEventSink* sinks[] = {&timeline};
  simulate(cluster, w, model, *policy, placement, {}, RunInfo{}, sinks);
  REQUIRE(timeline.slices_written() == 2);
  const nlohmann::json j = nlohmann::json::parse(text.str());
  int big = 0;
  std::set<int> pids;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["name"] == "big") {  // (its job track slice is named "4 x gpu")
      ++big;
      pids.insert(e["pid"].get<int>());
      CHECK(e["dur"] == 30'000'000);
    }
  CHECK(big == 4);
  CHECK(pids == std::set<int>{1, 2});  // spread over both nodes (processes)
}
