// Fractional GPUs (JobSpec::gpu_milli, Alibaba OpenB's `gpu_milli`; Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", ATC'23):
// hand-computed schedules of jobs sharing one GPU, the best-fit packing, the interference
// slowdown, utilisation counted in fractions, and the trace errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli_support.hpp"
#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/metrics/timeline.hpp"
#include "hetsim/sched/invariants.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"

using namespace hetsim;
using test::duration_job;
using test::record;

namespace {

// A 1-GPU job asking for `milli` thousandths of its GPU.
JobSpec share_job(const std::string& id, double submit_s, int milli, double duration_s) {
  JobSpec j = duration_job(id, submit_s, 1, duration_s);
  j.gpu_milli = milli;
  return j;
}

MechanismConfig checked(double slowdown = 0.0) {
  MechanismConfig c;
  c.check_invariants = true;
  c.share_slowdown = slowdown;
  return c;
}

std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() / ("hetsim-test-fractional-" + std::to_string(getpid()));
}

std::string temp_file(const std::string& name, const std::string& content) {
  std::filesystem::create_directories(temp_dir());
  const auto path = temp_dir() / name;
  std::ofstream(path) << content;
  return path.string();
}

}  // namespace

TEST_CASE("fractional: two half-GPU jobs on one GPU both finish at 100 s", "[fractional]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {share_job("A", 0, 500, 100), share_job("B", 0, 500, 100)}, "fifo", checked());
  CHECK(record(out, "A").start_s == 0);
  CHECK(record(out, "B").start_s == 0);
  CHECK(record(out, "A").finish_s == 100);
  CHECK(record(out, "B").finish_s == 100);
  CHECK(out.summary.jct_mean_s == 100);
  // 2 x 0.5 GPU x 100 s busy out of 1 GPU x 100 s.
  CHECK(out.summary.utilization == Approx(1.0));
  CHECK(record(out, "A").gpu_s == Approx(50.0));
}

TEST_CASE("fractional: with share slowdown 0.2 two half-GPU jobs finish at 125 s", "[fractional]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {share_job("A", 0, 500, 100), share_job("B", 0, 500, 100)}, "fifo", checked(0.2));
  CHECK(record(out, "A").finish_s == Approx(125.0));
  CHECK(record(out, "B").finish_s == Approx(125.0));
  CHECK(out.summary.utilization == Approx(1.0));
}

TEST_CASE("fractional: the slowdown holds only while a co-resident is there", "[fractional]") {
  // A alone 0..50 (50 s of work), with B 50..? at 0.5x; B: 100 s of work.
  // A has 50 left at 50 s, at 0.5/s it ends at 150; B has done 50 by then, alone it ends at 200.
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {share_job("A", 0, 500, 100), share_job("B", 50, 500, 100)}, "fifo", checked(0.5));
  CHECK(record(out, "A").finish_s == Approx(150.0));
  CHECK(record(out, "B").finish_s == Approx(200.0));
}

TEST_CASE("fractional: 600 + 500 thousandths do not fit on one GPU: the second waits", "[fractional]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {share_job("A", 0, 600, 100), share_job("B", 0, 500, 100)}, "fifo", checked());
  CHECK(record(out, "A").finish_s == 100);
  CHECK(record(out, "B").start_s == 100);
  CHECK(record(out, "B").finish_s == 200);
  CHECK(out.summary.jct_mean_s == 150);
  // (0.6 x 100 + 0.5 x 100) GPU-s out of 200.
  CHECK(out.summary.utilization == Approx(110.0 / 200.0));
}

TEST_CASE("fractional: best fit takes the shared GPU with the least room that fits", "[fractional]") {
  // A 400 -> g0 (room 600), B 700 -> g1 (room 300), C 300 -> g1 (best fit; first fit would take g0),
  // so D 600 still fits on g0 and all four start at once.
  auto out = test::run_jobs(test::homogeneous_cluster(1, 2),
                            {share_job("A", 0, 400, 100), share_job("B", 0, 700, 100), share_job("C", 0, 300, 100),
                             share_job("D", 0, 600, 100)},
                            "fifo", checked());
  for (const char* id : {"A", "B", "C", "D"}) {
    CHECK(record(out, id).start_s == 0);
    CHECK(record(out, id).finish_s == 100);
  }
  CHECK(out.summary.utilization == Approx(1.0));
}

TEST_CASE("fractional: the cluster state's best fit, ties by lowest GPU", "[fractional][cluster]") {
  const Cluster c = test::homogeneous_cluster(1, 4);
  ClusterState s(c);
  s.assign_share(0, 0, 400);  // room 600
  s.assign_share(1, 1, 700);  // room 300
  s.assign_share(2, 2, 700);  // room 300
  CHECK(s.free_total() == 1);
  CHECK(s.shared_gpus() == 3);
  CHECK(s.owner(0) == ClusterState::kShared);
  CHECK(s.best_shared_gpu(0, 300) == 1);
  CHECK(s.best_shared_gpu(0, 301) == 0);
  CHECK(s.best_shared_gpu(0, 601) == -1);
  s.assign_share(3, 1, 300);  // g1 full
  CHECK(s.best_shared_gpu(0, 300) == 2);
  CHECK_THROWS_AS(s.assign_share(4, 1, 1), std::logic_error);
  const GpuId whole[] = {1};
  CHECK_THROWS_AS(s.assign(5, whole), std::logic_error);  // a shared GPU is not free
  s.release_share(1, 1, 700);
  s.release_share(3, 1, 300);
  CHECK(s.owner(1) == ClusterState::kFree);
  CHECK(s.free_total() == 2);
  CHECK(s.shared_milli_total() == 1100);
}

TEST_CASE("fractional: a whole-GPU job waits while its GPU is shared", "[fractional]") {
  // W (whole, at 10 s) heads the fifo queue until A's share ends at 100; B queues behind W.
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {share_job("A", 0, 500, 100), duration_job("W", 10, 1, 50), share_job("B", 20, 500, 100)},
                            "fifo", checked());
  CHECK(record(out, "W").start_s == 100);
  CHECK(record(out, "W").finish_s == 150);
  CHECK(record(out, "B").start_s == 150);
  CHECK(record(out, "B").finish_s == 250);
}

TEST_CASE("fractional: a policy that picks exact GPUs gives whole GPUs with one warning", "[fractional]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {share_job("A", 0, 500, 100), share_job("B", 0, 500, 100)}, "tiresias", checked());
  CHECK(record(out, "A").finish_s == 100);
  CHECK(record(out, "B").finish_s == 200);
  REQUIRE_FALSE(out.stats.warnings.empty());
  CHECK_THAT(out.stats.warnings.front(), Catch::Contains("policy 'tiresias' does not share GPUs: 2 jobs"));
}

TEST_CASE("fractional: native traces read gpu_milli, bad values name file, line and field", "[fractional][trace]") {
  const std::string header = "job_id,submit_s,num_gpus,duration_s,gpu_milli\n";
  Workload w = read_native_trace("t.csv", header + "a,0,1,10,250\nb,0,2,10,\nc,0,1,10,1000\n");
  REQUIRE(w.jobs.size() == 3);
  CHECK(w.jobs[0].gpu_milli == 250);
  CHECK(w.jobs[1].gpu_milli == 1000);
  CHECK(w.jobs[2].gpu_milli == 1000);
  auto error_of = [&](const std::string& row) {
    try {
      read_native_trace("t.csv", header + row);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("a,0,1,10,1001\n"), Catch::Contains("t.csv:2: field 'gpu_milli'") && Catch::Contains("1001"));
  CHECK_THAT(error_of("a,0,1,10,-1\n"), Catch::Contains("t.csv:2: field 'gpu_milli'") && Catch::Contains("-1"));
  CHECK_THAT(error_of("a,0,1,10,0\n"), Catch::Contains("t.csv:2: field 'gpu_milli'"));
  CHECK_THAT(error_of("a,0,2,10,500\n"), Catch::Contains("t.csv:2: field 'gpu_milli'") && Catch::Contains("num_gpus"));
}

TEST_CASE("fractional: the CLI exits 2 on a fraction above 1 or below 0", "[fractional][cli]") {
  const auto native = temp_file("milli.csv", "job_id,submit_s,num_gpus,duration_s,gpu_milli\na,0,1,10,500\nb,0,1,10,1001\n");
  auto r = test::run_cli("run -q --trace " + native);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("milli.csv:3: field 'gpu_milli'"));
  const std::string openb_header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
  const auto pods = temp_file("pods.csv", openb_header + "a,1,1,1,500,,LS,Succeeded,0,10,0\nb,1,1,1,-1,,LS,Succeeded,0,10,0\n");
  r = test::run_cli("run -q --trace " + pods);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("pods.csv:3: field 'gpu_milli'"));
  r = test::run_cli("run -q --share-slowdown 1");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--share-slowdown"));
  std::filesystem::remove_all(temp_dir());
}

TEST_CASE("fractional: OpenB sharing pods keep their fraction", "[fractional][trace][openb]") {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
  Workload w = read_alibaba_openb_trace("pods.csv", header + "s,1,1,1,460,,LS,Succeeded,0,10,0\n"
                                                             "z,1,1,1,0,,LS,Succeeded,0,10,0\n"
                                                             "m,1,1,2,500,,LS,Succeeded,0,10,0\n");
  REQUIRE(w.jobs.size() == 3);
  for (const JobSpec& j : w.jobs) {
    if (j.id == "s") CHECK(j.gpu_milli == 460);
    if (j.id == "z") CHECK(j.gpu_milli == 1000);  // gpu_milli 0 on a GPU pod: a whole GPU, noted
    if (j.id == "m") CHECK(j.gpu_milli == 1000);  // a fraction on 2 GPUs: whole GPUs, noted
  }
}

TEST_CASE("fractional: the utilisation CSV and the timeline count busy GPUs in fractions", "[fractional][timeline]") {
  const Cluster cluster = test::homogeneous_cluster(1, 2);
  Workload w;
  w.source = w.format = "test";
  w.jobs = {share_job("A", 0, 250, 100), share_job("B", 0, 500, 100), duration_job("W", 0, 1, 50)};
  DurationModel model(cluster);
  auto policy = make_default_registry().make("fifo", {}, 0);
  ConsolidatePlacement placement;
  std::ostringstream csv, trace;
  UtilizationRecorder utilization(csv);
  TimelineRecorder timeline(trace, nullptr);
  JobEventSink* sinks[] = {&utilization, &timeline};
  const RunOutput out = simulate(cluster, w, model, *policy, placement, checked(), RunInfo{}, sinks);
  REQUIRE(out.summary.completed == 3);
  // t=0: W whole (1) + A and B sharing the other GPU (0.75); t=50: 0.75; t=100: none.
  CHECK(csv.str() ==
        "time_s,busy_gpus,total_gpus,utilization,queued_jobs,running_jobs,busy_gpu\n"
        "0.000000,1.750,2,0.875000,0,3,1.750\n"
        "50.000000,0.750,2,0.375000,0,2,0.750\n"
        "100.000000,0,2,0.000000,0,0,0\n");
  CHECK_THAT(trace.str(), Catch::Contains(R"("name":"busy GPUs","pid":0,"tid":0,"ts":0,"args":{"gpu":1.750})"));
  // (0.25 + 0.5) x 100 + 1 x 50 = 125 GPU-s of 2 GPUs x 100 s.
  CHECK(out.summary.utilization == Approx(125.0 / 200.0));
}

TEST_CASE("fractional: 'GPU shares sum to at most 1' fails on a crafted over-full GPU", "[fractional][invariants]") {
  const Cluster cluster = test::homogeneous_cluster(1, 2);
  Workload w;
  w.jobs = {share_job("a", 0, 600, 100), share_job("b", 0, 500, 100), duration_job("c", 0, 1, 100)};
  DurationModel model(cluster);
  std::vector<JobRuntime> jobs(3);
  for (std::size_t i = 0; i < 3; ++i) {
    jobs[i].spec = &w.jobs[i];
    jobs[i].index = static_cast<JobIndex>(i);
  }
  InvariantChecker checker(cluster, model, 3, ProgressKind::Exact, 0.0);
  auto started = [&](double t_s, JobIndex j, const std::vector<GpuId>& gpus) {
    JobEvent e;
    e.time = SimTime::from_seconds(t_s);
    e.kind = JobEventKind::Started;
    e.job = j;
    e.spec = jobs[static_cast<std::size_t>(j)].spec;
    e.gpus = gpus;
    checker.on_event(e, jobs[static_cast<std::size_t>(j)]);
  };
  const std::vector<GpuId> g0{0}, g1{1};
  started(0, 0, g0);
  CHECK_THROWS_WITH(started(5, 1, g0), "invariant 'GPU shares sum to at most 1' violated at t=5.000000 s: job b's "
                                       "500/1000 brings the shares of GPU n0/g0 to 1100/1000");
  started(6, 2, g1);  // c holds g1 whole
  CHECK_THROWS_WITH(started(7, 1, g1), Catch::Contains("job b shares GPU n0/g1, which job c holds whole"));
  // A whole job on a shared GPU.
  CHECK_THROWS_WITH(started(8, 2, g0), Catch::Contains("no GPU held twice") &&
                                           Catch::Contains("job c holds GPU n0/g0, which 1 fractional jobs share"));
}

TEST_CASE("fractional: preemptive policies and a horizon keep the books with checks on", "[fractional][invariants]") {
  // Random mixes of whole and fractional jobs on 2 x 2 GPUs under policies that share (fifo, srtf,
  // las, edf) and that give whole GPUs (srsf, afs): every job ends once, shares never overfill a
  // GPU (the checker runs throughout).
  PyRandom rng(7);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 0; i < 60; ++i) {
    t += static_cast<double>(rng.randbelow(40));
    const double len = 20.0 + static_cast<double>(rng.randbelow(300));
    if (rng.randbelow(2) == 0)
      jobs.push_back(share_job(fmt::format("s{}", i), t, 100 * static_cast<int>(1 + rng.randbelow(9)), len));
    else
      jobs.push_back(duration_job(fmt::format("w{}", i), t, 1 + static_cast<int>(rng.randbelow(2)), len));
  }
  for (const char* policy : {"fifo", "srtf", "las", "edf", "srsf", "afs"}) {
    for (double slowdown : {0.0, 0.3}) {
      INFO(policy << " slowdown " << slowdown);
      auto out = test::run_jobs(test::homogeneous_cluster(2, 2), jobs, policy, checked(slowdown));
      CHECK(out.summary.completed == jobs.size());
      REQUIRE(out.summary.utilization);
      CHECK(*out.summary.utilization <= 1.0);
      MechanismConfig until = checked(slowdown);
      until.until_s = 400.0;
      auto cut = test::run_jobs(test::homogeneous_cluster(2, 2), jobs, policy, until);
      CHECK(cut.summary.completed + cut.summary.unfinished == jobs.size());
    }
  }
}
