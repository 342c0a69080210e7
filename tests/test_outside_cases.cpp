// Cases built from other simulators' public bug reports and from trying hetsim as a new user
// would (issue 13): each failed before its fix. Tiny inputs, JCTs worked out by hand.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "hetsim/experiment/results.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/type_constraint.hpp"
#include "hetsim/run.hpp"
#include "hetsim/sched/admission.hpp"
#include "temp_dir.hpp"

using namespace hetsim;
using hetsim::test::expect_input_error;
using hetsim::test::run_cli;
using hetsim::test::slurp;
using hetsim::test::TempDir;
using Catch::Matchers::Contains;

namespace {

constexpr const char* kOneGpu = R"({"name":"one","gpu_types":[{"name":"v100"}],"nodes":[{"gpu_type":"v100","gpus":1}]})";
constexpr const char* kTwoGpus = R"({"name":"two","gpu_types":[{"name":"v100"}],"nodes":[{"gpu_type":"v100","gpus":2}]})";

nlohmann::json run_summary(const TempDir& dir, const std::string& args) {
  const auto r = run_cli(args + " -q --out " + dir.str() + "/out");
  INFO(r.output);
  REQUIRE((r.exit_code == 0 || r.exit_code == 3));
  return nlohmann::json::parse(slurp(dir.path / "out" / "summary.json"));
}

// Column `col` of jobs.csv's data row `row` (1 = first job).
std::string jobs_cell(const TempDir& dir, int row, int col) {
  std::istringstream in(slurp(dir.path / "out" / "jobs.csv"));
  std::string line;
  for (int i = 0; i <= row; ++i) std::getline(in, line);
  std::istringstream cells(line);
  std::string cell;
  for (int i = 0; i <= col; ++i) std::getline(cells, cell, ',');
  return cell;
}

}  // namespace

TEST_CASE("a rejected arrival neither opens nor extends the utilisation window", "[outside][metrics]") {
  // 1 GPU, a 100 s job at 0 and a 2-GPU job (rejected) at 900 or at 0: the GPU was busy for the
  // whole life of the only admitted job, so utilisation is 1 either way (cloudsimplus #51).
  TempDir dir("util-window");
  const std::string cluster = dir.write("c.json", kOneGpu);
  for (const char* rows : {"a,0,1,100\nb,900,2,50\n", "b,0,2,50\na,0,1,100\n"}) {
    const std::string trace = dir.write("t.csv", std::string("job_id,submit_s,num_gpus,duration_s\n") + rows);
    const auto s = run_summary(dir, "run --cluster " + cluster + " --trace " + trace);
    CHECK(s["rejected"] == 1);
    CHECK(s["utilization"] == 1.0);
    CHECK(s["end_s"] == 100.0);
    CHECK(s["makespan_s"] == 100.0);
  }
}

TEST_CASE("a job past the horizon keeps its trace time and leaves the window alone", "[outside][metrics]") {
  TempDir dir("horizon-job");
  const std::string cluster = dir.write("c.json", kOneGpu);
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,100\nb,2e12,1,50\n");
  const auto s = run_summary(dir, "run --cluster " + cluster + " --trace " + trace);
  CHECK(s["end_s"] == 100.0);
  CHECK(s["utilization"] == 1.0);
  CHECK(jobs_cell(dir, 2, 1) == "2000000000000.000000");
  CHECK_THAT(jobs_cell(dir, 2, 14), Contains("beyond the simulation horizon"));
  // Beyond what the clock holds (9.2e12 s) the read value saturated: no made-up time is printed.
  const std::string far = dir.write("far.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,100\nb,9e18,1,50\n");
  CHECK(run_summary(dir, "run --cluster " + cluster + " --trace " + far)["end_s"] == 100.0);
  CHECK(jobs_cell(dir, 2, 1).empty());
  CHECK_THAT(jobs_cell(dir, 2, 14), Contains("submit time 9e+18 s is beyond the simulation horizon"));
}

TEST_CASE("a job that would finish past the horizon is rejected at admission, whatever its arrival", "[outside]") {
  // newuser4: b arriving at exactly 1e12 s ran and ended "unfinished", while 1e13 s was rejected;
  // and c's 1.0000001e12 s was printed as "needs 1e+12 s ... beyond ... 1e+12 s".
  TempDir dir("horizon-edge");
  const std::string cluster = dir.write("c.json", kOneGpu);
  const std::string trace = dir.write(
      "t.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,100\nb,1e12,1,50\nc,0,1,1.0000001e12\nd,1e12,1,0\n");
  const auto s = run_summary(dir, "run --cluster " + cluster + " --trace " + trace);
  CHECK(s["rejected"] == 2);
  CHECK(s["completed"] == 2);  // a, and d (no work) at the horizon itself
  CHECK(jobs_cell(dir, 2, 0) == "c");
  CHECK_THAT(jobs_cell(dir, 2, 14), Contains("job c arrives at 0 s and needs 1000000100000 s even on its fastest GPU type: "
                                             "it would finish beyond the simulation horizon of 1e+12 s"));
  CHECK(jobs_cell(dir, 3, 0) == "b");
  CHECK_THAT(jobs_cell(dir, 3, 14), Contains("job b arrives at 1000000000000 s and needs 50 s"));
}

TEST_CASE("a job rejected past the horizon leaves the timeline and the utilisation CSV at the run's end",
          "[outside][metrics][timeline]") {
  // a runs 0..100 s on the only GPU; b arrives at 2e12 s, past the 1e12 s horizon, and is rejected
  // then. The run ended at 100 s: the utilisation CSV's last row, the timeline's last counters and
  // the summary say so, and b is in jobs.csv with its reason.
  TempDir dir("horizon-timeline");
  const std::string cluster = dir.write("c.json", kOneGpu);
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,100\nb,2e12,1,50\n");
  const auto s = run_summary(dir, "run --cluster " + cluster + " --trace " + trace + " --timeline " + dir.str() + "/out/t.json");
  CHECK(s["end_s"] == 100.0);
  CHECK(s["rejected"] == 1);
  CHECK(slurp(dir.path / "out" / "t.utilization.csv") ==
        "time_s,busy_gpus,total_gpus,utilization,queued_jobs,running_jobs,busy_v100\n"
        "0.000000,1,1,1.000000,0,1,1\n"
        "100.000000,0,1,0.000000,0,0,0\n");
  CHECK(slurp(dir.path / "out" / "t.allocations.csv") ==
        "job_id,allocation,start_s,end_s,gpus,gpu_type,restart,end_reason\n"
        "a,0,0.000000,100.000000,1,v100,0,completed\n");
  const auto timeline = nlohmann::json::parse(slurp(dir.path / "out" / "t.json"));
  std::int64_t last_ts = -1;
  for (const auto& e : timeline["traceEvents"])
    if (e.contains("ts")) last_ts = std::max(last_ts, e["ts"].get<std::int64_t>() + e.value("dur", std::int64_t{0}));
  CHECK(last_ts == 100000000);  // microseconds
  CHECK(jobs_cell(dir, 2, 0) == "b");
  CHECK(jobs_cell(dir, 2, 13) == "rejected");
  CHECK_THAT(jobs_cell(dir, 2, 14), Contains("submit time 2e+12 s is beyond the simulation horizon of 1e+12 s"));
}

TEST_CASE("statistics with nothing to measure are null, not 0", "[outside][metrics]") {
  // Every job rejected: no JCT, no makespan, no window. 0 would read as the best possible value.
  TempDir dir("null-metrics");
  const std::string cluster = dir.write("c.json", kOneGpu);
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\na,0,2,100\n");
  const auto s = run_summary(dir, "run --cluster " + cluster + " --trace " + trace);
  for (const char* key : {"jct_mean_s", "jct_p50_s", "jct_p95_s", "jct_p99_s", "makespan_s", "queueing_mean_s",
                          "utilization", "end_s", "ftf_rho_max", "ftf_rho_mean", "jain_norm_throughput",
                          "stranded_free_gpus_mean", "fragmentation"}) {
    INFO(key);
    CHECK(s[key].is_null());
  }
  CHECK(s["utilization_by_type"].empty());
  CHECK(s["rejected"] == 1);
  // Still metrics the gate and sweeps know; a run without them shows as missing there.
  CHECK(is_known_metric("jct_mean_s"));
  const auto metrics = summary_metrics(slurp(dir.path / "out" / "summary.json"), "summary.json");
  for (const auto& [name, value] : metrics) CHECK(name != "jct_mean_s");
}

TEST_CASE("a horizon (--until) before the first arrival is refused", "[outside][cli]") {
  // ITP's times are absolute (cluster01 starts at 1,932,025 s); a horizon counted from 0 simulates nothing.
  TempDir dir("until-first");
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\nfirst,1932025,1,100\n");
  expect_input_error("run --trace " + trace + " --until 86400",
                     "field '--until': 86400 s is before the first job arrives (job 'first' at 1932025 s (" + trace + ":2))");
  const auto r = run_cli("run -q --trace " + trace + " --until 1932125");  // the job's own 100 s: it completes
  CHECK(r.exit_code == 0);
}

TEST_CASE("gavel-throughput shares a tie equally, as Gavel's interior-point solver does", "[outside][lp]") {
  // Three equal 720 s jobs on two GPUs: any split summing to 2 is optimal; the fair one is 2/3
  // each, which Gavel's rounds of 360 s turn into round robin: a and b, then c and a (a done at
  // 720), then b and c (done at 1080). The simplex vertex (0, 1, 1) starves a until 720: 1440.
  TempDir dir("tput-ties");
  const std::string cluster = dir.write("c.json", kTwoGpus);
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,720\nb,0,1,720\nc,0,1,720\n");
  const std::string base = "run --cluster " + cluster + " --trace " + trace + " --policy gavel-throughput";
  CHECK(run_summary(dir, base)["makespan_s"] == 1080.0);
  CHECK(run_summary(dir, base)["jct_mean_s"] == Approx((720.0 + 1080.0 + 1080.0) / 3));
  // The vertex is the per-job LP's (group=false); the grouped default splits the group's 2 GPUs
  // equally whatever break_ties says (docs/policies.md).
  CHECK(run_summary(dir, base + " --param break_ties=none --param group=false")["makespan_s"] == 1440.0);
  CHECK(run_summary(dir, base + " --param break_ties=none")["makespan_s"] == 1080.0);
  expect_input_error(base + " --param break_ties=maybe", "field '--param break_ties': expected fair or none, got 'maybe'");
}

TEST_CASE("gavel-maxmin keeps priority order with weights 1e9 apart, and warns", "[outside][lp]") {
  // One GPU, two 1000 s jobs; the heavy one must run first. Raw weights put its share below
  // GLPK's tolerance and it ran second; relative weights keep the rows of order 1.
  TempDir dir("maxmin-weights");
  const std::string cluster = dir.write("c.json", kOneGpu);
  const std::string trace =
      dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s,priority_weight\nlow,0,1,1000,1\nhigh,0,1,1000,1e9\n");
  const auto r = run_cli("run --cluster " + cluster + " --trace " + trace + " --policy gavel-maxmin -q --out " + dir.str() + "/out");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("warning: t=0.000000s round 0: policy 'gavel-maxmin': priority weights 1 to 1e+09 are "
                                "more than 1e+06 apart"));
  CHECK(jobs_cell(dir, 2, 0) == "high");
  CHECK(jobs_cell(dir, 2, 3) == "1000.000000");  // high finishes first
  CHECK(jobs_cell(dir, 1, 3) == "2000.000000");
}

TEST_CASE("a run whose model serves none of its jobs is refused up front", "[outside][cli]") {
  TempDir dir("no-job-runs");
  // An itp-ef trace (work in iterations) without the table that gives iteration rates.
  const std::string itp = dir.write("itp.csv",
                                    "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
                                    "j1,10,3000,bert,500,32,1,100\nj2,20,3000,bert,500,32,1,100\n");
  expect_input_error("run --trace " + itp + " --format itp-ef",
                     "field '--throughputs': throughput model 'duration' can run none of the 2 jobs on cluster 'default' "
                     "(types v100, k80); the first: " + itp + ":2: job j1 has work in iterations");
  // A Gavel table on a cluster that has none of its GPU types (philly-2048's generic 'gpu').
  const std::string table = dir.write("gavel.json", R"J({"v100": {"('A', 1)": {"null": 10.0}}})J");
  expect_input_error("run --cluster philly-2048 --generate 3 --throughputs " + table,
                     "(the table has GPU types v100; none of them is in cluster 'philly-2048')");
  // newuser4: a section of the cluster's type with no entries was reported as a type "not in the cluster".
  const std::string native = dir.write("t.csv", "job_id,submit_s,num_gpus,iterations,job_type\na,0,1,100,A\n");
  expect_input_error("run --trace " + native + " --throughputs " + dir.write("empty.json", R"J({"v100": {}})J"),
                     "is not in throughput table " + dir.str() + "/empty.json (its sections for the cluster's GPU types "
                     "(v100) hold no entries)");
  // ... and "v100" beside "V100" (conflicting rates) was accepted, one silently winning.
  expect_input_error("run --trace " + native + " --throughputs " +
                         dir.write("dup.json", R"J({"v100": {"('A', 1)": {"null": 10.0}}, "V100": {"('A', 1)": {"null": 1000.0}}})J"),
                     "dup.json: field 'v100': GPU type section given twice (also as 'V100'; GPU types match "
                     "case-insensitively)");
  // A Pollux/Sia workload given as a trace.
  const std::string workload = dir.write("w.csv", "name,time,application,num_replicas,batch_size\nj,0,bert,1,32\n");
  expect_input_error("run --trace " + workload, "field '--trace': is a Pollux/Sia workload");
}

TEST_CASE("a gpu_spec limit is named in the rejection", "[outside][admission]") {
  // 4 v100 + 8 k80; an 8-GPU job limited to v100 would be told "the largest type has 8".
  const Cluster c("c", {GpuType{"v100", 16.0, 1.0}, GpuType{"k80", 12.0, 0.4}}, {Rack{"r"}},
                  {Node{"v", 0, 4, 0}, Node{"k", 1, 8, 0}});
  TypeConstrainedModel model(make_throughput_model("duration", "", {}, c), c);
  JobSpec j;
  j.id = "pod";
  j.requested_gpus = j.min_gpus = j.max_gpus = 8;
  j.work = 100;
  j.allowed_gpu_types = {"V100"};
  CHECK_THAT(*admission_error(j, c, model),
             Contains("job pod requests 8 GPUs of one type; of the GPU types its gpu_spec allows (V100), cluster 'c' has at most 4"));
  j.allowed_gpu_types = {"A10"};
  CHECK_THAT(*admission_error(j, c, model), Contains("may only run on GPU types A10 (its gpu_spec), none of which"));
}

TEST_CASE("a number beyond double range and an empty policy name are named as such", "[outside][cli]") {
  TempDir dir("range-empty");
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,1e400\n");
  expect_input_error("run -q --trace " + trace,
                     trace + ":2: field 'duration_s': '1e400' is out of the range of a double (magnitudes 2.2e-308 to "
                             "1.8e308, or 0)");
  expect_input_error("compare -q --policies fifo,,srtf", "field '--policies': empty policy name in 'fifo,,srtf'");
  expect_input_error("compare -q --policies fifo,srtf,", "empty policy name in 'fifo,srtf,'");
  CHECK(run_cli("compare -q --policies fifo --policies srtf").exit_code == 0);
}
