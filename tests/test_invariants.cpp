// The run invariants (include/hetsim/sched/invariants.hpp): each rule made to fail on a crafted
// state, with its message; and clean runs with the checks on, over every registered policy under
// both mechanisms and over the real traces the other tests use.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "hetsim/experiment/compare.hpp"
#include "hetsim/experiment/sweep.hpp"
#include "hetsim/sched/invariants.hpp"
#include "hetsim/sched/job_table.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/py_random.hpp"
#include "sim_fixtures.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
using test::duration_job;

namespace {

// A JobTable over a tiny cluster and workload with the checks on, driven by hand as a mechanism
// would drive it (or as a broken one would).
struct Table {
  Cluster cluster = test::homogeneous_cluster(2, 4);
  Workload workload;
  DurationModel model{cluster};
  std::unique_ptr<JobTable> table;
  explicit Table(std::vector<JobSpec> jobs, ProgressKind progress = ProgressKind::Exact) {
    workload.jobs = std::move(jobs);
    LifecycleConfig config;
    config.check_invariants = true;
    config.progress = progress;
    table = std::make_unique<JobTable>(cluster, workload, model, config, std::vector<JobEventSink*>{});
  }
  JobTable& operator*() { return *table; }
  JobTable* operator->() { return table.get(); }
};

SimTime at(double s) { return SimTime::from_seconds(s); }

// A crafted event (as a broken mechanism might emit it).
JobEvent event(double t_s, JobEventKind kind, JobIndex j, const JobRuntime& job, std::span<const GpuId> gpus) {
  JobEvent e;
  e.time = at(t_s);
  e.kind = kind;
  e.job = j;
  e.spec = job.spec;
  e.gpus = gpus;
  return e;
}

// What a correct mechanism does to finish job j at `now` after it ran from its start on.
void complete(JobTable& t, JobIndex j, double now_s) {
  t.job(j).remaining_work = 0.0;
  t.finish(j, at(now_s));
}

}  // namespace

TEST_CASE("invariants: a violation names the rule, the time and the job") {
  const InvariantViolation v("no GPU held twice", at(123), "job j7 and job j9 both hold GPU n0/g3");
  CHECK(std::string(v.what()) ==
        "invariant 'no GPU held twice' violated at t=123.000000 s: job j7 and job j9 both hold GPU n0/g3");
  CHECK(v.rule() == "no GPU held twice");
  CHECK(v.at() == at(123));
  // An internal error, never an input error (main maps it to exit code 1).
  CHECK(dynamic_cast<const std::logic_error*>(&v) != nullptr);
}

TEST_CASE("invariants: 'no GPU held twice' fails when a Started event names a held GPU") {
  Table t({duration_job("j7", 0, 1, 100), duration_job("j9", 0, 1, 100)});
  InvariantChecker checker(t.cluster, t.model, 2, ProgressKind::Exact, 0.0);
  const JobRuntime& j7 = t->job(0);
  const JobRuntime& j9 = t->job(1);
  const std::vector<GpuId> gpu3{3}, gpu4{4};
  checker.on_event(event(100, JobEventKind::Started, 0, j7, gpu3), j7);
  checker.on_event(event(110, JobEventKind::Started, 1, j9, gpu4), j9);  // another GPU: fine
  CHECK(checker.gpu_name(4) == "GPU n1/g0");
  CHECK_THROWS_WITH(checker.on_event(event(123, JobEventKind::Started, 1, j9, gpu3), j9),
                    "invariant 'no GPU held twice' violated at t=123.000000 s: job j7 and job j9 both hold GPU n0/g3");
  const std::vector<GpuId> twice{5, 5};
  InvariantChecker fresh(t.cluster, t.model, 2, ProgressKind::Exact, 0.0);
  CHECK_THROWS_WITH(fresh.on_event(event(1, JobEventKind::Started, 0, j7, twice), j7),
                    Catch::Contains("job j7 holds GPU n1/g1 twice"));
}

TEST_CASE("invariants: 'GPUs held = sum of allocations' fails when an allocation and the cluster state disagree") {
  Table t({duration_job("a", 0, 2, 100), duration_job("b", 0, 1, 100)});
  t->arrive(0, at(0));
  t->arrive(1, at(0));
  t->start(0, {0, 1}, 1.0, at(0));
  t->end_pass(at(0));  // consistent: no throw
  t->start(1, {2}, 1.0, at(10));
  SECTION("consistent") { CHECK_NOTHROW(t->end_pass(at(10))); }
  SECTION("a job's allocation names a GPU the cluster state gives to nobody") {
    t->job(1).gpus = {5};
    CHECK_THROWS_WITH(t->end_pass(at(10)),
                      "invariant 'GPUs held = sum of allocations' violated at t=10.000000 s: job b's allocation has "
                      "GPU n1/g1, which the cluster state gives to nobody and its events to nobody");
  }
  SECTION("a running job lost its GPUs without an event") {
    t->job(1).gpus.clear();
    CHECK_THROWS_WITH(t->end_pass(at(10)), Catch::Contains("job b is running with 0 GPUs and is in the running set"));
  }
  SECTION("a job left the running state without an event") {
    t->job(1).status = JobStatus::Pending;
    CHECK_THROWS_WITH(t->end_pass(at(10)),
                      Catch::Contains("1 running jobs hold 2 GPUs, the cluster state counts 3 in use and 2 jobs running, "
                                      "the events gave out 3"));
  }
  SECTION("a Stopped event releases a GPU the job does not hold") {
    InvariantChecker checker(t.cluster, t.model, 2, ProgressKind::Exact, 0.0);
    const std::vector<GpuId> gpus{6};
    CHECK_THROWS_WITH(checker.on_event(event(5, JobEventKind::Stopped, 0, t->job(0), gpus), t->job(0)),
                      Catch::Contains("job a stopped and released GPU n1/g2, which it did not hold"));
  }
}

TEST_CASE("invariants: 'work done = integral of rate' fails when a job completes early or late") {
  // Duration model, speed 1: a 100 s job does 1 work unit per second on one GPU.
  Table t({duration_job("early", 0, 1, 100), duration_job("late", 0, 1, 100), duration_job("ok", 0, 1, 100)});
  for (JobIndex j = 0; j < 3; ++j) t->arrive(j, at(0));
  t->start(0, {0}, 1.0, at(0));
  t->start(1, {1}, 1.0, at(0));
  t->start(2, {2}, 1.0, at(0));
  t->stop(2, at(40), StopReason::Preempted);  // 40 units, then 60 more after a 10 s wait
  t->start(2, {3}, 1.0, at(50));
  complete(*t, 2, 110);
  CHECK(t->invariants()->integrated_work(2) == Approx(100.0).epsilon(1e-12));
  CHECK_THROWS_WITH(complete(*t, 0, 50),
                    "invariant 'work done = integral of rate' violated at t=50.000000 s: job early completed with 50 "
                    "work units done by the integral of its rate over 1 allocation(s), but its work is 100 "
                    "(tolerance 0.000102)");
  CHECK_THROWS_WITH(complete(*t, 1, 100.001), Catch::Contains("job late completed with 100.001 work units"));
}

TEST_CASE("invariants: the work rule's tolerance is 1e-6 relative plus one microsecond of rate per allocation") {
  Table t({duration_job("a", 0, 1, 1000), duration_job("b", 0, 1, 1000)});
  t->arrive(0, at(0));
  t->arrive(1, at(0));
  t->start(0, {0}, 1.0, at(0));
  t->start(1, {1}, 1.0, at(0));
  // Tolerance 1e-6 * 1000 + 1 * 1e-6 * 2 = 0.001002 units: 1000.001 s is inside, 1000.0011 s outside.
  CHECK_NOTHROW(complete(*t, 0, 1000.001));
  CHECK_THROWS_WITH(complete(*t, 1, 1000.0011), Catch::Contains("tolerance 0.001"));
}

TEST_CASE("invariants: the restart overhead and profiling time are no progress") {
  Cluster c = test::homogeneous_cluster(1, 2);
  Workload w;
  JobSpec j = duration_job("r", 0, 1, 100);
  j.restart_overhead_s = 30;
  w.jobs = {j};
  DurationModel model(c);
  LifecycleConfig config{0.0, 20.0, true, ProgressKind::Exact};
  JobTable t(c, w, model, config, {});
  t.arrive(0, at(0));
  t.start(0, {0}, 1.0, at(0));  // progress from 50 s on (30 s restart + 20 s profiling)
  CHECK_THROWS_WITH(complete(t, 0, 100), Catch::Contains("job r completed with 50 work units"));
}

TEST_CASE("invariants: under Gavel's whole steps the integral may exceed the work by one step per round held") {
  Table t({duration_job("g", 0, 1, 100), duration_job("h", 0, 1, 100)}, ProgressKind::WholeSteps);
  t->arrive(0, at(0));
  t->arrive(1, at(0));
  t->start(0, {0}, 1.0, at(0));
  t->start(1, {1}, 1.0, at(0));
  t->end_pass(at(0));  // round 1
  t->end_pass(at(60));  // round 2: each has held 2 rounds
  // Whole steps: the leftover check belongs to the round's end, not to the completion.
  t->job(0).remaining_work = 7.0;
  CHECK_NOTHROW(t->finish(0, at(101.5)));  // 1.5 idle steps <= 2 rounds
  CHECK_THROWS_WITH(complete(*t, 1, 102.5),
                    Catch::Contains("job h completed with 102.5 work units") && Catch::Contains("plus up to 2 idle steps"));
}

TEST_CASE("invariants: 'no leftover at completion' fails when the mechanism's remaining work is not zero") {
  Table t({duration_job("left", 0, 1, 100)});
  t->arrive(0, at(0));
  t->start(0, {0}, 1.0, at(0));
  t->job(0).remaining_work = 5.0;  // the mechanism did not bring progress up to date
  CHECK_THROWS_WITH(t->finish(0, at(100)),
                    "invariant 'no leftover at completion' violated at t=100.000000 s: job left completed with 5 of its "
                    "100 work units left (tolerance 0.000102)");
}

TEST_CASE("invariants: 'no job finished twice' fails on a second final event") {
  Table t({duration_job("twice", 0, 1, 100), duration_job("gone", 0, 1, 0), duration_job("no", 0, 99, 10)});
  t->arrive(0, at(0));
  t->start(0, {0}, 1.0, at(0));
  complete(*t, 0, 100);
  CHECK_THROWS_WITH(complete(*t, 0, 200),
                    "invariant 'no job finished twice' violated at t=200.000000 s: job twice completed after it "
                    "completed at t=100.000000 s");
  CHECK(t->arrive(1, at(5)) == Admission::CompletedAtArrival);  // no work: completed at once
  CHECK_THROWS_WITH(t->start(1, {2}, 1.0, at(6)), Catch::Contains("job gone started after it completed at t=5.000000 s"));
  CHECK(t->arrive(2, at(7)) == Admission::Rejected);  // 99 GPUs on an 8-GPU cluster
  CHECK_THROWS_WITH(t->start(2, {1}, 1.0, at(8)),
                    Catch::Contains("job no started after it was rejected at t=7.000000 s"));
}

TEST_CASE("invariants: 'every job accounted for' fails on a job with no final event, and on summary counts") {
  Table t({duration_job("done", 0, 1, 10), duration_job("lost", 0, 1, 10)});
  t->arrive(0, at(0));
  t->arrive(1, at(0));
  t->start(0, {0}, 1.0, at(0));
  complete(*t, 0, 10);
  CHECK_THROWS_WITH(t->end_run(at(10)),
                    "invariant 'every job accounted for' violated at t=10.000000 s: job lost was read but has no final "
                    "event (completed, rejected or unfinished)");
  RunSummary s;
  s.jobs_read = 3;
  s.completed = 2;
  s.unfinished = 1;
  CHECK_NOTHROW(check_summary_invariants(s, FinalEventCounts{2, 0, 1}, at(50)));
  CHECK_THROWS_WITH(check_summary_invariants(s, FinalEventCounts{2, 1, 0}, at(50)),
                    "invariant 'every job accounted for' violated at t=50.000000 s: the summary counts 3 jobs read = 2 "
                    "completed + 0 rejected + 1 unfinished, but the final events are 2 completed + 1 rejected + 0 "
                    "unfinished");
  s.jobs_read = 4;  // a job counted by subtraction, with no event of its own
  CHECK_THROWS_WITH(check_summary_invariants(s, FinalEventCounts{2, 0, 1}, at(50)), Catch::Contains("4 jobs read"));
}

TEST_CASE("invariants: 'utilisation in [0,1]' fails on the summary's utilisation, in all or per type") {
  RunSummary s;
  s.utilization = 1.0;
  s.utilization_by_type = {{"k80", 0.0}, {"v100", 1.0}};
  CHECK_NOTHROW(check_summary_invariants(s, {}, at(1)));
  s.utilization = 1.2;
  CHECK_THROWS_WITH(check_summary_invariants(s, {}, at(1)),
                    "invariant 'utilisation in [0,1]' violated at t=1.000000 s: utilisation is 1.2");
  s.utilization = 0.5;
  s.utilization_by_type["k80"] = -0.01;
  CHECK_THROWS_WITH(check_summary_invariants(s, {}, at(1)), Catch::Contains("utilisation of k80 is -0.01"));
}

TEST_CASE("invariants: on by default in debug and sanitizer builds, off in Release unless asked") {
#if !defined(NDEBUG) || defined(HETSIM_SANITIZE)
  CHECK(MechanismConfig{}.check_invariants);
  CHECK(GavelConfig{}.check_invariants);
#else
  CHECK_FALSE(MechanismConfig{}.check_invariants);
  CHECK_FALSE(GavelConfig{}.check_invariants);
#endif
  Table on({duration_job("a", 0, 1, 10)});
  CHECK(on->invariants() != nullptr);
  Cluster c = test::homogeneous_cluster(1, 1);
  Workload w;
  w.jobs = {duration_job("a", 0, 1, 10)};
  DurationModel model(c);
  LifecycleConfig off;
  off.check_invariants = false;
  JobTable t(c, w, model, off, {});
  CHECK(t.invariants() == nullptr);
  // With the checks off nothing is checked: a broken lifecycle goes unnoticed.
  t.arrive(0, at(0));
  t.start(0, {0}, 1.0, at(0));
  CHECK_NOTHROW(complete(t, 0, 1));
}

namespace {

// random_duration_workload plus a job that completes at arrival and one that is rejected.
Workload random_workload(std::uint64_t seed, int jobs) {
  Workload w = test::random_duration_workload(seed, jobs);
  const double t = w.jobs.empty() ? 0.0 : w.jobs.back().submit.seconds();
  w.jobs.push_back(duration_job("empty", t, 1, 0.0));   // completes at arrival
  w.jobs.push_back(duration_job("huge", t, 64, 10.0));  // rejected: more GPUs than the cluster has
  return w;
}

// The checks ran to the end: the summary's counts were compared with the final events.
void require_checked(const RunOutput& out) {
  REQUIRE(out.stats.checked_final_events.has_value());
  const FinalEventCounts& f = *out.stats.checked_final_events;
  CHECK(f.completed + f.rejected + f.unfinished == out.summary.jobs_read);
  CHECK(f.completed == out.summary.completed);
  CHECK(f.unfinished == out.summary.unfinished);
}

}  // namespace

TEST_CASE("invariants hold for every registered policy, both mechanisms, rounds, restarts and a horizon") {
  const Cluster c = test::fast_slow_cluster();
  DurationModel model(c);
  const PolicyRegistry registry = make_default_registry();
  const Workload w = random_workload(5, 14);
  ConsolidatePlacement placement;
  int runs = 0;
  for (const PolicyInfo& info : registry.all()) {
    for (double restart_s : {0.0, 25.0}) {
      for (std::optional<double> until_s : {std::optional<double>{}, std::optional<double>{1500.0}}) {
        INFO("policy " << info.name << " restart " << restart_s << " until " << until_s.value_or(-1));
        RunInfo run_info{c.name(), "test", "test", info.name, "consolidate", "duration", 3, ""};
        if (info.make) {
          for (double interval_s : {0.0, 60.0}) {
            MechanismConfig config;
            config.check_invariants = true;
            config.restart_overhead_s = restart_s;
            config.until_s = until_s;
            config.interval_s = interval_s;
            auto policy = registry.make(info.name, {}, 3);
            try {
              require_checked(simulate(c, w, model, *policy, placement, config, run_info));
              ++runs;
            } catch (const InputError& e) {
              // Goodput policies plan with the Pollux/Sia model only (run on a real workload below).
              REQUIRE_THAT(e.what(), Catch::Contains("needs a Pollux/Sia workload"));
            }
          }
        }
        if (info.make_allocation) {
          GavelConfig config;
          config.check_invariants = true;
          config.restart_overhead_s = restart_s;
          config.until_s = until_s;
          auto policy = registry.make_allocation(info.name, {}, 3);
          // (allox rejects the multi-GPU jobs at arrival and runs the rest: checked the same way.)
          require_checked(simulate_gavel(c, w, model, *policy, config, run_info));
          ++runs;
        }
      }
    }
  }
  CHECK(runs > 4 * 10);
}

namespace {

// Runs `spec` under each policy with the checks on; each run must end with its summary checked.
void run_checked(RunSpec spec, std::initializer_list<const char*> policies) {
  const PolicyRegistry registry = make_default_registry();
  spec.mechanism.check_invariants = true;
  for (const char* policy : policies) {
    INFO("trace " << spec.trace << spec.workload << " policy " << policy);
    spec.policy = policy;
    require_checked(run_simulation(spec, registry));
  }
}

}  // namespace

TEST_CASE("invariants hold on the suite's real Gavel and Heet traces (checks on)", "[data]") {
  auto tput = test::shared_data("gavel/simulation_throughputs.json");
  for (const char* name : {"small_test.trace", "max_min_fairness.trace"}) {
    auto trace = test::shared_data(std::string("gavel/traces/physical_cluster/") + name);
    if (!trace || !tput) continue;
    RunSpec spec;
    spec.cluster = "gavel-24";
    spec.trace = *trace;
    spec.throughputs = *tput;
    run_checked(spec, {"fifo", "srtf", "las", "gavel-maxmin", "gavel-ftf", "gavel-throughput", "afs"});
    spec.mechanism.restart_overhead_s = 10;
    spec.mechanism.until_s = 20000;
    run_checked(spec, {"las", "gavel-maxmin", "srsf"});
  }
  if (auto trace = test::shared_data("heet-prototype/trace.dat"), p = test::shared_data("heet-prototype/profiles.json");
      trace && p) {
    RunSpec spec;
    spec.cluster = "heet-12";
    spec.trace = *trace;
    spec.format = TraceFormat::Heet;
    spec.throughputs = *p;
    run_checked(spec, {"heet", "fifo"});
    spec.profiling = "cf";  // every job pays its profiling runs at its first start
    run_checked(spec, {"heet"});
  }
}

// The larger traces. Debug and sanitizer builds run every test with the checks on, so there the
// tests that read these traces (test_elastic, test_elasticflow_table, test_openb_itp_traces, ...) check them
// already; this case runs them in Release, where the checks are otherwise off.
TEST_CASE("invariants hold on the suite's real Pollux, ElasticFlow and OpenB traces (checks on)", "[data]") {
  if (kCheckInvariantsByDefault) {
    WARN("SKIPPED in this build: every test already runs with the invariant checks on");
    return;
  }
  if (auto wl = test::shared_data("pollux/workloads/workload-1.csv"); wl) {
    RunSpec spec;
    spec.cluster = "pollux-64";
    spec.workload = *wl;
    spec.mechanism.interval_s = 60;
    spec.mechanism.restart_overhead_s = 30;
    run_checked(spec, {"tiresias", "optimus", "pollux"});  // progress-dependent rates, batch sizes changed in place
  }
  auto trace = test::shared_data("elasticflow-itp/elasticflow-traces/195job.csv");
  auto profiles = test::shared_data("elasticflow-profiles");
  if (trace && profiles) {
    const std::string cluster_file =
        (std::filesystem::temp_directory_path() / ("hetsim-inv-a100-" + std::to_string(::getpid()) + ".json")).string();
    std::ofstream(cluster_file)
        << R"({"gpu_types": [{"name": "a100"}], "nodes": [{"gpu_type": "a100", "gpus": 8, "count": 16}]})";
    RunSpec spec;
    spec.cluster = cluster_file;
    spec.trace = *trace;
    spec.format = TraceFormat::ItpEf;
    spec.throughputs = *profiles;
    run_checked(spec, {"fifo"});
    std::filesystem::remove(cluster_file);
  }
  auto nodes = test::shared_data("alibaba-openb-2023/openb_node_list_gpu_node.csv");
  auto pods = test::shared_data("alibaba-openb-2023/openb_pod_list_gpuspec33.csv");
  if (nodes && pods) {
    RunSpec spec;
    spec.cluster = "alibaba-openb:" + *nodes;
    spec.trace = *pods;
    spec.format = TraceFormat::AlibabaOpenb;
    run_checked(spec, {"fifo"});
  }
}

namespace {

// A faulty policy (a fault injected from outside the mechanism): it starts jobs first come, first
// served, and adds 10 units to the remaining work of every job it sees running, as a mechanism that
// lost progress would. The checks must stop the run at the first completion.
class ProgressLosingPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "progress-losing"; }
  Decision schedule(const PolicyView& view) override {
    Decision d;
    for (JobIndex j : view.running()) {
      if (corrupted_.insert(j).second) const_cast<JobRuntime&>(view.job(j)).remaining_work += 10.0;
    }
    std::vector<int> free(view.state().cluster().gpu_types().size());
    for (std::size_t t = 0; t < free.size(); ++t) free[t] = view.state().free_of_type(static_cast<GpuTypeId>(t));
    for (JobIndex j : view.pending()) {
      const int n = view.job(j).spec->requested_gpus;
      for (std::size_t t = 0; t < free.size(); ++t) {
        if (free[t] < n) continue;
        free[t] -= n;
        d.allocate.push_back(AllocationRequest{j, static_cast<GpuTypeId>(t), n, {}, 0});
        break;
      }
    }
    return d;
  }

 private:
  std::set<JobIndex> corrupted_;
};

PolicyRegistry registry_with_faulty_policy() {
  PolicyRegistry registry = make_default_registry();
  PolicyInfo info;
  info.name = "progress-losing";
  info.summary = "test fault";
  info.source = "tests/test_invariants.cpp";
  info.make = [](const PolicyParams&, std::uint64_t) { return std::make_unique<ProgressLosingPolicy>(); };
  registry.add(std::move(info));
  return registry;
}

}  // namespace

TEST_CASE("invariants: a policy that corrupts progress stops run, compare and sweep with an internal error") {
  const PolicyRegistry registry = registry_with_faulty_policy();
  RunSpec spec;  // the built-in synthetic workload on the default cluster
  spec.policy = "progress-losing";
  spec.mechanism.check_invariants = false;
  CHECK_NOTHROW(run_simulation(spec, registry));  // unchecked, the fault goes unnoticed
  spec.mechanism.check_invariants = true;
  CHECK_THROWS_MATCHES(run_simulation(spec, registry), InvariantViolation,
                       Catch::Matchers::Predicate<InvariantViolation>(
                           [](const InvariantViolation& v) {
                             return v.rule() == "no leftover at completion" &&
                                    std::string(v.what()).find(" work units left") != std::string::npos;
                           },
                           "a leftover at completion"));
  // compare: not a failed policy (exit 4) but the internal error itself (exit 1), after every run.
  const std::vector<PolicyVariant> variants{{"fifo", "fifo", {}}, {"bad", "progress-losing", {}}};
  CHECK_THROWS_AS(compare_policies(spec, variants, registry, 2), InvariantViolation);
  // sweep: the point is recorded as failed with the message, the tables are written, then it throws.
  test::TempDir dir("invariants-sweep");
  ExperimentSpec experiment;
  experiment.name = "bad";
  ExperimentPoint point;
  point.index = 0;
  point.id = "bad";
  point.policy = "bad";
  point.run = spec;
  point.run.mechanism.check_invariants = false;  // turned on by the sweep option
  point.fingerprint = "{}";
  SweepOptions options;
  options.out_dir = dir.str();
  options.check_invariants = true;
  CHECK_THROWS_AS(run_sweep(experiment, {point}, registry, options), InvariantViolation);
  CHECK_THAT(test::slurp(dir.path / "points" / "bad" / "FAILED"), Catch::Contains("invariant 'no leftover at completion'"));
  CHECK(std::filesystem::exists(dir.path / "results.csv"));
}
