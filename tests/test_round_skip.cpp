// Round skipping in the round mechanism (gavel_round_skip.cpp): a hand-computed run where rounds
// are skipped, and skip versus no skip giving the same events, JCTs and round counts.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "hetsim/metrics/recorder.hpp"
#include "hetsim/sched/gavel_mechanism.hpp"
#include "cli_support.hpp"
#include "sim_fixtures.hpp"
#include "test_support.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

/// Every event as one line (time in microseconds, kind, job, GPUs): two runs with the same lines
/// started, stopped and finished the same jobs on the same GPUs at the same times.
class SkipEventLog final : public JobEventSink {
 public:
  void on_event(const JobEvent& e) override {
    std::ostringstream s;
    s << e.time.us() << ' ' << static_cast<int>(e.kind) << ' ' << e.job;
    for (GpuId g : e.gpus) s << ' ' << g;
    lines.push_back(s.str());
  }
  std::vector<std::string> lines;
};

struct SkipRun {
  std::vector<std::string> events;
  std::vector<double> jct_s;
  std::uint64_t rounds = 0, skipped = 0, passes = 0;
};

SkipRun run_skip_rounds(const Cluster& c, const Workload& w, const std::string& policy, bool skip, double round_s,
                   std::uint64_t seed = 0) {
  DurationModel model(c);
  PolicyRegistry registry = make_default_registry();
  auto p = registry.make_allocation(policy, {}, seed);
  RunRecorder rec(c, w.jobs.size());
  SkipEventLog log;
  GavelConfig config;
  config.round_s = round_s;
  config.seed = seed;
  config.skip_steady_rounds = skip;
  GavelMechanism m(c, w, model, *p, config, {&rec, &log});
  MechanismStats stats = m.run();
  SkipRun out;
  out.events = std::move(log.lines);
  for (const JobRecord& r : rec.records()) out.jct_s.push_back(r.status == JobStatus::Completed ? r.jct_s() : -1.0);
  out.rounds = m.solver().rounds;
  out.skipped = m.skipped_rounds();
  out.passes = stats.scheduling_passes;
  return out;
}

}  // namespace

TEST_CASE("round skipping: one long job and a short one on 2 GPUs, by hand") {
  // One type at speed 1: a 1-GPU job does 360 steps (= reference seconds) per 360-s round, so
  // every round is exactly 360 s. a: 10,000 s from t = 0; b: 2,000 s, arrives at 1,000.5 s.
  //  - round 1 [0, 360] full (a joins); round 2 skipped; round 3 [720, 1080] live: b arrives in it.
  //  - round 4 [1080, 1440] full (b joins, X recomputed: Gavel's reset when none happened at t > 0);
  //    b has 2,000 - 360 = 1,640 left: rounds 5-8 skipped (1,280, 920, 560, 200 left), round 9
  //    [2880, 3240] live: b finishes at 2880 + 200 = 3080 s, JCT 3080 - 1000.5 = 2079.5 s.
  //  - round 10 [3240, 3600] full (b left; X recomputed, 2,160 s >= 1,920 s since the last reset);
  //    a has 10,000 - 3,600 = 6,400 left after it: rounds 11-27 skipped, round 28 [9720, 10000]
  //    live: a finishes at 9720 + 280 = 10,000 s.
  // 28 rounds, of which 1 + 4 + 17 = 22 by arithmetic.
  Cluster c = homogeneous_cluster(1, 2);
  Workload w;
  w.source = w.format = "test";
  w.jobs = {duration_job("a", 0, 1, 10000), duration_job("b", 1000.5, 1, 2000)};
  for (const char* policy : {"fifo", "fifo-perf", "gavel-maxmin"}) {
    INFO(policy);
    SkipRun on = run_skip_rounds(c, w, policy, true, 360.0);
    CHECK(on.jct_s == std::vector<double>{10000.0, 2079.5});
    CHECK(on.rounds == 28);
    CHECK(on.passes == 28);
    CHECK(on.skipped == 22);
    SkipRun off = run_skip_rounds(c, w, policy, false, 360.0);
    CHECK(off.skipped == 0);
    CHECK(off.rounds == 28);
    CHECK(off.events == on.events);
    CHECK(off.jct_s == on.jct_s);
  }
}

TEST_CASE("round skipping: a --until horizon inside a stretch cuts the run where full rounds do") {
  // a alone (10,000 s); the horizon at 5,000 s falls inside round 14 [4680, 5040]: a stops there
  // unfinished after 13 rounds' steps, with or without skipping.
  Cluster c = homogeneous_cluster(1, 1);
  Workload w;
  w.source = w.format = "test";
  w.jobs = {duration_job("a", 0, 1, 10000)};
  DurationModel model(c);
  PolicyRegistry registry = make_default_registry();
  std::vector<std::string> skipped_lines;
  for (bool skip : {true, false}) {
    auto p = registry.make_allocation("fifo", {}, 0);
    RunRecorder rec(c, w.jobs.size());
    SkipEventLog log;
    GavelConfig config;
    config.until_s = 5000.0;
    config.skip_steady_rounds = skip;
    GavelMechanism m(c, w, model, *p, config, {&rec, &log});
    m.run();
    INFO("skip " << skip);
    CHECK(rec.records()[0].status == JobStatus::Unfinished);
    CHECK(m.solver().rounds == 14);
    CHECK(m.skipped_rounds() == (skip ? 12u : 0u));
    CHECK(m.jobs()[0].remaining_work == 10000.0 - 13 * 360.0);
    REQUIRE(log.lines.size() >= 2);
    if (skip)
      skipped_lines = log.lines;
    else
      CHECK(log.lines == skipped_lines);  // the same events at the same times
  }
}

TEST_CASE("round skipping: same events, JCTs and round counts as full rounds, every skippable policy") {
  // Random workloads on two types (speeds 2 and 1: rounds end at fractions of a second, so the
  // sub-microsecond remainders and Gavel's double sums are exercised), 60-s and 360-s rounds.
  Cluster c = fast_slow_cluster();
  std::uint64_t skipped_somewhere = 0;
  for (const char* policy : {"fifo", "fifo-perf", "gavel-maxmin", "gavel-ftf", "gavel-throughput", "isolated"}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      for (double round_s : {60.0, 360.0}) {
        Workload w = random_duration_workload(seed, 16);
        for (JobSpec& j : w.jobs) j.work *= 7.3;  // long jobs: many rounds between changes
        INFO(policy << " seed " << seed << " round " << round_s);
        SkipRun on = run_skip_rounds(c, w, policy, true, round_s, seed);
        SkipRun off = run_skip_rounds(c, w, policy, false, round_s, seed);
        CHECK(off.skipped == 0);
        CHECK(on.rounds == off.rounds);
        CHECK(on.passes == off.passes);
        CHECK(on.jct_s == off.jct_s);
        CHECK(on.events == off.events);
        skipped_somewhere += on.skipped;
      }
    }
  }
  CHECK(skipped_somewhere > 0);
}

TEST_CASE("round skipping: the no-round-skip flag on an event-mechanism policy is an input error naming it") {
  const std::string inputs = "--cluster gavel-24 --trace " + source_path("traces/gavel.trace") + " --throughputs " +
                             source_path("traces/gavel-throughputs.json");
  expect_input_error("run " + inputs + " --policy srtf --no-round-skip",
                     "field '--no-round-skip': round skipping is the gavel mechanism's");
  expect_input_error("run " + inputs + " --policy fifo --mechanism event --no-round-skip", "drop --no-round-skip");
  // Under the gavel mechanism the flag is taken.
  CHECK(run_cli("run " + inputs + " --policy fifo --mechanism gavel --no-round-skip").exit_code == 0);
}
