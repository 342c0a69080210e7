// heet beyond the prototype (issue 15): wide jobs across hosts priced by the analytic model, the
// restart modes, the rejection of a job no GPU type can hold, and the prototype's "Gavel" baseline.
#include <catch2/catch.hpp>

#include "hetsim/perf/analytic_model.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/run.hpp"
#include "hetsim/sched/placement.hpp"
#include "topology_fixtures.hpp"
#include "../src/policy/heet_tail.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

RunOutput heet_ext_run(const Cluster& c, const Workload& w, const ThroughputModel& model, const std::string& policy,
                     const PolicyParams& params, double restart_s = 0.0) {
  auto p = make_default_registry().make(policy, params, 0);
  ConsolidatePlacement placement;
  MechanismConfig config;
  config.interval_s = *p->round_s();
  config.restart_overhead_s = restart_s > 0.0 ? restart_s : p->restart_overhead_s().value_or(0.0);
  return simulate(c, w, model, *p, placement, config, RunInfo{c.name(), "test", "test", policy, "consolidate", model.name(), 0, ""});
}

const JobRecord& heet_ext_record(const RunOutput& out, const std::string& id) {
  for (const JobRecord& r : out.records)
    if (r.job_id == id) return r;
  FAIL("no record for " << id);
  return out.records.front();
}

Workload heet_ext_workload(std::vector<JobSpec> jobs) {
  Workload w;
  w.jobs = std::move(jobs);
  w.source = w.format = "test";
  return w;
}

// A job of `seconds` reference seconds on `gpus` GPUs (duration model).
JobSpec heet_ext_seconds_job(const std::string& id, int gpus, double seconds) {
  JobSpec j;
  j.id = id;
  j.requested_gpus = j.min_gpus = j.max_gpus = gpus;
  j.work = seconds;
  j.unit = WorkUnit::ReferenceSeconds;
  return j;
}

}  // namespace

TEST_CASE("heet: a job asking for more GPUs than a host runs on two hosts at the analytic model's rate") {
  // Two hosts of one GPU each, NICs 100 Gbit/s = 12.5 GB/s; 1 GB gradient, 0.1 s per step.
  const Cluster c = flat_cluster(2, 1, 100.0, 100.0);
  AnalyticConfig cfg;
  cfg.overlap = 0.0;
  const AnalyticModel model(c, fixed_profile({{"m", {1e9, {0.1}}}}), cfg);
  // Ring all-reduce over 2 hosts: 2 (p - 1) / p x 1 GB / 12.5 GB/s = 0.08 s; step 0.1 + 0.08 = 0.18 s;
  // 2 iterations a step (one per GPU): 2 / 0.18 = 11.11 iterations/s. 1,800 iterations take 162 s.
  const RunOutput out = heet_ext_run(c, heet_ext_workload({iter_job("wide", "m", 2, 1800)}), model, "heet", {{"restart_s", "0"}});
  const JobRecord& r = heet_ext_record(out, "wide");
  CHECK(r.status == JobStatus::Completed);
  CHECK(r.gpus == 2);
  CHECK(r.jct_s() == Approx(1800 / (2 / 0.18)));
  CHECK(r.jct_s() == Approx(162.0));
}

TEST_CASE("heet: a job asking for more than a host stays within one when spanning does not pay") {
  // As above but 1 Gbit/s NICs: the all-reduce takes 2 x 0.5 GB / 0.125 GB/s = 8 s, a step 8.1 s,
  // 2 / 8.1 = 0.247 iterations/s on two hosts against 10 on one GPU; weight per unit of remaining
  // work 4.05^2 / 0.1 = 164 against 0.1 / 1 x 0.1 = 0.1 in a host: it runs on one GPU, 1,800 / 10 = 180 s.
  const Cluster c = flat_cluster(2, 1, 100.0, 1.0);
  AnalyticConfig cfg;
  cfg.overlap = 0.0;
  const AnalyticModel model(c, fixed_profile({{"m", {1e9, {0.1}}}}), cfg);
  const RunOutput out =
      heet_ext_run(c, heet_ext_workload({iter_job("wide", "m", 2, 1800)}), model, "heet", {{"restart_s", "0"}});
  CHECK(heet_ext_record(out, "wide").gpus == 1);
  CHECK(heet_ext_record(out, "wide").jct_s() == Approx(180.0));
}

TEST_CASE("heet: wide jobs take whole hosts, the rest is planned per host") {
  // Four 2-GPU hosts of one type (duration model): 'w' asks for 4 GPUs (two hosts), 'n' for 1.
  const Cluster c = flat_cluster(4, 2, 100.0, 100.0);
  auto model = make_throughput_model("duration", "", {}, c);
  const RunOutput out =
      heet_ext_run(c, heet_ext_workload({heet_ext_seconds_job("w", 4, 400), heet_ext_seconds_job("n", 1, 100)}), *model, "heet", {{"restart_s", "0"}});
  // 'w' runs at its full rate on 4 GPUs: 400 s; 'n' (elastic up to a host, no gain beyond its 1
  // GPU in the duration model) 100 s.
  CHECK(heet_ext_record(out, "w").jct_s() == Approx(400.0));
  CHECK(heet_ext_record(out, "w").gpus == 4);
  CHECK(heet_ext_record(out, "n").jct_s() == Approx(100.0));
}

TEST_CASE("heet's tail rule: the longest jobs whose remaining time outlasts the rest of the work, by hand") {
  // 10 GPUs. W = 1000 x 4 + 500 x 2 + 100 x 1 + 50 x 1 = 5,150 GPU-s.
  // j0 (1,000 s on 4): the rest, 1,150 GPU-s on 6 GPUs, drains in 191.7 s < 1,000: protected.
  // j1 (500 s on 2): the rest, 150 GPU-s on 4 GPUs, 37.5 s < 500: protected.
  // j2 (100 s on 1): the rest, 50 GPU-s on 3 GPUs, 16.7 s < 100: protected.
  // j3 (50 s on 1): nothing else left, 0 <= 50: protected.
  const std::vector<HeetTailJob> jobs{{3, 1, 50.0}, {0, 4, 1000.0}, {2, 1, 100.0}, {1, 2, 500.0}};
  const std::vector<HeetTailClaim> all = heet_tail_critical(jobs, 10);
  CHECK(all == std::vector<HeetTailClaim>{{0, 4}, {1, 2}, {2, 1}, {3, 1}});
  // Six more 1-GPU jobs of 400 s (2,400 GPU-s more): j0's rest is 3,550 GPU-s on 6 GPUs = 591.7 s,
  // still < 1,000: protected; j1 (500 s) against 2,550 GPU-s on 4 GPUs = 637.5 s: not, and the walk stops.
  std::vector<HeetTailJob> crowded = jobs;
  for (JobIndex j = 4; j < 10; ++j) crowded.push_back({j, 1, 400.0});
  CHECK(heet_tail_critical(crowded, 10) == std::vector<HeetTailClaim>{{0, 4}});
  // On 4 GPUs j0 leaves none for the rest: passed over, its work stays in the rest; j1 then has 2
  // GPUs beside it for 5,150 - 1,000 = 4,150 GPU-s: 2,075 s > 500, not protected, and the walk stops.
  CHECK(heet_tail_critical(jobs, 4).empty());
  // Without j0 on 4 GPUs: W = 1,150; j1 against 150 GPU-s on 2 GPUs (75 s < 500) and j2 against 50
  // on 1 (50 s < 100) are protected; j3 would leave no GPU beside the three: passed over.
  CHECK(heet_tail_critical({jobs[0], jobs[2], jobs[3]}, 4) == std::vector<HeetTailClaim>{{1, 2}, {2, 1}});
  // Not eligible (tail=wide: only jobs wider than a host): passed over, their work stays in the rest.
  std::vector<HeetTailJob> narrow_only = jobs;
  narrow_only[1].eligible = false;  // j0
  CHECK(heet_tail_critical(narrow_only, 10).empty());  // j1: 4,150 GPU-s on 8 GPUs = 518.75 s > 500
  // A job no type can run (infinite remaining time) counts nowhere.
  CHECK(heet_tail_critical({{0, 1, std::numeric_limits<double>::infinity()}, {1, 1, 10.0}}, 2) ==
        std::vector<HeetTailClaim>{{1, 1}});
}

TEST_CASE("heet: the tail rule starts a long wide job that heet's weight would leave for last") {
  // Three 2-GPU hosts, duration model, 120 s rounds, free restarts. At 0: 'w' asks 4 GPUs for 2,000 s
  // (rate 1 on 4 GPUs; weight 2,000 x T(4)^2 / T(1) = 2,000 x 1 / 4 = 500), n1..n4 1 GPU for 400 s
  // each (weight 400, and 4 / 4 slots of size 1).
  const Cluster c = flat_cluster(3, 2, 100.0, 100.0);
  auto model = make_throughput_model("duration", "", {}, c);
  const Workload w = heet_ext_workload({heet_ext_seconds_job("w", 4, 2000), heet_ext_seconds_job("n1", 1, 400),
                                        heet_ext_seconds_job("n2", 1, 400), heet_ext_seconds_job("n3", 1, 400),
                                        heet_ext_seconds_job("n4", 1, 400)});
  SECTION("tail=off, and tail=guard (default; 'w' has lost 480 s < 2,000 s by 480): the four short jobs claim 4 of 6 GPUs first, 'w' (4) waits; they end at 400, 'w' starts at the round at 480 and ends at 2,480") {
    for (const PolicyParams& params : {PolicyParams{{"restart_s", "0"}, {"tail", "off"}}, PolicyParams{{"restart_s", "0"}}}) {
      const RunOutput out = heet_ext_run(c, w, *model, "heet", params);
      CHECK(heet_ext_record(out, "w").jct_s() == Approx(2480.0));
      CHECK(heet_ext_record(out, "n4").jct_s() == Approx(400.0));
      CHECK(out.summary.makespan_s == Approx(2480.0));
      CHECK(out.summary.jct_mean_s == Approx((2480.0 + 4 * 400.0) / 5));
    }
  }
  SECTION("tail=wide and tail=all: 'w' outlasts the rest (1,600 GPU-s on 2 GPUs = 800 s < 2,000) and runs from 0; n1, n2 share the last host to 400, n3, n4 run 480-880") {
    for (const PolicyParams& params : {PolicyParams{{"restart_s", "0"}, {"tail", "wide"}}, PolicyParams{{"restart_s", "0"}, {"tail", "all"}}}) {
      const RunOutput out = heet_ext_run(c, w, *model, "heet", params);
      CHECK(heet_ext_record(out, "w").jct_s() == Approx(2000.0));
      CHECK(heet_ext_record(out, "w").preemptions == 0);
      CHECK(heet_ext_record(out, "n2").jct_s() == Approx(400.0));
      CHECK(heet_ext_record(out, "n3").jct_s() == Approx(880.0));
      CHECK(heet_ext_record(out, "n4").jct_s() == Approx(880.0));
      CHECK(out.summary.makespan_s == Approx(2000.0));
      CHECK(out.summary.jct_mean_s == Approx((2000.0 + 2 * 400.0 + 2 * 880.0) / 5));
    }
  }
  CHECK_THROWS_WITH(make_default_registry().make("heet", {{"tail", "yes"}}, 0),
                    Catch::Contains("--param tail") && Catch::Contains("expected guard, wide, all or off, got 'yes'"));
}

TEST_CASE("heet's tail guard: starved or kept, by hand") {
  // Starved: lag >= tail_starve x remaining (1,000 s lost, 1,000 s to go: yes at 1, not at 1.5).
  CHECK(heet_tail_guard_eligible(false, 1000.0, 1000.0, 120.0, 1.0));
  CHECK_FALSE(heet_tail_guard_eligible(false, 999.0, 1000.0, 120.0, 1.0));
  CHECK_FALSE(heet_tail_guard_eligible(false, 1000.0, 1000.0, 120.0, 1.5));
  // Kept: holds its request and lost at least a round, however long it still runs.
  CHECK(heet_tail_guard_eligible(true, 120.0, 1e6, 120.0, 1.0));
  CHECK_FALSE(heet_tail_guard_eligible(true, 119.0, 1e6, 120.0, 1.0));
  CHECK_FALSE(heet_tail_guard_eligible(false, 119.0, 1e6, 120.0, 1.0));
  // Ahead of its request (negative lag) or no type can run it: never.
  CHECK_FALSE(heet_tail_guard_eligible(true, -50.0, 10.0, 120.0, 1.0));
  CHECK_FALSE(heet_tail_guard_eligible(true, 1e9, std::numeric_limits<double>::infinity(), 120.0, 1.0));
}

TEST_CASE("heet's tail guard starts a long job that a stream of short ones would starve") {
  // Two hosts of one GPU, duration model, 120 s rounds, free restarts. 'L' (1 GPU, 1,000 s) at 0;
  // two 100 s jobs at every round from 0 to 1,080 (weight 100 < L's 1,000: heet takes them first).
  const Cluster c = flat_cluster(2, 1, 100.0, 100.0);
  auto model = make_throughput_model("duration", "", {}, c);
  std::vector<JobSpec> jobs{heet_ext_seconds_job("L", 1, 1000)};
  for (int r = 0; r < 10; ++r)
    for (int k = 0; k < 2; ++k) {
      JobSpec s = heet_ext_seconds_job(fmt::format("s{}_{}", r, k), 1, 100);
      s.submit = SimTime::from_seconds(120.0 * r);
      jobs.push_back(s);
    }
  const Workload w = heet_ext_workload(jobs);
  const auto longest_short_jct = [](const RunOutput& out) {
    double jct = 0.0;
    for (const JobRecord& r : out.records)
      if (r.job_id != "L") jct = std::max(jct, r.jct_s());
    return jct;
  };
  SECTION("tail=off: L waits for the last short jobs, starts at the round at 1,200, ends at 2,200") {
    const RunOutput out = heet_ext_run(c, w, *model, "heet", {{"restart_s", "0"}, {"tail", "off"}});
    CHECK(heet_ext_record(out, "L").jct_s() == Approx(2200.0));
    CHECK(longest_short_jct(out) == Approx(100.0));
    CHECK(out.summary.makespan_s == Approx(2200.0));
  }
  SECTION("tail=guard (default): at the round at 1,080 L has lost 1,080 s >= its 1,000 s, and outlasts the rest (200 GPU-s on 1 GPU = 200 s): it runs 1,080-2,080; one of that round's short jobs waits to 1,200 (JCT 220)") {
    const RunOutput out = heet_ext_run(c, w, *model, "heet", {{"restart_s", "0"}});
    CHECK(heet_ext_record(out, "L").jct_s() == Approx(2080.0));
    CHECK(heet_ext_record(out, "L").preemptions == 0);
    CHECK(longest_short_jct(out) == Approx(220.0));
    CHECK(out.summary.makespan_s == Approx(2080.0));
    CHECK(out.summary.jct_mean_s == Approx((19 * 100.0 + 220.0 + 2080.0) / 21));
  }
  SECTION("tail_starve=2: L would need 2,000 s lost; the short jobs end first, as with tail=off") {
    const RunOutput out = heet_ext_run(c, w, *model, "heet", {{"restart_s", "0"}, {"tail_starve", "2"}});
    CHECK(out.summary.makespan_s == Approx(2200.0));
  }
}

TEST_CASE("heet: a job asking for more GPUs than a GPU type has in all is rejected with its reason") {
  // Two types of 2 GPUs each: 3 GPUs fit the cluster but no type (heet and every policy place a job
  // on one type); the job is rejected at its arrival, the others run.
  const Cluster c("two", {GpuType{"a", 0.0, 1.0}, GpuType{"b", 0.0, 1.0}}, {net_rack("r")},
                  {net_node("n0", 0, 2, 0, 100, 100), net_node("n1", 1, 2, 0, 100, 100)});
  auto model = make_throughput_model("duration", "", {}, c);
  const RunOutput out =
      heet_ext_run(c, heet_ext_workload({heet_ext_seconds_job("big", 3, 100), heet_ext_seconds_job("ok", 2, 100)}), *model, "heet", {});
  const JobRecord& big = heet_ext_record(out, "big");
  CHECK(big.status == JobStatus::Rejected);
  CHECK(big.reason == "job big requests 3 GPUs of one type; the largest GPU type of cluster 'two' has 2");
  CHECK(heet_ext_record(out, "ok").status == JobStatus::Completed);
}

TEST_CASE("heet: restart=every-round restarts a running job at every round, resize only when it changes") {
  // One GPU, 10 iterations/s, 2,500 iterations = 250 s of work, 120 s rounds, 10 s restarts.
  const Cluster c = flat_cluster(1, 1, 100.0, 100.0);
  const AnalyticModel model(c, fixed_profile({{"m", {1e9, {0.1}}}}), AnalyticConfig{});
  const Workload w = heet_ext_workload({iter_job("j", "m", 1, 2500)});
  SECTION("every-round: starts at 0, 120, 240 s each pay 10 s: 110 + 110 + 30 s of work, done at 280 s") {
    const RunOutput out = heet_ext_run(c, w, model, "heet", {{"restart_s", "10"}, {"restart", "every-round"}});
    CHECK(heet_ext_record(out, "j").restarts == 3);
    CHECK(heet_ext_record(out, "j").jct_s() == Approx(280.0));
  }
  SECTION("resize: one start, one restart cost: done at 260 s") {
    const RunOutput out = heet_ext_run(c, w, model, "heet", {{"restart_s", "10"}});
    CHECK(heet_ext_record(out, "j").restarts == 1);
    CHECK(heet_ext_record(out, "j").jct_s() == Approx(260.0));
  }
  SECTION("the policy's restart cost is what the run charges when it gives none") {
    CHECK(make_default_registry().make("heet", {}, 0)->restart_overhead_s() == 30.0);
    CHECK_THROWS_WITH(make_default_registry().make("heet", {{"restart", "always"}}, 0),
                      Catch::Contains("expected resize or every-round, got 'always'"));
  }
}

TEST_CASE("heet-gavel-baseline: shortest remaining time first at the requested count, skipping what does not fit") {
  // One 4-GPU host (one type, so the random type is that one). B (2 GPUs, 100 s), A (3 GPUs, 150 s),
  // C (1 GPU, 400 s), all at 0. Round 0: B takes 2, A (3) does not fit in 2 and is skipped, C takes
  // 1. B ends at 100. Round 120: A (150 s left) takes 3, C (280 s left) keeps 1. A ends at 270, C at 400.
  const Cluster c = flat_cluster(1, 4, 100.0, 100.0);
  auto model = make_throughput_model("duration", "", {}, c);
  const RunOutput out = heet_ext_run(
      c, heet_ext_workload({heet_ext_seconds_job("B", 2, 100), heet_ext_seconds_job("A", 3, 150), heet_ext_seconds_job("C", 1, 400)}), *model,
      "heet-gavel-baseline", {});
  CHECK(heet_ext_record(out, "B").jct_s() == Approx(100.0));
  CHECK(heet_ext_record(out, "A").jct_s() == Approx(270.0));
  CHECK(heet_ext_record(out, "A").gpus == 3);
  CHECK(heet_ext_record(out, "C").jct_s() == Approx(400.0));
  CHECK(heet_ext_record(out, "C").preemptions == 0);
  CHECK(out.summary.jct_mean_s == Approx((100.0 + 270.0 + 400.0) / 3));
}
