// Space sharing (issue 17, item 1): pair rates from Gavel's table, the packed max-min LP solved by
// hand, a packed pair's finish times by hand, and Gandiva's allocation rules.
#include <catch2/catch.hpp>

#include <string>

#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/run.hpp"
#include "hetsim/sched/gavel_mechanism.hpp"
#include "hetsim/util/error.hpp"
#include "cli_support.hpp"
#include "sim_fixtures.hpp"
#include "temp_dir.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

// Two job types on type "gpu": solo 10 steps/s each, 6 and 7 steps/s when sharing (0.6, 0.7 of solo).
const char* kPairTable = R"json({"gpu": {
  "('A', 1)": {"null": 10.0, "('A', 1)": [5.0, 5.0], "('B', 1)": [6.0, 7.0]},
  "('B', 1)": {"null": 10.0, "('B', 1)": [5.0, 5.0], "('A', 1)": [7.0, 6.0]}}})json";

JobSpec steps_job(const std::string& id, const std::string& type, double steps) {
  JobSpec j;
  j.id = id;
  j.job_type = type;
  j.requested_gpus = j.min_gpus = j.max_gpus = 1;
  j.work = steps;
  j.unit = WorkUnit::Iterations;
  return j;
}

AllocationJob view_job(JobIndex j, std::vector<double> rates) {
  AllocationJob a;
  a.job = j;
  a.throughput = std::move(rates);
  return a;
}

AllocationView one_gpu_pair_view() {
  AllocationView v;
  v.type_names = {"gpu"};
  v.gpus_per_type = {1};
  v.jobs = {view_job(0, {10.0}), view_job(1, {10.0})};
  v.pairs = {AllocationPair{0, 1, {6.0}, {7.0}}};
  return v;
}

}  // namespace

TEST_CASE("pair rates: read from Gavel's table in both orders, absent for unknown pairs") {
  const Cluster c = homogeneous_cluster(1, 1);
  auto table = GavelThroughputTable::load("pairs.json", kPairTable, c);
  const JobSpec a = steps_job("a", "A", 1), b = steps_job("b", "B", 1), x = steps_job("x", "X", 1);
  REQUIRE(table->pair_rates(a, b, 0, 1).has_value());
  CHECK(*table->pair_rates(a, b, 0, 1) == std::pair{6.0, 7.0});
  CHECK(*table->pair_rates(b, a, 0, 1) == std::pair{7.0, 6.0});
  CHECK_FALSE(table->pair_rates(a, b, 0, 2).has_value());  // no entry for 2 GPUs
  CHECK_FALSE(table->pair_rates(a, x, 0, 1).has_value());
  CHECK(table->rate(a, AllocationShape{0, 1, true}) == 10.0);  // solo rates unchanged
}

TEST_CASE("pair rates: bad entries are input errors naming the file and the field") {
  const Cluster c = homogeneous_cluster(1, 1);
  auto expect_error = [&](const std::string& pair, const std::string& words) {
    const std::string text = R"j({"gpu": {"('A', 1)": {"null": 10.0, "('B', 1)": )j" + pair +
                             R"j(}, "('B', 1)": {"null": 4.0}}})j";
    try {
      GavelThroughputTable::load("t.json", text, c);
      FAIL("no error for " << pair);
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK_THAT(what, Catch::Contains("t.json"));
      CHECK_THAT(what, Catch::Contains("gpu/('A', 1)/('B', 1)"));
      CHECK_THAT(what, Catch::Contains(words));
    }
  };
  expect_error("[10.0, 4.5]", "exceed the two jobs' solo rates 10 + 4");  // 14.5 > 10 + 4
  expect_error("[-1.0, 2.0]", ">= 0");
  expect_error("[1.0]", "[rate of this job, rate of the other]");
  expect_error("\"fast\"", "[rate of this job, rate of the other]");
  // A pair at exactly the two solo rates is accepted (the shipped table has such entries on v100).
  CHECK_NOTHROW(GavelThroughputTable::load(
      "t.json", R"j({"gpu": {"('A', 1)": {"null": 10.0, "('B', 1)": [10.0, 4.0]}, "('B', 1)": {"null": 4.0}}})j", c));
}

TEST_CASE("packed gavel-maxmin: 2 jobs, 1 GPU, pair rates (0.6, 0.7) of solo, LP solved by hand") {
  // Normalised throughputs: a = x_a + 0.6 y, b = x_b + 0.7 y, with x_a + x_b + y <= 1 (one GPU).
  // Equal at the optimum: x_a - x_b = 0.1 y and x_a + x_b = 1 - y, so z = (1 + 0.3 y) / 2 grows
  // with y until x_b = (1 - 1.1 y) / 2 reaches 0: y = 10/11, x_a = 1/11, x_b = 0, z = 7/11.
  // Unpacked, the best is x_a = x_b = 1/2 (z = 1/2).
  for (const char* fill : {"true", "false"}) {
    INFO("fill_spare=" << fill);
    auto policy = make_default_registry().make_allocation("gavel-maxmin", {{"packing", "true"}, {"fill_spare", fill}}, 0);
    REQUIRE(policy->packing());
    AllocationResult r = policy->allocate(one_gpu_pair_view());
    REQUIRE(r.ok);
    REQUIRE(r.pair_x.size() == 1);
    CHECK(r.pair_x[0][0] == Approx(10.0 / 11.0).margin(1e-6));
    CHECK(r.x[0][0] == Approx(1.0 / 11.0).margin(1e-6));
    CHECK(r.x[1][0] == Approx(0.0).margin(1e-6));
  }
  auto unpacked = make_default_registry().make_allocation("gavel-maxmin", {}, 0);
  CHECK_FALSE(unpacked->packing());
  AllocationResult u = unpacked->allocate(one_gpu_pair_view());
  CHECK(u.pair_x.empty());
  CHECK(u.x[0][0] == Approx(0.5).margin(1e-6));
  CHECK(u.x[1][0] == Approx(0.5).margin(1e-6));
}

TEST_CASE("packed gavel-maxmin: a pair whose rates are 0 on a type gets no time there") {
  AllocationView v = one_gpu_pair_view();
  v.pairs[0].second_rate = {0.0};
  auto policy = make_default_registry().make_allocation("gavel-maxmin", {{"packing", "true"}}, 0);
  AllocationResult r = policy->allocate(v);
  REQUIRE(r.ok);
  CHECK(r.pair_x[0][0] == 0.0);
  CHECK(r.x[0][0] == Approx(0.5).margin(1e-6));
}

TEST_CASE("packed pair on one GPU finishes at the hand-computed times") {
  // a: 3000 steps, b: 1400 steps, both at t = 0 on one GPU; solo 10 steps/s, together 6 and 7.
  // Round 1 (0-360 s): X = {pair 10/11, a 1/11, b 0}: the pair has the highest priority and
  // runs: a 6 * 360 = 2160 steps (360 s), b its 1400 steps in 200 s. The pair ends at 360 s, and
  // b completes then (Gavel: both jobs of a pair finish with the pair). Round 2: a alone,
  // 840 steps at 10/s: done at 444 s.
  const Cluster c = homogeneous_cluster(1, 1);
  auto table = GavelThroughputTable::load("pairs.json", kPairTable, c);
  Workload w;
  w.jobs = {steps_job("a", "A", 3000), steps_job("b", "B", 1400)};
  w.source = w.format = "test";
  auto policy = make_default_registry().make_allocation("gavel-maxmin", {{"packing", "true"}}, 0);
  GavelConfig config;
  config.check_invariants = true;
  const RunOutput out = simulate_gavel(c, w, *table, *policy, config,
                                       RunInfo{c.name(), "test", "test", "gavel-maxmin", "", "gavel-table", 0, ""});
  CHECK(record(out, "a").finish_s == Approx(444.0));
  CHECK(record(out, "b").finish_s == Approx(360.0));
  CHECK(record(out, "a").status == JobStatus::Completed);
  CHECK(record(out, "b").status == JobStatus::Completed);
  // Without packing (X = 1/2 each, a first by arrival): a alone 3000 steps in 300 s (the round
  // ends then), b 1400 steps from 300 s: 440 s. Packing raised the smaller normalised share
  // (7/11 > 1/2) but not the mean JCT here (402 s against 370 s).
  auto plain = make_default_registry().make_allocation("gavel-maxmin", {}, 0);
  const RunOutput alone = simulate_gavel(c, w, *table, *plain, config,
                                         RunInfo{c.name(), "test", "test", "gavel-maxmin", "", "gavel-table", 0, ""});
  CHECK(record(alone, "a").finish_s == Approx(300.0));
  CHECK(record(alone, "b").finish_s == Approx(440.0));
}

TEST_CASE("gandiva: equal shares when the jobs fit, random pairs when oversubscribed") {
  auto gandiva = [] { return make_default_registry().make_allocation("gandiva", {}, 0); };
  SECTION("3 one-GPU jobs on 2 + 2 GPUs fit: x = [2/3, 2/3] scaled to a row sum of 1") {
    AllocationView v;
    v.type_names = {"p", "q"};
    v.gpus_per_type = {2, 2};
    v.jobs = {view_job(0, {1, 1}), view_job(1, {1, 1}), view_job(2, {1, 1})};
    AllocationResult r = gandiva()->allocate(v);
    for (const auto& row : r.x) CHECK(row == std::vector<double>{0.5, 0.5});
  }
  SECTION("3 one-GPU jobs on 2 GPUs: CPython's Random(0).sample([0, 1, 2], 2) = [1, 2] pairs jobs 1 and 2") {
    AllocationView v;
    v.type_names = {"gpu"};
    v.gpus_per_type = {2};
    v.jobs = {view_job(0, {10}), view_job(1, {10}), view_job(2, {10})};
    v.pairs = {AllocationPair{0, 1, {6}, {7}}, AllocationPair{0, 2, {6}, {7}}, AllocationPair{1, 2, {6}, {7}}};
    AllocationResult r = gandiva()->allocate(v);
    // Two combinations (pair {1, 2} and job 0): each 2 GPUs / 2 / 1 = 1.
    CHECK(r.pair_x == AllocationMatrix{{0.0}, {0.0}, {1.0}});
    CHECK(r.x == AllocationMatrix{{1.0}, {0.0}, {0.0}});
  }
  SECTION("different scale factors are never paired: 1 + 2 GPUs requested on 2 GPUs") {
    AllocationView v;
    v.type_names = {"gpu"};
    v.gpus_per_type = {2};
    v.jobs = {view_job(0, {10}), view_job(1, {10})};
    v.jobs[1].scale_factor = 2;
    AllocationResult r = gandiva()->allocate(v);
    CHECK(r.x == AllocationMatrix{{1.0}, {0.5}});  // 2 / 2 combinations / scale factor
  }
}

TEST_CASE("gandiva: introspection splits a pair whose packed throughput does not pay") {
  // Two jobs on one GPU are paired (the only draw). Pair rates (0.3, 0.4) of solo: 0.7 < 1, so
  // the next allocation splits the pair; with (0.6, 0.7) (1.3) the pair is kept without a draw.
  auto policy = make_default_registry().make_allocation("gandiva", {}, 0);
  AllocationView v = one_gpu_pair_view();
  CHECK(policy->allocate(v).pair_x == AllocationMatrix{{1.0}});
  AllocationResult kept = policy->allocate(v);
  CHECK(kept.pair_x == AllocationMatrix{{1.0}});
  v.jobs.push_back(view_job(2, {10}));  // a third job: it alone is single, the kept pair stays
  v.pairs.push_back(AllocationPair{0, 2, {6}, {7}});
  AllocationResult three = policy->allocate(v);
  CHECK(three.pair_x[0] == std::vector<double>{1.0 / 2.0});  // 1 GPU / 2 combinations
  CHECK(three.x[2] == std::vector<double>{1.0 / 2.0});
  v.pairs[0].first_rate = {3.0};
  v.pairs[0].second_rate = {4.0};
  AllocationResult split = policy->allocate(v);
  // Split: the three jobs are regrouped at random; the (0, 1) pair, if drawn again, is new.
  double total = 0.0;
  for (const auto& row : split.x) total += row[0];
  for (const auto& row : split.pair_x) total += row[0];
  CHECK(total == Approx(1.0));  // two combinations of 1/2 each
}

TEST_CASE("hetsim run: a pair rate sum above the solo rates stops with exit 2 naming file and field") {
  const TempDir dir("packing-cli");
  const std::string table = dir.write("bad.json", R"j({"v100": {"('A', 1)": {"null": 1.0, "('A', 1)": [1.5, 0.9]}}})j");
  // Gavel's 10-field physical-cluster trace format: one job of type A, 10 steps on 1 GPU at t = 0.
  const std::string trace = dir.write("jobs.trace", "A\tpython3 a.py\ta\t-s\t0\t10\t1\t1\t-1\t0\n");
  expect_input_error("run --cluster gavel-24 --trace " + trace + " --throughputs " + table +
                         " --policy gandiva --mechanism gavel -q --out " + (dir.path / "out").string(),
                     "bad.json: field 'v100/('A', 1)/('A', 1)': pair rates 1.5 + 0.9 steps/s exceed the two jobs' solo "
                     "rates 1 + 1");
}

TEST_CASE("gavel-maxmin and gavel-throughput group=true: identical jobs share one LP variable, same optimum as per job (by hand)") {
  // One type, 2 GPUs; a1, a2 identical (1 GPU, rate 10), c on 2 GPUs (rate 10). Normalised
  // throughputs x_a and 2 x_c (scale factor 2), GPU row x_a1 + x_a2 + 2 x_c <= 2: max-min sets
  // x_a = 2 x_c = z with 3 z = 2, so z = 2/3: x_a = 2/3 each, x_c = 1/3, every GPU used (fill_spare
  // cannot add). Grouped, a1 and a2 are one variable y <= 2 with row y / 2 >= z: y = 4/3.
  AllocationView v;
  v.type_names = {"gpu"};
  v.gpus_per_type = {2};
  v.jobs = {view_job(0, {10.0}), view_job(1, {10.0}), view_job(2, {10.0})};
  for (AllocationJob& j : v.jobs) j.scale_factor = 1;
  v.jobs[2].scale_factor = 2;
  for (const char* group : {"false", "true"}) {
    INFO("group=" << group);
    auto policy = make_default_registry().make_allocation("gavel-maxmin", {{"group", group}}, 0);
    AllocationResult r = policy->allocate(v);
    REQUIRE(r.ok);
    REQUIRE(r.x.size() == 3);
    CHECK(r.x[0][0] == Approx(2.0 / 3.0).margin(1e-6));
    CHECK(r.x[1][0] == Approx(2.0 / 3.0).margin(1e-6));
    CHECK(r.x[2][0] == Approx(1.0 / 3.0).margin(1e-6));
  }
  // gavel-throughput on the same view: total normalised throughput x_a1 + x_a2 + x_c (all rates at
  // their best) under x_a1 + x_a2 + 2 x_c <= 2 is 2 only at x_a = 1, x_c = 0; grouped: y = 2.
  for (const char* group : {"false", "true"}) {
    INFO("gavel-throughput group=" << group);
    auto policy = make_default_registry().make_allocation("gavel-throughput", {{"group", group}}, 0);
    AllocationResult r = policy->allocate(v);
    REQUIRE(r.ok);
    CHECK(r.x[0][0] == Approx(1.0).margin(1e-6));
    CHECK(r.x[1][0] == Approx(1.0).margin(1e-6));
    CHECK(r.x[2][0] == Approx(0.0).margin(1e-6));
  }
  CHECK_THROWS_WITH(make_default_registry().make_allocation("gavel-throughput", {{"group", "1"}}, 0),
                    Catch::Contains("expected true or false, got '1'"));
  CHECK_THROWS_WITH(make_default_registry().make_allocation("gavel-maxmin", {{"group", "true"}, {"packing", "true"}}, 0),
                    Catch::Contains("group") && Catch::Contains("packing"));
  CHECK_THROWS_WITH(make_default_registry().make_allocation("gavel-maxmin", {{"group", "yes"}}, 0),
                    Catch::Contains("expected true, false or auto, got 'yes'"));
  // group=auto (the default) is per job with packing=true, whose pairs are per job.
  CHECK_NOTHROW(make_default_registry().make_allocation("gavel-maxmin", {{"packing", "true"}}, 0));
}
