// The heet policy: Hungarian matching, slot size, one trade by hand, and a golden run on heet-12.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "hetsim/policy/heet_plan.hpp"
#include "hetsim/policy/matching.hpp"
#include "hetsim/run.hpp"
#include "test_support.hpp"

using namespace hetsim;

TEST_CASE("Hungarian matching on a 3x3 hand example") {
  // Permutation costs: (c1,c0,c2) = 1+2+2 = 5 is the unique optimum; (c0,c1,c2) = 6, (c2,c1,c0) = 6,
  // (c2,c0,c1) = 7, (c1,c2,c0) = 9, (c0,c2,c1) = 11.
  const std::vector<std::vector<double>> cost{{4, 1, 3}, {2, 0, 5}, {3, 2, 2}};
  CHECK(min_weight_full_matching(cost) == std::vector<int>{1, 0, 2});
}

TEST_CASE("Matching is full on the smaller side and skips missing edges") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  // 3 jobs, 2 slots: the two cheapest compatible pairs.
  CHECK(min_weight_full_matching({{5, 6}, {1, 9}, {7, 2}}) == std::vector<int>{-1, 0, 1});
  // 2 rows, 3 columns: every row matched.
  CHECK(min_weight_full_matching({{3, 1, 2}, {3, 1, 9}}) == std::vector<int>{2, 1});
  // Row 0 has no edge at all: it stays unmatched and row 1 still gets its best column.
  CHECK(min_weight_full_matching({{inf, inf}, {4, 3}}) == std::vector<int>{-1, 1});
}

TEST_CASE("Matching equals brute force on random 5x5 and 4x6 matrices") {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t rows = trial % 2 ? 5 : 4, cols = trial % 2 ? 5 : 6;
    std::vector<std::vector<double>> c(rows, std::vector<double>(cols));
    for (auto& r : c)
      for (double& x : r) x = static_cast<double>(rng() % 1000) / 10.0;
    const auto m = min_weight_full_matching(c);
    double got = 0.0;
    for (std::size_t r = 0; r < rows; ++r) got += c[r][static_cast<std::size_t>(m[r])];
    std::vector<int> perm(cols);
    for (std::size_t k = 0; k < cols; ++k) perm[k] = static_cast<int>(k);
    double best = std::numeric_limits<double>::infinity();
    do {
      double s = 0.0;
      for (std::size_t r = 0; r < rows; ++r) s += c[r][static_cast<std::size_t>(perm[r])];
      best = std::min(best, s);
    } while (std::next_permutation(perm.begin(), perm.end()));
    CHECK(got == Approx(best));
  }
}

TEST_CASE("Matching by column class equals the dense matching, ties and missing edges included") {
  // Costs from {0, 1, 2, inf} make ties everywhere: the by-class form must pick the very same
  // columns as the dense one, not just an optimum of the same weight.
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(11);
  int dropped_columns_seen = 0, transposed_seen = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t classes = 1 + rng() % 3, rows = 1 + rng() % 12, cols = rng() % 16;
    std::vector<std::vector<double>> by_class(rows, std::vector<double>(classes));
    for (auto& r : by_class)
      for (double& x : r) x = rng() % 5 == 0 ? inf : static_cast<double>(rng() % 3);
    std::vector<int> column_class(cols);
    for (int& k : column_class) k = static_cast<int>(rng() % classes);
    std::vector<std::vector<double>> dense(rows, std::vector<double>(cols));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) dense[r][c] = by_class[r][static_cast<std::size_t>(column_class[c])];
    for (std::size_t k = 0; k < classes; ++k)
      if (static_cast<std::size_t>(std::count(column_class.begin(), column_class.end(), static_cast<int>(k))) > rows)
        ++dropped_columns_seen;
    if (rows > 2 * cols + 1) ++transposed_seen;  // enough rows that some are dominated
    INFO("trial " << trial);
    CHECK(min_weight_full_matching_by_class(by_class, column_class) == min_weight_full_matching(dense));
  }
  CHECK(dropped_columns_seen > 50);  // the trials do exercise both reductions
  CHECK(transposed_seen > 30);
  CHECK_THROWS_AS(min_weight_full_matching_by_class({{1.0}}, {1}), std::invalid_argument);
}

TEST_CASE("Slot size follows the prototype's thresholds") {
  CHECK(heet_slot_size(12, 8, 4) == 1);   // 1.5 GPUs per job
  CHECK(heet_slot_size(12, 7, 4) == 2);   // 1.71
  CHECK(heet_slot_size(12, 5, 4) == 2);   // 2.4
  CHECK(heet_slot_size(12, 4, 4) == 4);   // 3.0
  CHECK(heet_slot_size(120, 10, 4) == 4);
  CHECK(heet_weight(100, 1.0, 2.8) == Approx(100.0 / 7.84));
  CHECK(heet_release_price({0, 1, 1.8, 2.4, 2.8}, 4) == Approx(2 * 0.4 / 2.8));
  CHECK(heet_gain_price({0, 1, 1.5, 1.8, 2.0}, 4) == Approx(0.5));
}

TEST_CASE("One trading step by hand") {
  // Three 4-GPU hosts of one type and four jobs: 12 / 4 = 3 GPUs per job -> slot size 4, three
  // slots. Weights remaining x T(4)^2 / T(1): A 100/2.8^2 = 12.76, B 100/3.5^2 = 8.16,
  // C 50 x (1/3.6)^2 / 0.5 = 7.72, D 200 x (1/2)^2 / 1 = 50 -> D waits.
  // Release prices 2(X(4)-X(3))/X(4): A 0.286, B 0.457, C 2 x 0.1 / 3.6 = 0.0556 -> C gives.
  // D's gain X(1)/X(4) = 0.5 >= 0.0556 -> one trade: C keeps 3 GPUs, D gets 1 on C's host.
  std::vector<HeetHost> hosts{{0, 4}, {0, 4}, {0, 4}};
  auto job = [](JobIndex j, double rem, std::vector<double> x) { return HeetJob{j, rem, {std::move(x)}, -1}; };
  std::vector<HeetJob> jobs{job(0, 100, {0, 1, 1.8, 2.4, 2.8}), job(1, 100, {0, 1, 1.9, 2.7, 3.5}),
                            job(2, 50, {0, 2, 3, 3.5, 3.6}), job(3, 200, {0, 1, 1.5, 1.8, 2.0})};
  std::vector<HeetTrade> trades;
  const auto plan = heet_plan(hosts, jobs, &trades);
  REQUIRE(plan.size() == 4);
  CHECK(plan[0].gpus == 4);
  CHECK(plan[1].gpus == 4);
  CHECK(plan[2].gpus == 3);
  CHECK(plan[3].gpus == 1);
  CHECK(plan[3].host == plan[2].host);
  REQUIRE(trades.size() == 1);
  CHECK(trades[0].from == 2);
  CHECK(trades[0].to == 3);
  CHECK(trades[0].release_price == Approx(2 * 0.1 / 3.6));
  CHECK(trades[0].gain_price == Approx(0.5));

  // A waiting job that scales well gains little from one GPU: X(1)/X(4) = 0.1/5 = 0.02 < 0.0556, so
  // no trade pays and it waits (weight 10000 x (1/5)^2 / 10 = 40 keeps it out of the matching).
  jobs[3] = job(3, 10000, {0, 0.1, 1.5, 3, 5});
  trades.clear();
  const auto plan2 = heet_plan(hosts, jobs, &trades);
  CHECK(trades.empty());
  CHECK(plan2.size() == 3);
}

TEST_CASE("Matched jobs stay on their current host") {
  std::vector<HeetHost> hosts{{0, 4}, {0, 4}};
  std::vector<HeetJob> jobs{{0, 10, {{0, 1, 2, 3, 4}}, 1}, {1, 10, {{0, 1, 2, 3, 4}}, -1}};
  const auto plan = heet_plan(hosts, jobs);
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].host == 1);
  CHECK(plan[1].host == 0);
}

TEST_CASE("heet on heet-12 with the prototype trace: golden average JCT") {
  auto trace = test::shared_data("heet-prototype/trace.dat");
  auto profiles = test::shared_data("heet-prototype/profiles.json");
  if (!trace || !profiles) return;
  RunSpec spec;
  spec.cluster = "heet-12";
  spec.trace = *trace;
  spec.format = TraceFormat::Heet;
  spec.throughputs = *profiles;
  spec.policy = "heet";
  spec.params = {{"restart_s", "0"}};
  const RunOutput out = run_simulation(spec, make_default_registry());
  CHECK(out.summary.completed == 18);
  CHECK(out.stats.refused_requests == 0);
  // Pinned from this implementation (120 s rounds from the policy, oracle profiles, no restart cost);
  // the prototype (mozizhao/elastic, run unchanged with simulated progress) gives the same figures.
  CHECK(out.summary.jct_mean_s == Approx(13598.672294).epsilon(1e-9));
  CHECK(out.summary.makespan_s == Approx(28928.740564).epsilon(1e-9));
  CHECK(out.summary.restarts == 0);
}

TEST_CASE("heet on heet-12 with the prototype trace: golden with the default 30 s restart cost") {
  auto trace = test::shared_data("heet-prototype/trace.dat");
  auto profiles = test::shared_data("heet-prototype/profiles.json");
  if (!trace || !profiles) return;
  RunSpec spec;
  spec.cluster = "heet-12";
  spec.trace = *trace;
  spec.format = TraceFormat::Heet;
  spec.throughputs = *profiles;
  spec.policy = "heet";
  const RunOutput out = run_simulation(spec, make_default_registry());
  CHECK(out.summary.completed == 18);
  // Pinned from this implementation: every start, resize and move pays heet's restart_s = 30 s.
  CHECK(out.summary.jct_mean_s == Approx(14139.455965).epsilon(1e-9));
  CHECK(out.summary.makespan_s == Approx(29986.17243).epsilon(1e-9));
  CHECK(out.summary.restarts == 230);
}

TEST_CASE("heet's one-type matching takes the jobs the Hungarian search takes, ties and missing edges included") {
  // Costs from {0, 1, 2, inf} make ties everywhere; fewer, equal and more jobs than slots.
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(5);
  int more_jobs_seen = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t jobs = 1 + rng() % 12, slots = 1 + rng() % 8, types = 1 + rng() % 3;
    const int t = static_cast<int>(rng() % types);
    std::vector<std::vector<double>> cost(jobs, std::vector<double>(types));
    for (auto& row : cost)
      for (double& c : row) c = rng() % 5 == 0 ? inf : static_cast<double>(rng() % 3);
    const std::vector<int> slot_type(slots, t);
    const std::vector<int> match = min_weight_full_matching_by_class(cost, slot_type);
    const std::vector<GpuTypeId> got = heet_match_types(cost, slot_type);
    for (std::size_t j = 0; j < jobs; ++j) CHECK(got[j] == (match[j] >= 0 ? t : -1));
    more_jobs_seen += jobs > slots ? 1 : 0;
  }
  CHECK(more_jobs_seen > 50);
}

TEST_CASE("heet's exchange matching gives the Hungarian search's types whenever it answers, and declines ties") {
  // Continuous weights (unique optimum: it must answer) and weights from {1, 2, 3} (ties: where it
  // still answers, the answer must be the search's); fewer, equal and more jobs than slots; starts
  // at random types, as last round's answer would be.
  std::mt19937_64 rng(11);
  int answered = 0, declined_ties = 0, more_jobs_seen = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const bool ties = trial % 2 == 1;
    const std::size_t jobs = 1 + rng() % 14, types = 2 + rng() % 3;
    std::vector<int> slot_type;
    for (std::size_t t = 0; t < types; ++t)
      for (std::size_t k = rng() % 6; k > 0; --k) slot_type.push_back(static_cast<int>(t));
    if (slot_type.empty()) slot_type.push_back(0);
    std::vector<std::vector<double>> cost(jobs, std::vector<double>(types));
    std::uniform_real_distribution<double> u(1.0, 1000.0);
    for (auto& row : cost)
      for (double& c : row) c = ties ? static_cast<double>(1 + rng() % 3) : u(rng);
    std::vector<GpuTypeId> start(jobs);
    for (GpuTypeId& s : start) s = static_cast<GpuTypeId>(rng() % (types + 1)) - 1;
    const std::vector<GpuTypeId> search = heet_match_types(cost, slot_type);
    std::vector<GpuTypeId> fast;
    const bool ok = heet_match_types_exchange(cost, slot_type, start, fast);
    if (!ties) CHECK(ok);
    if (ok) {
      CHECK(fast == search);
      ++answered;
    } else if (ties) {
      ++declined_ties;
    }
    more_jobs_seen += jobs > slot_type.size() ? 1 : 0;
  }
  CHECK(answered > 300);
  CHECK(declined_ties > 50);
  CHECK(more_jobs_seen > 100);
  // Two equal jobs on one slot of each of two types: two optima, so it declines.
  std::vector<GpuTypeId> out;
  CHECK_FALSE(heet_match_types_exchange({{1.0, 2.0}, {1.0, 2.0}}, {0, 1}, {-1, -1}, out));
  // An infinite weight is a missing edge: avoided when it can be, declined when a job needs it.
  constexpr double inf = std::numeric_limits<double>::infinity();
  REQUIRE(heet_match_types_exchange({{1.0, inf}, {2.0, 3.0}}, {0, 1}, {-1, -1}, out));
  CHECK(out == std::vector<GpuTypeId>{0, 1});
  // Type 1 has no finite weight: the search fills its slot through a missing edge (reported
  // unmatched) and gives type 0 to the cheaper job; the solver leaves the type out and agrees.
  REQUIRE(heet_match_types_exchange({{1.0, inf}, {2.0, inf}}, {0, 1}, {-1, -1}, out));
  CHECK(out == std::vector<GpuTypeId>{0, -1});
  CHECK(out == heet_match_types({{1.0, inf}, {2.0, inf}}, {0, 1}));
  // A job that starts on the only type where another job can run hands it over (an augmenting
  // path), so both run: 0 moves to type 1, 1 takes type 0.
  REQUIRE(heet_match_types_exchange({{1.0, 5.0}, {2.0, inf}}, {0, 1}, {0, -1}, out));
  CHECK(out == std::vector<GpuTypeId>{1, 0});
  CHECK(out == heet_match_types({{1.0, 5.0}, {2.0, inf}}, {0, 1}));
  // By hand: job 0 gains 9 on type 1, job 1 gains 1: job 0 takes type 1's single slot even though
  // it starts on type 0 and job 1 starts on type 1.
  REQUIRE(heet_match_types_exchange({{10.0, 1.0}, {5.0, 4.0}}, {0, 1}, {0, 1}, out));
  CHECK(out == std::vector<GpuTypeId>{1, 0});
}

TEST_CASE("heet's exchange matching with missing edges gives the search's types, a type without finite weights included") {
  // Continuous weights, each missing with probability 1/4, and in every other trial one type
  // missing for every job (heet-120 under Gavel's table: only v100 has rates): where it answers,
  // as many jobs as real edges allow are matched, as the search matches them. It may still decline
  // (safe: the search decides), but must answer nearly always (398 of 400 when written).
  std::mt19937_64 rng(23);
  constexpr double inf = std::numeric_limits<double>::infinity();
  int answered = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t jobs = 1 + rng() % 14, types = 2 + rng() % 3;
    std::vector<int> slot_type;
    for (std::size_t t = 0; t < types; ++t)
      for (std::size_t k = 1 + rng() % 5; k > 0; --k) slot_type.push_back(static_cast<int>(t));
    std::vector<std::vector<double>> cost(jobs, std::vector<double>(types));
    std::uniform_real_distribution<double> u(1.0, 1000.0);
    const std::size_t dead_type = trial % 2 == 0 ? rng() % types : types;
    for (auto& row : cost)
      for (std::size_t t = 0; t < types; ++t) row[t] = t == dead_type || rng() % 4 == 0 ? inf : u(rng);
    std::vector<GpuTypeId> start(jobs);
    for (GpuTypeId& s : start) s = static_cast<GpuTypeId>(rng() % (types + 1)) - 1;
    std::vector<GpuTypeId> fast;
    if (heet_match_types_exchange(cost, slot_type, start, fast)) {
      CHECK(fast == heet_match_types(cost, slot_type));
      ++answered;
    }
  }
  CHECK(answered >= 390);
}

// heet's round skipping must not move a decision: the same runs with and without it, job by job.
static void check_round_skip_same(RunSpec spec, const std::string& tail = "off") {
  spec.policy = "heet";
  spec.params = {{"round_skip", "false"}, {"tail", tail}};
  const RunOutput full = run_simulation(spec, make_default_registry());
  spec.params = {{"round_skip", "true"}, {"tail", tail}};
  const RunOutput skip = run_simulation(spec, make_default_registry());
  REQUIRE(full.records.size() == skip.records.size());
  CHECK(full.summary.completed == full.records.size());
  for (std::size_t k = 0; k < full.records.size(); ++k) {
    CHECK(full.records[k].finish_s == skip.records[k].finish_s);
    CHECK(full.records[k].start_s == skip.records[k].start_s);
    CHECK(full.records[k].restarts == skip.records[k].restarts);
    CHECK(full.records[k].preemptions == skip.records[k].preemptions);
    CHECK(full.records[k].gpus == skip.records[k].gpus);
  }
  CHECK(full.summary.restarts == skip.summary.restarts);
}

TEST_CASE("heet's round skipping gives the same runs: generated jobs with wide ones, and an ITP trace") {
  auto gavel = test::shared_data("gavel/simulation_throughputs.json");
  auto itp = test::shared_data("elasticflow-itp/raw-traces/cluster01.csv");
  if (!gavel || !itp) return;
  RunSpec generated;
  generated.cluster = "heet-120";
  generated.throughputs = *gavel;
  generated.generator = GavelWorkloadConfig{};
  generated.generator->jobs = 300;
  check_round_skip_same(generated);
  check_round_skip_same(generated, "wide");  // the tail rule keeps skipping exact (docs/policies.md heet)
  check_round_skip_same(generated, "all");
  check_round_skip_same(generated, "guard");  // the default: starved jobs' lag grows in skipped rounds too
  RunSpec trace;
  trace.cluster = "pollux-64";
  trace.cluster_scale = 4;
  trace.trace = *itp;
  trace.format = TraceFormat::Itp;
  check_round_skip_same(trace);
  check_round_skip_same(trace, "all");
  check_round_skip_same(trace, "guard");
  CHECK_THROWS_WITH(make_default_registry().make("heet", {{"round_skip", "yes"}}, 0),
                    Catch::Contains("round_skip") && Catch::Contains("true or false"));
}

// heet.cpp hands heet_plan only the cheapest jobs on one-type clusters with 1-GPU slots (its
// waiting jobs kept in weight order, heet_wide_index.cpp): the plan and `steady` must be the full
// call's. Weights memoised across calls (HeetWeightMemo) must be the ones computed afresh.
TEST_CASE("heet_plan on the cheapest jobs with the job count equals the full plan (one type, 1-GPU slots)") {
  std::mt19937_64 rng(11);
  int subset_smaller = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<HeetHost> hosts(1 + rng() % 6);
    int total = 0, largest = 0;
    for (HeetHost& h : hosts) {
      h = {0, static_cast<int>(rng() % 5)};
      total += h.gpus;
      largest = std::max(largest, h.gpus);
    }
    const std::size_t n = static_cast<std::size_t>(total) * 2 + 1 + rng() % 10;  // > 1.5 jobs per GPU
    REQUIRE(heet_slot_size(total, n, largest) == 1);
    std::vector<HeetJob> jobs;
    std::vector<HeetWeightMemo> memo(n);
    for (std::size_t j = 0; j < n; ++j) {
      const double x1 = rng() % 6 == 0 ? 0.0 : 0.5 + static_cast<double>(rng() % 4);  // 0: infinite weight
      const double remaining = static_cast<double>(rng() % 7) * 10.0;  // ties in weight
      jobs.push_back({static_cast<JobIndex>(j), remaining, {{0, x1, 1.6 * x1, 2.1 * x1, 2.5 * x1}},
                      rng() % 3 == 0 ? static_cast<int>(rng() % hosts.size()) : -1});
    }
    bool full_steady = false, sub_steady = false;
    const auto full = heet_plan(hosts, jobs, nullptr, &full_steady);
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t j = 0; j < n; ++j)
      if (const double w = heet_weight(jobs[j].remaining_work, jobs[j].rate[0][1], jobs[j].rate[0][1]); std::isfinite(w))
        order.push_back({w, j});
    std::sort(order.begin(), order.end());
    order.resize(std::min(order.size(), static_cast<std::size_t>(total)));
    std::vector<std::size_t> keep;
    for (const auto& o : order) keep.push_back(o.second);
    std::sort(keep.begin(), keep.end());
    std::vector<HeetJob> sub;
    for (std::size_t j : keep) sub.push_back(jobs[j]);
    for (std::size_t k = 0; k < sub.size(); ++k) sub[k].memo = &memo[keep[k]];
    const auto part = heet_plan(hosts, sub, nullptr, &sub_steady, n);
    const auto again = heet_plan(hosts, sub, nullptr, nullptr, n);  // from the memo this time
    REQUIRE(part.size() == full.size());
    REQUIRE(again.size() == full.size());
    for (std::size_t k = 0; k < full.size(); ++k) {
      CHECK(part[k].job == full[k].job);
      CHECK(part[k].host == full[k].host);
      CHECK(part[k].gpus == full[k].gpus);
      CHECK(again[k].job == full[k].job);
      CHECK(again[k].host == full[k].host);
    }
    CHECK(sub_steady == full_steady);
    for (std::size_t k = 0; k < sub.size(); ++k)
      CHECK(memo[keep[k]].weight.at(0) == heet_weight(sub[k].remaining_work, sub[k].rate[0][1], sub[k].rate[0][1]));
    subset_smaller += sub.size() < n ? 1 : 0;
  }
  CHECK(subset_smaller == 200);
  // A memo kept from another remaining work is refreshed, not reused.
  HeetWeightMemo m;
  std::vector<HeetJob> one{{0, 10.0, {{0, 2.0}}, -1, &m}};
  heet_plan({{0, 1}}, one);
  CHECK(m.weight.at(0) == Approx(5.0));  // 10 x (1/2)^2 / (1/2)
  one[0].remaining_work = 30.0;
  heet_plan({{0, 1}}, one);
  CHECK(m.weight.at(0) == Approx(15.0));
}
