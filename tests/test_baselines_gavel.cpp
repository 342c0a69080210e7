// Gavel's baselines isolated and allox (docs/policies.md): X matrices solved by hand, AlloX's
// matching and alpha cut-off, its refusal of multi-GPU jobs, JCTs through the round mechanism, and
// isolated against Gavel's own simulator on a physical-cluster trace.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "hetsim/metrics/recorder.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/sched/gavel_mechanism.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "test_support.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

AllocationJob row(JobIndex job, std::vector<double> throughput, double remaining, double age_s = 0.0, int gpus = 1) {
  AllocationJob j;
  j.job = job;
  j.throughput = std::move(throughput);
  j.remaining_work = remaining;
  j.age_s = age_s;
  j.scale_factor = gpus;
  return j;
}

AllocationView view_of(std::vector<int> gpus, std::vector<AllocationJob> jobs) {
  AllocationView v;
  v.type_names = {"a", "b"};
  v.gpus_per_type = std::move(gpus);
  v.jobs = std::move(jobs);
  return v;
}

void check_matrix(const AllocationMatrix& x, const AllocationMatrix& want) {
  REQUIRE(x.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    for (std::size_t t = 0; t < want[i].size(); ++t) {
      INFO("x[" << i << "][" << t << "]");
      CHECK(x[i][t] == Approx(want[i][t]).margin(1e-12));
    }
}

// The AlloX example: types a, b with one GPU each; remaining steps 500, 250, 100; throughputs
// a 2.5, b 1 steps/s for every job, so processing times p(a) = 200, 100, 40 and p(b) = 500, 250, 100.
std::vector<AllocationJob> allox_jobs(double age0 = 0, double age1 = 0, double age2 = 0) {
  return {row(0, {2.5, 1}, 500, age0), row(1, {2.5, 1}, 250, age1), row(2, {2.5, 1}, 100, age2)};
}

}  // namespace

TEST_CASE("isolated: 1/N of every type, scaled by GPUs, rows normalised over every type as Gavel") {
  // G = [4, 2], N = 3. Job 0 (1 GPU): [4/3, 2/3], row sum 2 -> [2/3, 1/3]. Job 1 (2 GPUs):
  // [2/3, 1/3], row sum 1 -> kept. Job 2 (1 GPU, throughput 0 on b): [4/3, 2/3] / 2 = [2/3, 1/3],
  // then 0 on b -> [2/3, 0]. (The fallback isolated_allocation leaves b out of the row sum and
  // gives job 2 [1, 0].)
  AllocationView v = view_of({4, 2}, {row(0, {1, 1}, 10), row(1, {1, 1}, 10, 0, 2), row(2, {1, 0}, 10)});
  auto p = make_default_registry().make_allocation("isolated", {}, 0);
  CHECK_FALSE(p->fixed_type_order());
  CHECK_FALSE(p->skip_zero_priority());
  AllocationResult r = p->allocate(v);
  REQUIRE(r.ok);
  check_matrix(r.x, {{2.0 / 3, 1.0 / 3}, {2.0 / 3, 1.0 / 3}, {2.0 / 3, 0}});
  check_matrix(isolated_allocation(v), {{2.0 / 3, 1.0 / 3}, {2.0 / 3, 1.0 / 3}, {1, 0}});
}

TEST_CASE("allox: the min-cost matching of 3 jobs to 2 GPUs, by hand") {
  // Slot cost k * p (k = position from the end of a GPU's queue; ages 0). Every split of the jobs
  // between a and b, each GPU in shortest-first order (sum of completion times):
  //   a{0,1,2}: 40+140+340 = 520          a{0,1} b{2}: 100+300 + 100 = 500  <- unique optimum
  //   a{0,2} b{1}: 40+240 + 250 = 530     a{1,2} b{0}: 40+140 + 500 = 680
  //   a{0} b{1,2}: 200 + 100+350 = 650    a{1} b{0,2}: 100 + 100+600 = 800
  //   a{2} b{0,1}: 40 + 250+750 = 1040    b{0,1,2}: 100+350+850 = 1300
  // a runs job 1 first (position 2: 2 x 100) then job 0 (1 x 200); b runs job 2. The first job on
  // each GPU gets it: job 1 on a, job 2 on b; job 0 waits.
  auto p = make_default_registry().make_allocation("allox", {}, 0);
  CHECK(p->fixed_type_order());
  CHECK_FALSE(p->skip_zero_priority());
  AllocationResult r = p->allocate(view_of({1, 1}, allox_jobs()));
  REQUIRE(r.ok);
  check_matrix(r.x, {{0, 0}, {1, 0}, {0, 1}});

  // Next call with the same jobs: jobs 1 and 2 keep their GPUs, none is free, job 0 still waits.
  check_matrix(p->allocate(view_of({1, 1}, allox_jobs())).x, {{0, 0}, {1, 0}, {0, 1}});
  // Job 1 done: job 2 keeps b; job 0 alone on the free a (cost 200, the only slot).
  AllocationView later = view_of({1, 1}, {allox_jobs()[0], allox_jobs()[2]});
  check_matrix(p->allocate(later).x, {{1, 0}, {0, 1}});
}

TEST_CASE("allox: alpha cuts the waiting jobs to the oldest max(floor(alpha m), free GPUs)") {
  // Ages 10, 30, 20: oldest first is job 1, job 2, job 0. alpha = 0.5: floor(1.5) = 1 < 2 free
  // GPUs, so only jobs 1 and 2 are matched, over 2 positions per GPU (ages add 30 + 20 = 50 to
  // every choice):
  //   1 on a, 2 on b: 100 + 100 = 200          1 on b, 2 on a: 250 + 40 = 290
  //   both on a, 2 first: 2 x 40 + 100 = 180   both on a, 1 first: 2 x 100 + 40 = 240
  //   both on b: 2 x 100 + 250 = 450 at best
  // Optimum 180: a runs job 2 then job 1 (done at 140 s, before b could finish it at 250 s); only
  // job 2 gets a GPU and b stays free for the mechanism to lend. Job 0 is never looked at.
  auto p = make_default_registry().make_allocation("allox", {{"alpha", "0.5"}}, 0);
  check_matrix(p->allocate(view_of({1, 1}, allox_jobs(10, 30, 20))).x, {{0, 0}, {0, 0}, {1, 0}});
  // alpha = 1 (default) considers all three: the optimum of the previous test whatever the ages.
  auto q = make_default_registry().make_allocation("allox", {}, 0);
  check_matrix(q->allocate(view_of({1, 1}, allox_jobs(10, 30, 20))).x, {{0, 0}, {1, 0}, {0, 1}});
  // alpha outside [0, 1] is refused before a run.
  CHECK_THROWS_AS(make_default_registry().make_allocation("allox", {{"alpha", "1.5"}}, 0), InputError);
  CHECK_THROWS_AS(make_default_registry().make_allocation("allox", {{"alpha", "-1"}}, 0), InputError);
}

TEST_CASE("allox: a multi-GPU job is an input error naming the job and its trace line") {
  JobSpec spec;
  spec.id = "big";
  spec.source_file = std::make_shared<const std::string>("jobs.trace");
  spec.source_line = 7;
  AllocationJob j = row(0, {1, 1}, 10, 0, 2);
  j.spec = &spec;
  auto p = make_default_registry().make_allocation("allox", {}, 0);
  try {
    p->allocate(view_of({2, 2}, {j}));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file() == "jobs.trace");
    CHECK(e.line() == 7);
    CHECK_THAT(e.what(), Catch::Contains("job 'big' uses 2 GPUs"));
  }
}

TEST_CASE("allox through the round mechanism: JCTs 300, 100, 100 on the hand example") {
  // One fast GPU (speed 2.5) and one slow (speed 1); jobs of 500, 250, 100 reference seconds, all
  // at t = 0: the matching above. Round 1: job 1 on fast and job 2 on slow, both done at 100 s,
  // which ends the round. Then job 0 alone: fast (cost 200) beats slow (500), done at 100 + 200.
  Cluster c("fs", {GpuType{"fast", 0.0, 2.5}, GpuType{"slow", 0.0, 1.0}}, {Rack{"r0"}},
            {Node{"f0", 0, 1, 0, 0}, Node{"s0", 1, 1, 0, 0}});
  Workload w;
  w.source = w.format = "test";
  w.jobs = {duration_job("j0", 0, 1, 500), duration_job("j1", 0, 1, 250), duration_job("j2", 0, 1, 100)};
  DurationModel model(c);
  RunRecorder rec(c, w.jobs.size());
  auto p = make_default_registry().make_allocation("allox", {}, 0);
  GavelMechanism m(c, w, model, *p, GavelConfig{}, {&rec});
  m.run();
  CHECK(rec.records()[0].jct_s() == Approx(300).margin(1e-6));
  CHECK(rec.records()[1].jct_s() == Approx(100).margin(1e-6));
  CHECK(rec.records()[2].jct_s() == Approx(100).margin(1e-6));
}

TEST_CASE("allox through the round mechanism rejects a multi-GPU job at arrival and runs the rest") {
  // The hand example above plus a 2-GPU job j3: j3 is rejected with allox's reason at t = 0, the
  // others finish as before (300, 100, 100 s).
  Cluster c("fs", {GpuType{"fast", 0.0, 2.5}, GpuType{"slow", 0.0, 1.0}}, {Rack{"r0"}},
            {Node{"f0", 0, 2, 0, 0}, Node{"s0", 1, 1, 0, 0}});
  Workload w;
  w.source = w.format = "test";
  w.jobs = {duration_job("j0", 0, 1, 500), duration_job("j1", 0, 1, 250), duration_job("j2", 0, 1, 100),
            duration_job("j3", 0, 2, 100)};
  DurationModel model(c);
  RunRecorder rec(c, w.jobs.size());
  auto p = make_default_registry().make_allocation("allox", {}, 0);
  GavelMechanism m(c, w, model, *p, GavelConfig{}, {&rec});
  m.run();
  REQUIRE(rec.records()[3].status == JobStatus::Rejected);
  CHECK_THAT(rec.records()[3].reason, Catch::Contains("allox matches jobs to single GPUs") &&
                                          Catch::Contains("uses 2 GPUs"));
  for (int i = 0; i < 3; ++i) CHECK(rec.records()[static_cast<std::size_t>(i)].status == JobStatus::Completed);
}

TEST_CASE("round mechanism: jobs waiting when the last arrivals are all rejected still finish") {
  // allox leaves j1 and j2 (arriving after j0 took a GPU) outside X until its next recomputation;
  // j0 finishes, the round mechanism idles, and every later arrival is rejected (2 GPUs). Before
  // the fix nothing woke the mechanism again and j1, j2 ended the run with no final event.
  Cluster c = fast_slow_cluster();
  DurationModel model(c);
  Workload w;
  w.source = w.format = "test";
  w.jobs = {duration_job("j0", 0, 1, 100), duration_job("j1", 10, 1, 100), duration_job("j2", 20, 1, 100),
            duration_job("m0", 500, 2, 100), duration_job("m1", 600, 2, 100)};
  RunRecorder rec(c, w.jobs.size());
  auto p = make_default_registry().make_allocation("allox", {}, 0);
  GavelConfig config;
  config.check_invariants = true;  // every job must have a final event at the end
  GavelMechanism m(c, w, model, *p, config, {&rec});
  m.run();
  for (std::size_t i = 0; i < 3; ++i) CHECK(rec.records()[i].status == JobStatus::Completed);
  CHECK(rec.records()[3].status == JobStatus::Rejected);
  CHECK(rec.records()[4].status == JobStatus::Rejected);
}

TEST_CASE("allox and isolated on 1-GPU jobs: every job finishes, invariants hold") {
  Cluster c = fast_slow_cluster();
  DurationModel model(c);
  for (const char* policy : {"allox", "isolated"}) {
    for (std::uint64_t seed : {1u, 2u}) {
      Workload w = random_duration_workload(seed, 12);
      for (JobSpec& j : w.jobs) j.requested_gpus = j.min_gpus = j.max_gpus = 1;
      INFO(policy << " seed " << seed);
      RunRecorder rec(c, w.jobs.size());
      auto p = make_default_registry().make_allocation(policy, {}, seed);
      GavelConfig config;
      config.check_invariants = true;  // sched/invariants.hpp after every round: throws on a GPU used twice
      GavelMechanism m(c, w, model, *p, config, {&rec});
      m.run();
      for (std::size_t i = 0; i < w.jobs.size(); ++i) {
        CHECK(rec.records()[i].status == JobStatus::Completed);
        CHECK(rec.records()[i].jct_s() >= w.jobs[i].work / 2.0 - 1e-6);  // fast runs at speed 2
      }
    }
  }
}

TEST_CASE("fidelity: isolated against Gavel's simulator on the physical-cluster max_min_fairness trace") {
  auto trace = shared_data("gavel/traces/physical_cluster/max_min_fairness.trace");
  auto tput = shared_data("gavel/simulation_throughputs.json");
  if (!trace || !tput) return;
  // Gavel (scheduler/scripts/drivers/simulate_scheduler_with_trace.py -p isolated -c 8:8:8
  // --num_gpus_per_server 4:4:4 --seed 0 --time_per_iteration 360) prints an average JCT of
  // 27715.802 s and a total duration of 97257.097 s (experiments/gavel/reference.json).
  RunSpec spec;
  spec.cluster = "gavel-24";
  spec.trace = *trace;
  spec.throughputs = *tput;
  spec.policy = "isolated";
  spec.mechanism_kind = "gavel";
  spec.mechanism.interval_s = 360;
  spec.seed = 0;
  RunOutput out = run_simulation(spec, make_default_registry());
  std::ostringstream s;
  write_summary_json(s, out.summary, out.info);
  nlohmann::json j = nlohmann::json::parse(s.str());
  CHECK(j["jct_mean_s"].get<double>() == Approx(27715.802).epsilon(1e-7));
  CHECK(j["makespan_s"].get<double>() == Approx(97257.097).epsilon(1e-7));
}
