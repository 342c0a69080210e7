// The shared network (`--network shared`): max-min fair link sharing by progressive filling, and
// the event mechanism changing rates exactly when a job that shares a link starts or stops.
// Every figure is computed by hand in the comments (docs/models.md, "The shared network").
#include <catch2/catch.hpp>

#include "hetsim/perf/link_sharing.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

constexpr double kC = 12.5e9;  // 100 Gbit/s in bytes/s

std::vector<double> speeds(const std::vector<std::vector<LinkBytes>>& users, double capacity = kC) {
  return max_min_speeds(users, [capacity](LinkId) { return capacity; });
}

// Racks r0, r1 (uplinks 100 Gbit/s) and r2; every node has one GPU and a 200 Gbit/s NIC. Type x on
// a0 (r0) and b0 (r1), type y on a1 (r0) and b1 (r1), type z on c0 and c1 (both r2). So a 2-GPU
// job of x or y must cross both uplinks, and one of z stays inside r2.
Cluster three_racks() {
  auto node = [](const char* name, GpuTypeId type, RackId rack) { return net_node(name, type, 1, rack, 100, 200); };
  return Cluster("3r", {GpuType{"x", 0, 1}, GpuType{"y", 0, 1}, GpuType{"z", 0, 1}},
                 {net_rack("r0", 100.0), net_rack("r1", 100.0), net_rack("r2", 100.0)},
                 {node("a0", 0, 0), node("b0", 0, 1), node("a1", 1, 0), node("b1", 1, 1), node("c0", 2, 2),
                  node("c1", 2, 2)});
}

// 1.25 GB gradients, 0.1 s of compute per step on the job's own type only.
std::unique_ptr<ComputeProfile> three_rack_profile() {
  return fixed_profile({{"jx", {1.25e9, {0.1, 0.0, 0.0}}},
                        {"jy", {1.25e9, {0.0, 0.1, 0.0}}},
                        {"jz", {1.25e9, {0.0, 0.0, 0.1}}}});
}

RunOutput run_three_racks(std::vector<JobSpec> jobs, bool shared) {
  const Cluster c = three_racks();
  AnalyticConfig cfg;
  cfg.overlap = 0.0;
  const AnalyticModel model(c, three_rack_profile(), cfg);
  Workload w;
  w.jobs = std::move(jobs);
  w.source = w.format = "test";
  PolicyRegistry registry = make_default_registry();
  auto fifo = registry.make("fifo", {}, 0);
  ConsolidatePlacement placement;
  MechanismConfig config;
  config.shared_network = shared;
  config.check_invariants = true;
  return simulate(c, w, model, *fifo, placement, config, RunInfo{"3r", "test", "test", "fifo", "consolidate", "analytic", 0, ""});
}

}  // namespace

TEST_CASE("max-min speeds by progressive filling", "[network]") {
  SECTION("two users that fill one link alone get half each") {
    const auto s = speeds({{{7, kC}}, {{7, kC}}});
    CHECK(s[0] == Approx(0.5));
    CHECK(s[1] == Approx(0.5));
  }
  SECTION("a user on other links is untouched; a user of no link runs at 1") {
    const auto s = speeds({{{7, kC}}, {{7, kC}}, {{9, kC}}, {}});
    CHECK(s[2] == 1.0);
    CHECK(s[3] == 1.0);
  }
  SECTION("a light user of a full link is raised with the others until the link is full") {
    // Uses 0.3 C and C: speeds rise together to 1 / 1.3, where the link is full.
    const auto s = speeds({{{7, 0.3 * kC}}, {{7, kC}}});
    CHECK(s[0] == Approx(1 / 1.3));
    CHECK(s[1] == Approx(1 / 1.3));
  }
  SECTION("a user frozen at its bottleneck leaves room to the others elsewhere") {
    // Link 1: users 0 and 1 (C each); link 2: user 1 (0.2 C) and user 2 (C). All rise to 0.5,
    // where link 1 is full (link 2 carries 0.6 C); users 0 and 1 stop there. User 2 alone raises
    // link 2 by C per unit of speed: the 0.4 C left take it to 0.9.
    const auto s = speeds({{{1, kC}}, {{1, kC}, {2, 0.2 * kC}}, {{2, kC}}});
    CHECK(s[0] == Approx(0.5));
    CHECK(s[1] == Approx(0.5));
    CHECK(s[2] == Approx(0.9));
  }
  SECTION("links with room give every user speed 1") {
    const auto s = speeds({{{1, 0.4 * kC}}, {{1, 0.6 * kC}}});
    CHECK(s[0] == 1.0);
    CHECK(s[1] == 1.0);
  }
}

TEST_CASE("two ring jobs across one uplink share it, the other speeds up when one finishes", "[network]") {
  // Alone, a 2-GPU ring across racks: 2 steps x 0.625 GB over the 12.5 GB/s uplink = 0.1 s of
  // transfer; step 0.1 + 0.1 = 0.2 s, rate 2 / 0.2 = 10 iterations/s. Sharing the uplinks with
  // the other job: 50 Gbit/s each, transfer 0.2 s, step 0.3 s, rate 6.667/s. Job z stays in r2 on
  // 200 Gbit/s NICs: transfer 0.05 s, step 0.15 s, rate 13.333/s, shared or not.
  std::vector<JobSpec> jobs{iter_job("x", "jx", 2, 2000), iter_job("y", "jy", 2, 4000), iter_job("z", "jz", 2, 1000)};
  SECTION("shared: x at 6.667/s finishes at 300 s; y then runs alone: 2000 left at 10/s -> 500 s") {
    const RunOutput out = run_three_racks(jobs, true);
    CHECK(record(out, "x").finish_s == Approx(300.0));
    CHECK(record(out, "y").finish_s == Approx(500.0));
    CHECK(record(out, "z").finish_s == Approx(75.0));
  }
  SECTION("alone (the default): each job sees the whole network") {
    const RunOutput out = run_three_racks(jobs, false);
    CHECK(record(out, "x").finish_s == Approx(200.0));
    CHECK(record(out, "y").finish_s == Approx(400.0));
    CHECK(record(out, "z").finish_s == Approx(75.0));
  }
  SECTION("a job that shares nothing runs at its alone rate, bit for bit") {
    const RunOutput shared = run_three_racks({jobs[2]}, true);
    const RunOutput alone = run_three_racks({jobs[2]}, false);
    CHECK(record(shared, "z").finish_s == record(alone, "z").finish_s);
  }
  SECTION("y arriving later slows x only from then on") {
    // x alone at 10/s for 100 s (1000 done), then both at 6.667/s: x's last 1000 take 150 s
    // (finish 250 s); y did 1000 by then, its last 3000 at 10/s take 300 s: 550 s.
    std::vector<JobSpec> later{iter_job("x", "jx", 2, 2000), iter_job("y", "jy", 2, 4000, 100.0)};
    const RunOutput out = run_three_racks(later, true);
    CHECK(record(out, "x").finish_s == Approx(250.0));
    CHECK(record(out, "y").finish_s == Approx(550.0));
  }
}

TEST_CASE("network option: names, and the runs it needs", "[network]") {
  RunSpec spec;
  spec.network = "crowded";
  REQUIRE(find_run_spec_problem(spec));
  CHECK(find_run_spec_problem(spec)->key == "network");
  CHECK_THAT(find_run_spec_problem(spec)->message, Catch::Contains("expected 'alone' or 'shared'"));
  spec.network = "shared";
  spec.model = "duration";
  REQUIRE(find_run_spec_problem(spec));
  CHECK_THAT(find_run_spec_problem(spec)->message, Catch::Contains("--model analytic"));
  spec.model = "analytic";
  spec.policy = "gavel-maxmin";
  spec.throughputs = "unused.json";
  CHECK_THROWS_WITH(check_run_spec(spec, make_default_registry()),
                    Catch::Contains("'shared' needs the event mechanism"));
}

TEST_CASE("schedule on arrival is refused under the gavel mechanism (it would be recorded unused)") {
  RunSpec spec;
  spec.policy = "isolated";
  spec.mechanism.schedule_on_arrival = true;
  spec.mechanism.interval_s = 60.0;
  CHECK_THROWS_WITH(check_run_spec(spec, make_default_registry()),
                    Catch::Contains("--schedule-on-arrival") && Catch::Contains("gavel mechanism"));
  spec.policy = "fifo";  // the event mechanism's round mode takes it
  CHECK_NOTHROW(check_run_spec(spec, make_default_registry()));
  spec.mechanism.interval_s = 0.0;  // no rounds: the policy already runs at every arrival
  CHECK_THROWS_WITH(check_run_spec(spec, make_default_registry()),
                    Catch::Contains("--schedule-on-arrival") && Catch::Contains("round mode (--interval > 0)"));
}
