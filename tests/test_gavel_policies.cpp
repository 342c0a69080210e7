// Each allocation policy on a 2-job, 2-type example solved by hand (docs/policies.md gives the
// formulations). Types A and B have 1 GPU each; all jobs use 1 GPU and weight 1.
#include <catch2/catch.hpp>

#include <string>

#include "hetsim/policy/registry.hpp"
#include "hetsim/util/error.hpp"

using namespace hetsim;

namespace {

AllocationView two_by_two(std::vector<double> t0, std::vector<double> t1, double rem0 = 1, double rem1 = 1) {
  AllocationView v;
  v.type_names = {"a", "b"};
  v.gpus_per_type = {1, 1};
  AllocationJob j0, j1;
  j0.job = 0;
  j0.throughput = std::move(t0);
  j0.remaining_work = rem0;
  j1.job = 1;
  j1.throughput = std::move(t1);
  j1.remaining_work = rem1;
  v.jobs = {j0, j1};
  return v;
}

AllocationMatrix allocate(const std::string& policy, const AllocationView& view, PolicyParams params = {}) {
  PolicyRegistry registry = make_default_registry();
  auto p = registry.make_allocation(policy, params, 0);
  AllocationResult r = p->allocate(view);
  REQUIRE(r.ok);
  REQUIRE(r.x.size() == 2);
  return r.x;
}

void check_matrix(const AllocationMatrix& x, const AllocationMatrix& want) {
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t t = 0; t < 2; ++t) {
      INFO("x[" << i << "][" << t << "]");
      CHECK(x[i][t] == Approx(want[i][t]).margin(1e-6));
    }
}

}  // namespace

TEST_CASE("gavel-maxmin: T = [[4,1],[2,1]] splits both types half and half") {
  // P0 = (4+1)/2 = 2.5, P1 = 1.5. Normalised: job0 1.6 a0 + 0.4 b0, job1 (4/3) a1 + (2/3) b1.
  // Job 1 on B alone reaches 2/3; moving t of A to job 1 (and t of B to job 0):
  // 2/3 + 2/3 t = 1.6 - 1.2 t  ->  t = 1/2, both at 1.0 (the max-min optimum).
  for (const char* fill : {"true", "false"}) {
    AllocationMatrix x = allocate("gavel-maxmin", two_by_two({4, 1}, {2, 1}), {{"fill_spare", fill}});
    check_matrix(x, {{0.5, 0.5}, {0.5, 0.5}});
  }
}

TEST_CASE("gavel-maxmin: a job never gets time on a type where its throughput is 0") {
  // Job 0 cannot run on B. Job 1 reaches its cap 1 on B alone; fill_spare then gives A to job 0.
  AllocationMatrix x = allocate("gavel-maxmin", two_by_two({2, 0}, {1, 1}));
  check_matrix(x, {{1, 0}, {0, 1}});
}

TEST_CASE("gavel-throughput: comparative advantage decides, total normalised throughput 2") {
  // Normalised gains: job0 A 1, B 0.5; job1 A 1, B 1. Job0 on A + job1 on B = 2 beats 1.5.
  AllocationMatrix x = allocate("gavel-throughput", two_by_two({2, 1}, {1, 1}));
  check_matrix(x, {{1, 0}, {0, 1}});
}

TEST_CASE("gavel-makespan: remaining 4 and 2 steps, T = [[4,1],[2,1]]") {
  // Progress rates over remaining work: job0 a0 + b0/4, job1 a1 + b1/2. Give t of A to job 1:
  // 0.5 + 0.5 t = 1 - 0.75 t -> t = 0.4, z = 0.7 (makespan 1/0.7 s).
  AllocationMatrix x = allocate("gavel-makespan", two_by_two({4, 1}, {2, 1}, 4, 2));
  check_matrix(x, {{0.6, 0.4}, {0.4, 0.6}});
}

TEST_CASE("gavel-ftf: rho* = 1, job 0 on A, job 1 on B") {
  // Isolated shares: job0 [0.5, 0] -> 1 step/s, job1 [0.5, 0.5] -> 1 step/s; rem 100, age 0, so
  // rho_i = 1 / r_i. Job 1 is capped at r = 1 (one row), so rho* = 1; the feasibility LP then
  // maximises normalised throughput: job 0 all of A (r = 2), job 1 all of B.
  AllocationMatrix x = allocate("gavel-ftf", two_by_two({2, 0}, {1, 1}, 100, 100));
  check_matrix(x, {{1, 0}, {0, 1}});
}

TEST_CASE("sia: p = -0.5 picks the assignment with the smaller powered speed-ups") {
  // Speed-ups over the slowest type: job0 [4, 1], job1 [2, 1]; A = speedup^-0.5 -> [0.5, 1] and
  // [0.71, 1]. Costs with lambda_n 1.1: job0 on A + job1 on B = -0.6 - 0.1 = -0.7 beats -0.49.
  AllocationMatrix x = allocate("sia", two_by_two({4, 1}, {2, 1}));
  check_matrix(x, {{1, 0}, {0, 1}});
}

TEST_CASE("sia: search limits are parameters, checked, and a root-only search still answers") {
  // The 2 x 2 ILP is solved at the root, so even a 1-node limit gives the optimum above.
  AllocationMatrix x = allocate("sia", two_by_two({4, 1}, {2, 1}), {{"mip_node_limit", "1"}});
  check_matrix(x, {{1, 0}, {0, 1}});
  PolicyRegistry registry = make_default_registry();
  for (PolicyParams bad : {PolicyParams{{"mip_node_limit", "0"}}, PolicyParams{{"mip_node_limit", "2.5"}},
                           PolicyParams{{"mip_time_limit_s", "0"}}, PolicyParams{{"mip_time_limit_s", "-1"}}})
    CHECK_THROWS_AS(registry.make_allocation("sia", bad, 0), InputError);
}

TEST_CASE("sia group=true: identical jobs share one integer variable, same optimum as per job (by hand)") {
  // A has 2 GPUs, B 1. Jobs 0-2 identical, rates [4, 1]: A = 4^-0.5 = 0.5 on A, 1 on B; with
  // lambda_n 1.1 their costs are -0.6 (A) and -0.1 (B). Job 3 runs on A only (rate 2, its own
  // slowest: speed-up 1, cost -0.1). Minimum: two of jobs 0-2 on A (-1.2) and the third on B
  // (-0.1): -1.3; job 3 on A instead of one of them gives -0.7 - 0.1 = -0.8 at best. Grouped, the
  // ILP has y_A = 2, y_B = 1 for the group, split in job order: jobs 0 and 1 on A, job 2 on B.
  AllocationView v;
  v.type_names = {"a", "b"};
  v.gpus_per_type = {2, 1};
  for (JobIndex i = 0; i < 4; ++i) {
    AllocationJob j;
    j.job = i;
    j.throughput = i < 3 ? std::vector<double>{4, 1} : std::vector<double>{2, 0};
    j.remaining_work = 1;
    v.jobs.push_back(j);
  }
  PolicyRegistry registry = make_default_registry();
  for (const char* group : {"true", "false"}) {
    INFO("group=" << group);
    AllocationResult r = registry.make_allocation("sia", {{"group", group}}, 0)->allocate(v);
    REQUIRE(r.ok);
    REQUIRE(r.x.size() == 4);
    double on_a = 0, on_b = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      on_a += r.x[i][0];
      on_b += r.x[i][1];
      CHECK(r.x[i][0] + r.x[i][1] == Approx(1.0));  // every identical job placed, none twice
    }
    CHECK(on_a == Approx(2.0));
    CHECK(on_b == Approx(1.0));
    CHECK(r.x[3][0] == Approx(0.0));
    CHECK(r.x[3][1] == Approx(0.0));
    if (std::string(group) == "true") {
      CHECK(r.x[0][0] == Approx(1.0));
      CHECK(r.x[1][0] == Approx(1.0));
      CHECK(r.x[2][1] == Approx(1.0));
    }
  }
  CHECK_THROWS_AS(registry.make_allocation("sia", {{"group", "yes"}}, 0), InputError);
}

TEST_CASE("fifo-perf: arrival order, each job on its fastest type with room") {
  AllocationMatrix x = allocate("fifo-perf", two_by_two({4, 1}, {2, 1}));
  check_matrix(x, {{1, 0}, {0, 1}});
}

TEST_CASE("isolated fallback: equal share, nothing where throughput is 0") {
  AllocationView v = two_by_two({2, 0}, {1, 1});
  AllocationMatrix x = isolated_allocation(v);
  check_matrix(x, {{0.5, 0}, {0.5, 0.5}});
}

namespace {
// The hand-solved 2 x 2 cases again, per back end, grouped (the default) and per job (the two jobs
// differ, so no group has two members and the grouped LPs are the per-job ones).
const std::vector<PolicyParams> kSolverForms = {{{"solver", "glpk"}, {"group", "false"}},
                                                {{"solver", "clp"}, {"group", "false"}},
                                                {{"solver", "clp"}, {"group", "true"}},
                                                {{"solver", "glpk"}, {"group", "true"}}};

// Three jobs with rates [1, 1] on types A and B of 1 GPU each, remaining work `rem`.
AllocationView three_equal_jobs(std::vector<double> rem) {
  AllocationView v;
  v.type_names = {"a", "b"};
  v.gpus_per_type = {1, 1};
  for (std::size_t i = 0; i < rem.size(); ++i) {
    AllocationJob j;
    j.job = static_cast<JobIndex>(i);
    j.throughput = {1, 1};
    j.remaining_work = rem[i];
    v.jobs.push_back(j);
  }
  return v;
}

AllocationResult allocate_all(const std::string& policy, const AllocationView& view, const PolicyParams& params) {
  PolicyRegistry registry = make_default_registry();
  AllocationResult r = registry.make_allocation(policy, params, 0)->allocate(view);
  REQUIRE(r.ok);
  REQUIRE(r.x.size() == view.jobs.size());
  return r;
}
}  // namespace

TEST_CASE("solver=clp and group=true: the hand-solved optima of every Gavel LP policy") {
  for (const PolicyParams& form : kSolverForms) {
    INFO("solver " << form.at("solver") << ", group=" << form.at("group"));
    PolicyParams maxmin = form;
    maxmin["fill_spare"] = "false";
    check_matrix(allocate("gavel-maxmin", two_by_two({4, 1}, {2, 1}), maxmin), {{0.5, 0.5}, {0.5, 0.5}});
    check_matrix(allocate("gavel-maxmin", two_by_two({2, 0}, {1, 1}), form), {{1, 0}, {0, 1}});
    check_matrix(allocate("gavel-throughput", two_by_two({2, 1}, {1, 1}), form), {{1, 0}, {0, 1}});
    check_matrix(allocate("gavel-makespan", two_by_two({4, 1}, {2, 1}, 4, 2), form), {{0.6, 0.4}, {0.4, 0.6}});
    check_matrix(allocate("gavel-ftf", two_by_two({2, 0}, {1, 1}, 100, 100), form), {{1, 0}, {0, 1}});
  }
  PolicyRegistry registry = make_default_registry();
  CHECK_THROWS_AS(registry.make_allocation("gavel-ftf", {{"solver", "cplex"}}, 0), InputError);
  CHECK_THROWS_AS(registry.make_allocation("gavel-makespan", {{"group", "yes"}}, 0), InputError);
}

TEST_CASE("gavel-makespan group=true: one group, split when it can be, per-job LP when not") {
  // Three equal jobs, rates 1 on A and B (1 GPU each), so at most 2 steps/s in all.
  for (const char* solver : {"glpk", "clp"}) {
    INFO("solver " << solver);
    // rem 1, 1, 1: z = 2/3 (each job 2/3 step/s, every GPU busy). The grouped LP's optimum splits
    // evenly: each job 2/3 of a round in all.
    AllocationResult even = allocate_all("gavel-makespan", three_equal_jobs({1, 1, 1}), {{"group", "true"}, {"solver", solver}});
    for (const auto& row : even.x) CHECK(row[0] + row[1] == Approx(2.0 / 3.0));
    CHECK(even.solves == 1);
    // rem 1, 1, 4: the grouped LP says z = 2/6 = 1/3, but job 3 would need 4/3 of a round; no split
    // exists, so the per-job LP answers: job 3 at its whole round (rate 1), z = 1/4, jobs 1 and 2
    // at least 1/4 of a round.
    AllocationResult capped = allocate_all("gavel-makespan", three_equal_jobs({1, 1, 4}), {{"group", "true"}, {"solver", solver}});
    CHECK(capped.solves == 2);
    CHECK(capped.x[2][0] + capped.x[2][1] == Approx(1.0));
    for (int i : {0, 1}) CHECK(capped.x[static_cast<std::size_t>(i)][0] + capped.x[static_cast<std::size_t>(i)][1] >= 0.25 - 1e-9);
  }
}

TEST_CASE("default group=true: identical jobs get identical allocations in every Gavel LP policy") {
  // Three identical jobs (rate 1 on A and on B, one GPU of each, remaining work 100). Every policy's
  // optimum uses both GPUs whole (throughput: sum 2 under y_A, y_B <= 1; max-min, ftf, makespan: each
  // job 2/3 of a round), so the grouped LP has y_A = y_B = 1 and each member gets 1/3 of A and 1/3
  // of B: the symmetric optimum Gavel's interior-point solver (ECOS) returns (docs/policies.md).
  for (const char* policy : {"gavel-maxmin", "gavel-throughput", "gavel-ftf", "gavel-makespan"}) {
    INFO(policy);
    AllocationResult r = allocate_all(policy, three_equal_jobs({100, 100, 100}), {});
    for (const auto& row : r.x) {
      CHECK(row[0] == Approx(1.0 / 3.0).margin(1e-3));
      CHECK(row[1] == Approx(1.0 / 3.0).margin(1e-3));
    }
  }
  // group=false (with break_ties=none, one LP) keeps the per-job LP: the optimum is a simplex vertex of
  // {x_iA + x_iB <= 1, sum_i x_iA <= 1, sum_i x_iB <= 1} with every GPU used, so every share is 0 or
  // 1 (the constraint matrix is totally unimodular): two jobs get a whole GPU, the third nothing.
  AllocationResult vertex = allocate_all("gavel-throughput", three_equal_jobs({100, 100, 100}),
                                         {{"group", "false"}, {"break_ties", "none"}});
  double total = 0;
  int whole = 0;
  for (const auto& row : vertex.x)
    for (double share : row) {
      CHECK((share == Approx(0.0).margin(1e-9) || share == Approx(1.0).margin(1e-9)));
      total += share;
      whole += share > 0.5 ? 1 : 0;
    }
  CHECK(total == Approx(2.0));
  CHECK(whole == 2);
}

TEST_CASE("gavel-ftf group=true: three equal jobs keep rho* = 1 and get 2/3 of a round each") {
  // Isolated share 1/3 of A and of B: 2/3 step/s, D = 100 / (2/3) = 150, age 0, so rho = 150^-1 *
  // 100 / r: rho* = 1 at r = 2/3 for every job (all GPUs busy), which the bisection finds within
  // its tolerance (1e-3) from both forms.
  for (const PolicyParams& form : kSolverForms) {
    INFO("solver " << form.at("solver") << ", group=" << form.at("group"));
    AllocationResult r = allocate_all("gavel-ftf", three_equal_jobs({100, 100, 100}), form);
    for (const auto& row : r.x) CHECK(row[0] + row[1] == Approx(2.0 / 3.0).margin(1e-3));
  }
}

TEST_CASE("sia proof=table: on a crowded round it reaches the optimum the full search proves, where 3 nodes do not") {
  // 40 jobs of 1, 2 or 4 GPUs on types of 12, 10 and 8 GPUs. Objective by hand from sia.cpp's
  // formula (new jobs: no restart factor, weight 1): sum over placed jobs of
  // round((T / slowest T)^-0.5, 2) - 1.1, to be minimised.
  AllocationView v;
  v.type_names = {"a", "b", "c"};
  v.gpus_per_type = {12, 10, 8};
  std::uint64_t state = 5;
  auto draw = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % n);
  };
  for (JobIndex i = 0; i < 40; ++i) {
    AllocationJob j;
    j.job = i;
    j.scale_factor = 1 << draw(3);
    for (int t = 0; t < 3; ++t) j.throughput.push_back(static_cast<double>(1 + draw(12)));
    j.remaining_work = 1;
    v.jobs.push_back(j);
  }
  auto objective = [&](const AllocationMatrix& x) {
    double sum = 0.0;
    std::vector<double> used(3, 0.0);
    for (std::size_t i = 0; i < v.jobs.size(); ++i) {
      const auto& t = v.jobs[i].throughput;
      const double slowest = *std::min_element(t.begin(), t.end());
      for (std::size_t k = 0; k < 3; ++k) {
        sum += x[i][k] * (std::round(std::pow(t[k] / slowest, -0.5) * 100.0) / 100.0 - 1.1);
        used[k] += x[i][k] * v.jobs[i].scale_factor;
      }
    }
    for (std::size_t k = 0; k < 3; ++k) CHECK(used[k] <= v.gpus_per_type[k]);
    return sum;
  };
  PolicyRegistry registry = make_default_registry();
  auto run = [&](const char* proof, const char* nodes) {
    AllocationResult r =
        registry.make_allocation("sia", {{"proof", proof}, {"mip_node_limit", nodes}}, 0)->allocate(v);
    REQUIRE(r.ok);
    return r;
  };
  // The table is asked at the first node after the root's branching: node 3 at the latest.
  const AllocationResult full = run("search", "100000"), short_search = run("search", "3"), table = run("table", "3");
  CHECK(full.node_limit_hits == 0);
  CHECK(short_search.node_limit_hits == 1);  // 3 nodes prove nothing here
  CHECK(table.node_limit_hits == 0);
  CHECK(objective(table.x) == Approx(objective(full.x)).margin(1e-9));
  CHECK(objective(short_search.x) > objective(full.x) + 0.005);  // ... and end short of the optimum
  CHECK_THROWS_AS(registry.make_allocation("sia", {{"proof", "dp"}}, 0), InputError);
}
