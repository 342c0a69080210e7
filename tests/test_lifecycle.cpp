// The one job lifecycle (sched/JobTable) seen through both mechanisms: restart overhead charged and
// reported the same way, preemption counts, the horizon, zero-work and rejected jobs; the event
// mechanism's refusal of bad decisions; and the round clock at a large time offset.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fmt/format.h>

#include "hetsim/metrics/recorder.hpp"
#include "hetsim/perf/type_constraint.hpp"
#include "hetsim/sched/gavel_mechanism.hpp"
#include "sim_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

Workload workload_of(std::vector<JobSpec> jobs) {
  Workload w;
  w.jobs = std::move(jobs);
  w.source = w.format = "test";
  return w;
}

// Runs `jobs` under the round mechanism with allocation policy `policy` and rounds of `round_s`.
RunOutput run_rounds(const Cluster& cluster, std::vector<JobSpec> jobs, const std::string& policy, double round_s,
                     double restart_overhead_s = 0.0, std::optional<double> until_s = std::nullopt,
                     const PolicyParams& params = {}) {
  Workload w = workload_of(std::move(jobs));
  DurationModel model(cluster);
  auto p = make_default_registry().make_allocation(policy, params, 0);
  GavelConfig config;
  config.round_s = round_s;
  config.restart_overhead_s = restart_overhead_s;
  config.until_s = until_s;
  return simulate_gavel(cluster, w, model, *p, config,
                        RunInfo{cluster.name(), "test", "test", policy, "", "duration", 0, ""});
}

MechanismConfig with_overhead(double restart_overhead_s, std::optional<double> until_s = std::nullopt) {
  MechanismConfig c;
  c.restart_overhead_s = restart_overhead_s;
  c.until_s = until_s;
  return c;
}

}  // namespace

TEST_CASE("restart overhead: charged and reported the same under the event and the round mechanism") {
  Cluster c = homogeneous_cluster(1, 1);
  // One 1,000 s job on one GPU, 500 s restart overhead: JCT 1500 and restart_s 500 under both,
  // though the overhead is longer than a 360 s round (it spans two rounds).
  RunOutput event = run_jobs(c, {duration_job("a", 0, 1, 1000)}, "fifo", with_overhead(500));
  RunOutput rounds = run_rounds(c, {duration_job("a", 0, 1, 1000)}, "gavel-maxmin", 360, 500);
  for (const RunOutput* out : {&event, &rounds}) {
    const JobRecord& r = record(*out, "a");
    CHECK(r.status == JobStatus::Completed);
    CHECK(r.jct_s() == Approx(1500.0).margin(1e-6));
    CHECK(r.restart_s == Approx(500.0).margin(1e-6));
    CHECK(r.restarts == 1);
  }
  // The job's own overhead (JobSpec::restart_overhead_s) wins over the run's, under both.
  JobSpec own = duration_job("b", 0, 1, 1000);
  own.restart_overhead_s = 100;
  RunOutput event_own = run_jobs(c, {own}, "fifo", with_overhead(500));
  RunOutput rounds_own = run_rounds(c, {own}, "gavel-maxmin", 360, 500);
  for (const RunOutput* out : {&event_own, &rounds_own}) {
    CHECK(record(*out, "b").jct_s() == Approx(1100.0).margin(1e-6));
    CHECK(record(*out, "b").restart_s == Approx(100.0).margin(1e-6));
  }
}

TEST_CASE("preemption counts: srtf preempts a long job once for a short one") {
  Cluster c = homogeneous_cluster(1, 1);
  // a: 100 s from 0; b: 10 s at 10 -> a is preempted at 10, b runs [10, 20], a resumes: JCT 110.
  RunOutput out = run_jobs(c, {duration_job("a", 0, 1, 100), duration_job("b", 10, 1, 10)}, "srtf");
  CHECK(record(out, "a").preemptions == 1);
  CHECK(record(out, "a").jct_s() == Approx(110.0));
  CHECK(record(out, "b").preemptions == 0);
  CHECK(record(out, "b").jct_s() == Approx(10.0));
}

TEST_CASE("round mechanism: two jobs time-share one GPU and each loss of the GPU is a preemption") {
  Cluster c = homogeneous_cluster(1, 1);
  // max-min fairness gives each job half the GPU; rounds alternate a, b, a, b... 100 s rounds.
  // a: 300 s of work, b: 300 s: a runs rounds 1, 3, 5 (done at 500), b rounds 2, 4, 6 (done at 600).
  RunOutput out = run_rounds(c, {duration_job("a", 0, 1, 300), duration_job("b", 0, 1, 300)}, "gavel-maxmin", 100);
  const JobRecord& a = record(out, "a");
  const JobRecord& b = record(out, "b");
  CHECK(a.jct_s() + b.jct_s() == Approx(1100.0));
  CHECK(a.preemptions + b.preemptions == 4);  // a at 100 and 300, b at 200 and 400
  CHECK(a.restarts == 0);  // no overhead set: nothing charged
}

TEST_CASE("round mechanism: every LP policy, on Clp and grouped, time-shares two equal jobs half and half") {
  // Two equal 300 s jobs on one GPU: each LP's optimum is unique, x = 1/2 each (max-min, the fair
  // tie-break of the total, the makespan, and rho), so rounds alternate as in the test above:
  // one done at 500 s, the other at 600 s, whatever the solver; group=true puts both in one group.
  Cluster c = homogeneous_cluster(1, 1);
  const std::vector<JobSpec> jobs{duration_job("a", 0, 1, 300), duration_job("b", 0, 1, 300)};
  for (const char* policy : {"gavel-maxmin", "gavel-throughput", "gavel-makespan", "gavel-ftf"})
    for (const char* solver : {"glpk", "clp"})
      for (const char* group : {"false", "true"}) {
        INFO(policy << " solver=" << solver << " group=" << group);
        RunOutput out = run_rounds(c, jobs, policy, 100, 0.0, std::nullopt, {{"solver", solver}, {"group", group}});
        // Which job goes first is the priority rule's tie (gavel-ftf's X is equal only within its
        // bisection tolerance, so b can lead): one finishes at 500 s, the other at 600 s.
        const double ja = record(out, "a").jct_s(), jb = record(out, "b").jct_s();
        CHECK(std::min(ja, jb) == Approx(500.0));
        CHECK(std::max(ja, jb) == Approx(600.0));
      }
}

TEST_CASE("horizon: running and waiting jobs end unfinished, later arrivals say so, under both mechanisms") {
  Cluster c = homogeneous_cluster(1, 1);
  std::vector<JobSpec> jobs{duration_job("run", 0, 1, 1000), duration_job("wait", 10, 1, 10),
                            duration_job("late", 500, 1, 10)};
  RunOutput event = run_jobs(c, jobs, "fifo", with_overhead(0, 400));
  RunOutput rounds = run_rounds(c, jobs, "fifo", 360, 0, 400);
  for (const RunOutput* out : {&event, &rounds}) {
    CHECK(record(*out, "run").status == JobStatus::Unfinished);
    CHECK(record(*out, "run").reason == "not finished at the --until horizon");
    CHECK(record(*out, "wait").status == JobStatus::Unfinished);
    CHECK(record(*out, "wait").reason == "not finished at the --until horizon");
    CHECK(record(*out, "late").status == JobStatus::Unfinished);
    CHECK(record(*out, "late").reason == "arrives after the --until horizon");
    CHECK(out->stats.end.seconds() == 400.0);
  }
}

TEST_CASE("zero-work and rejected jobs: same outcome under both mechanisms, nothing dropped") {
  Cluster c = homogeneous_cluster(1, 2);
  std::vector<JobSpec> jobs{duration_job("zero", 0, 1, 0), duration_job("huge", 0, 4, 10),
                            duration_job("ok", 5, 1, 20)};
  RunOutput event = run_jobs(c, jobs, "fifo");
  RunOutput rounds = run_rounds(c, jobs, "fifo", 360);
  for (const RunOutput* out : {&event, &rounds}) {
    REQUIRE(out->records.size() == 3);
    CHECK(record(*out, "zero").status == JobStatus::Completed);
    CHECK(record(*out, "zero").jct_s() == 0.0);
    CHECK(record(*out, "huge").status == JobStatus::Rejected);
    CHECK_THAT(record(*out, "huge").reason, Catch::Contains("requests 4 GPUs"));
    CHECK(record(*out, "ok").jct_s() == Approx(20.0).margin(1e-6));
  }
}

namespace {

// A policy that makes every mistake the mechanism must refuse, then one good decision.
class BadPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "bad"; }
  Decision schedule(const PolicyView& view) override {
    Decision d;
    if (view.pending().size() < 2) return d;
    const JobIndex a = *view.pending().begin(), b = *std::next(view.pending().begin());
    d.preempt.push_back(a);                              // not running
    d.allocate.push_back({99, 0, 1, {}, 0});             // unknown job
    d.allocate.push_back({a, 0, 1, {0}, 0});             // exact GPU 0 ...
    d.allocate.push_back({b, 0, 1, {0}, 0});             // ... given twice
    d.allocate.push_back({a, 0, 1, {}, 0});              // the same job twice
    return d;
  }
};

class GreedyPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "greedy"; }
  Decision schedule(const PolicyView& view) override {
    Decision d;
    // Asks for more GPUs than are free, and for a type on which the model gives rate 0.
    for (JobIndex j : view.pending()) d.allocate.push_back({j, view.job(j).spec->id == "slow" ? 1 : 0, 2, {}, 0});
    return d;
  }
};

}  // namespace

TEST_CASE("the event mechanism refuses bad decisions, says why, and keeps every job") {
  Cluster c = homogeneous_cluster(1, 2);
  Workload w = workload_of({duration_job("a", 0, 1, 10), duration_job("b", 0, 1, 10)});
  DurationModel model(c);
  ConsolidatePlacement placement;
  BadPolicy policy;
  RunRecorder rec(c, w.jobs.size());
  Mechanism m(c, w, model, policy, placement, MechanismConfig{}, {&rec});
  MechanismStats stats = m.run();
  REQUIRE(stats.warnings.size() == 4);
  CHECK(stats.refused_requests == 4);
  CHECK_THAT(stats.warnings[0], Catch::Contains("preempt of job index 0 which is not running"));
  CHECK_THAT(stats.warnings[1], Catch::Contains("allocation for unknown job index 99"));
  CHECK_THAT(stats.warnings[2], Catch::Contains("job a allocated twice in one decision"));
  CHECK_THAT(stats.warnings[3], Catch::Contains("job b: requested GPUs are out of range, repeated or not free"));
  // a got GPU 0; b never ran and is reported, not dropped.
  CHECK(rec.records()[0].status == JobStatus::Completed);
  CHECK(rec.records()[1].status == JobStatus::Unfinished);
}

TEST_CASE("the event mechanism refuses more GPUs than free and GPUs where the rate is 0") {
  // Job "slow" may run on type "fast" only, so its rate on type "slow" is 0; 2 GPUs of each type.
  std::vector<Node> nodes{Node{"n0", 0, 2, 0, 0}, Node{"n1", 1, 2, 0, 0}};
  Cluster c("t", {GpuType{"fast", 0.0, 1.0}, GpuType{"slow", 0.0, 1.0}}, {Rack{"r0"}}, nodes);
  JobSpec slow = duration_job("slow", 0, 2, 10);
  slow.allowed_gpu_types = {"fast"};
  Workload w = workload_of({duration_job("a", 0, 2, 10), duration_job("b", 0, 2, 10), slow});
  TypeConstrainedModel model(std::make_unique<DurationModel>(c), c);
  ConsolidatePlacement placement;
  GreedyPolicy policy;
  RunRecorder rec(c, w.jobs.size());
  Mechanism m(c, w, model, policy, placement, MechanismConfig{}, {&rec});
  MechanismStats stats = m.run();
  REQUIRE(stats.warnings.size() >= 2);
  CHECK_THAT(stats.warnings[0], Catch::Contains("job b: 2 GPUs of type fast requested but only 0 free"));
  CHECK_THAT(stats.warnings[1], Catch::Contains("job slow: zero throughput on the requested GPUs"));
  CHECK(rec.records()[0].jct_s() == Approx(10.0));
  CHECK(rec.records()[1].jct_s() == Approx(20.0));  // refused at 0, placed when a finished
}

TEST_CASE("rounds keep exact time at a 1e9 s offset: a 10 s job takes exactly 10 s") {
  Cluster c = homogeneous_cluster(1, 1);
  for (double round_s : {0.1, 0.3, 0.7}) {
    INFO("round " << round_s);
    RunOutput rounds = run_rounds(c, {duration_job("a", 1e9, 1, 10)}, "gavel-maxmin", round_s);
    const JobRecord& r = record(rounds, "a");
    CHECK(r.finish_s - r.submit_s == 10.0);
    MechanismConfig config;
    config.interval_s = round_s;
    RunOutput event = run_jobs(c, {duration_job("a", 1e9, 1, 10)}, "fifo", config);
    CHECK(record(event, "a").jct_s() == 10.0);
  }
}

TEST_CASE("round limit: a run that takes more rounds than max_rounds stops with an error naming --interval") {
  // Two 40 s jobs on one GPU: each alone needs 40 rounds of 1 s, together 80 (they share or queue).
  Cluster c = homogeneous_cluster(1, 1);
  const std::vector<JobSpec> jobs{duration_job("a", 0, 1, 40), duration_job("b", 0, 1, 40)};
  MechanismConfig mech;
  mech.interval_s = 1.0;
  mech.max_rounds = 100;
  CHECK(record(run_jobs(c, jobs, "fifo", mech), "b").jct_s() == Approx(80.0));
  mech.max_rounds = 60;
  CHECK_THROWS_WITH(run_jobs(c, jobs, "fifo", mech),
                    Catch::Contains("field '--interval': the run took more than 60 rounds of 1 s (simulated time 60 s)"));
  Workload w = workload_of(jobs);
  DurationModel model(c);
  auto p = make_default_registry().make_allocation("gavel-maxmin", {}, 0);
  GavelConfig config;
  config.round_s = 1.0;
  config.max_rounds = 60;
  CHECK_THROWS_WITH(simulate_gavel(c, w, model, *p, config, RunInfo{c.name(), "test", "test", "gavel-maxmin", "", "duration", 0, ""}),
                    Catch::Contains("the run took more than 60 rounds of 1 s"));
}
