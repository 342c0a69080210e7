// The LinearProgram (GLPK and Clp back ends) and the CPython-compatible random stream, against
// values solved by hand or printed by CPython 3.11.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "hetsim/policy/lp.hpp"
#include "hetsim/util/py_random.hpp"

using namespace hetsim;

namespace {
const char* backend_name(LinearProgram::Backend b) { return b == LinearProgram::Backend::Clp ? "clp" : "glpk"; }
}  // namespace

TEST_CASE("LP: textbook maximisation solved by hand") {
  // max x + y, x + 2y <= 4, 3x + y <= 6 -> vertex x = 1.6, y = 1.2, objective 2.8.
  const auto backend = GENERATE(LinearProgram::Backend::Glpk, LinearProgram::Backend::Clp);
  INFO("back end " << backend_name(backend));
  LinearProgram lp(LinearProgram::Sense::Maximize, backend);
  int x = lp.add_variable(0, LinearProgram::kInf, 1);
  int y = lp.add_variable(0, LinearProgram::kInf, 1);
  lp.add_constraint({{x, 1}, {y, 2}}, -LinearProgram::kInf, 4);
  lp.add_constraint({{x, 3}, {y, 1}}, -LinearProgram::kInf, 6);
  LpResult r = lp.solve();
  REQUIRE(r.status == LpResult::Status::Optimal);
  CHECK(r.x[0] == Approx(1.6));
  CHECK(r.x[1] == Approx(1.2));
  CHECK(r.objective == Approx(2.8));
  CHECK(r.solve_s >= 0.0);
}

TEST_CASE("LP: infeasible and unbounded problems are reported, not thrown") {
  const auto backend = GENERATE(LinearProgram::Backend::Glpk, LinearProgram::Backend::Clp);
  INFO("back end " << backend_name(backend));
  LinearProgram infeasible(LinearProgram::Sense::Minimize, backend);
  int x = infeasible.add_variable(0, 1, 1);
  infeasible.add_constraint({{x, 1}}, 2, LinearProgram::kInf);
  LpResult a = infeasible.solve();
  CHECK(a.status == LpResult::Status::Infeasible);
  CHECK_FALSE(a.usable());

  LinearProgram unbounded(LinearProgram::Sense::Maximize, backend);
  int y = unbounded.add_variable(0, LinearProgram::kInf, 1);
  unbounded.add_constraint({{y, 1}}, 1, LinearProgram::kInf);
  LpResult b = unbounded.solve();
  CHECK(b.status == LpResult::Status::Unbounded);
  CHECK_FALSE(b.usable());

  LinearProgram bad(LinearProgram::Sense::Maximize);
  CHECK_THROWS_AS(bad.add_variable(2, 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(bad.add_constraint({{7, 1.0}}, 0, 1), std::invalid_argument);
}

TEST_CASE("LP: re-solves after bound, objective and structure changes start warm and stay exact") {
  // max x + y, x + 2y <= 4, 3x + y <= 6: optimum (1.6, 1.2), as above.
  const auto backend = GENERATE(LinearProgram::Backend::Glpk, LinearProgram::Backend::Clp);
  INFO("back end " << backend_name(backend));
  LinearProgram lp(LinearProgram::Sense::Maximize, backend);
  int x = lp.add_variable(0, LinearProgram::kInf, 1);
  int y = lp.add_variable(0, LinearProgram::kInf, 1);
  lp.add_constraint({{x, 1}, {y, 2}}, -LinearProgram::kInf, 4);
  lp.add_constraint({{x, 3}, {y, 1}}, -LinearProgram::kInf, 6);
  REQUIRE(lp.solve().objective == Approx(2.8));

  // Row bound 4 -> 2: x + 2y <= 2, 3x + y <= 6 -> x = 2, y = 0, objective 2.
  lp.set_constraint_bounds(0, -LinearProgram::kInf, 2);
  LpResult a = lp.solve();
  REQUIRE(a.status == LpResult::Status::Optimal);
  CHECK(a.x[0] == Approx(2.0));
  CHECK(a.x[1] == Approx(0.0).margin(1e-9));

  // Infeasible after a bound change (x + 2y >= 20 with 3x + y <= 6), then feasible again.
  lp.set_constraint_bounds(0, 20, LinearProgram::kInf);
  CHECK(lp.solve().status == LpResult::Status::Infeasible);
  lp.set_constraint_bounds(0, -LinearProgram::kInf, 4);
  LpResult b = lp.solve();
  REQUIRE(b.status == LpResult::Status::Optimal);
  CHECK(b.x[0] == Approx(1.6));
  CHECK(b.x[1] == Approx(1.2));

  // Objective max y: y = 2 (x = 0) on x + 2y <= 4; then y's upper bound 1.5: x = 1, y = 1.5.
  lp.set_objective(x, 0);
  LpResult c = lp.solve();
  REQUIRE(c.status == LpResult::Status::Optimal);
  CHECK(c.objective == Approx(2.0));
  lp.set_variable_bounds(y, 0, 1.5);
  lp.set_objective(x, 0.5);
  // max 0.5x + y, y <= 1.5: vertices (0, 1.5) 1.5, (1, 1.5) 2.0, (1.6, 1.2) 2.0, (2, 0) 1.0.
  LpResult d = lp.solve();
  REQUIRE(d.status == LpResult::Status::Optimal);
  CHECK(d.objective == Approx(2.0));

  // A new variable and a new row after a solve: max 0.5x + y + w, w <= 1 and x + w <= 1. With
  // w = 1 - x and y = 1.5 the objective is 2.5 - 0.5x, so x = 0, w = 1, y = 1.5: 2.5.
  int w = lp.add_variable(0, 1, 1);
  lp.add_constraint({{x, 1}, {w, 1}}, -LinearProgram::kInf, 1);
  LpResult e = lp.solve();
  REQUIRE(e.status == LpResult::Status::Optimal);
  CHECK(e.objective == Approx(2.5));
  CHECK(e.x[static_cast<std::size_t>(w)] == Approx(1.0));
  CHECK(e.x[0] == Approx(0.0).margin(1e-9));

  CHECK_THROWS_AS(lp.set_constraint_bounds(9, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(lp.set_variable_bounds(x, 2, 1), std::invalid_argument);
}

TEST_CASE("MIP: integer optimum differs from the LP relaxation") {
  // max 5a + 4b, 6a + 4b <= 24, a + 2b <= 6, integers: relaxation (3, 1.5) = 21, integer (4, 0) = 20.
  // The Clp back end has no branch-and-bound: a MIP given to it is solved by GLPK, so the same.
  const auto backend = GENERATE(LinearProgram::Backend::Glpk, LinearProgram::Backend::Clp);
  INFO("back end " << backend_name(backend));
  LinearProgram lp(LinearProgram::Sense::Maximize, backend);
  int a = lp.add_variable(0, LinearProgram::kInf, 5, true);
  int b = lp.add_variable(0, LinearProgram::kInf, 4, true);
  lp.add_constraint({{a, 6}, {b, 4}}, -LinearProgram::kInf, 24);
  lp.add_constraint({{a, 1}, {b, 2}}, -LinearProgram::kInf, 6);
  LpResult r = lp.solve();
  REQUIRE(r.status == LpResult::Status::Optimal);
  CHECK(r.x[0] == Approx(4.0));
  CHECK(r.x[1] == Approx(0.0).margin(1e-9));
  CHECK(r.objective == Approx(20.0));
}

TEST_CASE("PyRandom draws what CPython's random.Random draws") {
  PyRandom r(0);
  CHECK(r.random() == 0.8444218515250481);  // python3 -c "import random; print(random.Random(0).random())"
  CHECK(r.getrandbits(32) == 3255389356u);
  CHECK(r.randbelow(3) == 1u);
  CHECK(r.randbelow(2) == 0u);
  PyRandom big((std::uint64_t{1} << 40) + 7);  // a seed of two 32-bit words
  CHECK(big.getrandbits(32) == 2635837658u);
}

namespace {
// A 24-job, 3-type multiple knapsack shaped like sia's ILP (one type per job, GPU capacity per
// type), drawn with a 64-bit LCG (seed 4) so that it needs branching: GLPK with all cuts takes
// 49 nodes and proves -10.27 (glpsol --cuts --mipgap 0 printed the same).
struct Knapsack {
  LinearProgram lp{LinearProgram::Sense::Minimize};
  std::vector<int> vars;
};
Knapsack hard_knapsack() {
  Knapsack k;
  std::uint64_t state = 4;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  const int n = 24, types = 3;
  const double capacity[types] = {13, 11, 7};
  std::vector<std::vector<double>> cost(n, std::vector<double>(types));
  for (auto& row : cost)
    for (double& c : row) c = -static_cast<double>(10 + next() % 60) / 100.0;
  std::vector<double> size(n);
  for (double& s : size) s = static_cast<double>(1 << (next() % 4));
  for (int i = 0; i < n; ++i)
    for (int t = 0; t < types; ++t) k.vars.push_back(k.lp.add_variable(0, 1, cost[i][t], true));
  for (int i = 0; i < n; ++i) {
    LinearProgram::Terms row;
    for (int t = 0; t < types; ++t) row.push_back({i * types + t, 1.0});
    k.lp.add_constraint(row, -LinearProgram::kInf, 1.0);
  }
  for (int t = 0; t < types; ++t) {
    LinearProgram::Terms col;
    for (int i = 0; i < n; ++i) col.push_back({i * types + t, size[static_cast<std::size_t>(i)]});
    k.lp.add_constraint(col, -LinearProgram::kInf, capacity[t]);
  }
  return k;
}
}  // namespace

TEST_CASE("MIP: the node limit stops branch-and-bound at the same incumbent every time") {
  Knapsack full = hard_knapsack();
  LpResult best = full.lp.solve();
  REQUIRE(best.usable());  // Feasible when it stopped within the relative gap (1e-4)
  CHECK(best.objective == Approx(-10.27).margin(1e-6));
  CHECK(best.nodes > 1);
  CHECK_FALSE(best.node_limit_hit);
  CHECK_FALSE(best.time_limit_hit);

  // Limit 1: only the root is solved. The start point (nothing placed, objective 0) is an incumbent,
  // so the answer is usable; GLPK's root heuristics may have improved on it, never beyond the optimum.
  std::vector<LpResult> stopped;
  for (int run = 0; run < 2; ++run) {
    Knapsack k = hard_knapsack();
    k.lp.set_node_limit(1);
    k.lp.set_mip_start(std::vector<double>(k.vars.size(), 0.0));
    stopped.push_back(k.lp.solve());
  }
  const LpResult& r = stopped[0];
  REQUIRE(r.status == LpResult::Status::Feasible);
  CHECK(r.node_limit_hit);
  CHECK_FALSE(r.time_limit_hit);
  CHECK(r.nodes < best.nodes);
  CHECK(r.objective <= 0.0);
  CHECK(r.objective >= best.objective - 1e-9);
  CHECK(stopped[1].x == r.x);  // deterministic: same problem, same limit, same answer
  CHECK(stopped[1].objective == r.objective);
}

TEST_CASE("MIP: an objective on a grid of cents ends the search once within one step of the bound") {
  // hard_knapsack's costs are whole cents, so -10.27 is proved as soon as the bound passes -10.28.
  Knapsack plain = hard_knapsack(), stepped = hard_knapsack();
  stepped.lp.set_objective_step(0.01);
  LpResult a = plain.lp.solve(), b = stepped.lp.solve();
  REQUIRE(b.status == LpResult::Status::Optimal);
  CHECK(b.objective == Approx(-10.27).margin(1e-6));
  CHECK(b.objective == Approx(a.objective).margin(1e-9));
  CHECK(b.nodes <= a.nodes);
  CHECK_THROWS_AS(stepped.lp.set_objective_step(-0.01), std::invalid_argument);
}

TEST_CASE("MIP: limits and start points are checked") {
  Knapsack k = hard_knapsack();
  CHECK_THROWS_AS(k.lp.set_node_limit(0), std::invalid_argument);
  CHECK_THROWS_AS(k.lp.set_time_limit_s(0.0), std::invalid_argument);
  CHECK_THROWS_AS(k.lp.set_time_limit_s(std::nan("")), std::invalid_argument);
  k.lp.set_mip_start(std::vector<double>(3, 0.0));  // wrong size
  CHECK_THROWS_AS(k.lp.solve(), std::invalid_argument);
  std::vector<double> all(k.vars.size(), 0.0);
  all[0] = all[1] = 1.0;  // job 0 on two types: breaks its one-type row
  k.lp.set_mip_start(all);
  CHECK_THROWS_AS(k.lp.solve(), std::invalid_argument);
  all[1] = 0.5;  // not integral
  k.lp.set_mip_start(all);
  CHECK_THROWS_AS(k.lp.solve(), std::invalid_argument);
  k.lp.set_mip_start({});
  CHECK(k.lp.solve().objective == Approx(-10.27).margin(1e-6));
}

TEST_CASE("MIP: an optimum oracle ends the search, and the incumbent is kept when it is already optimal") {
  Knapsack full = hard_knapsack();
  const LpResult searched = full.lp.solve();
  REQUIRE(searched.usable());  // Feasible: it stops within the relative gap (1e-4)
  REQUIRE(searched.objective == Approx(-10.27).margin(1e-6));
  REQUIRE(searched.nodes > 2);

  // The oracle's point becomes the incumbent when the start (nothing placed, 0) is worse.
  Knapsack k = hard_knapsack();
  k.lp.set_mip_start(std::vector<double>(k.vars.size(), 0.0));
  std::optional<double> seen;
  int asked = 0;
  k.lp.set_optimum_oracle(
      [&](std::optional<double> incumbent) -> std::optional<LinearProgram::MipOptimum> {
        ++asked;
        seen = incumbent;
        return LinearProgram::MipOptimum{searched.objective, searched.x};
      },
      0);
  const LpResult told = k.lp.solve();
  REQUIRE(told.status == LpResult::Status::Optimal);
  CHECK(asked == 1);
  REQUIRE(seen);
  CHECK(*seen == 0.0);  // the start: GLPK's root found nothing better here
  CHECK(told.objective == Approx(-10.27).margin(1e-6));
  CHECK(told.x == searched.x);  // the oracle's point
  CHECK(told.nodes < searched.nodes);
  CHECK_FALSE(told.node_limit_hit);

  // Told the value only, the search stops at the first incumbent that has it.
  Knapsack v = hard_knapsack();
  v.lp.set_optimum_oracle([&](std::optional<double>) { return LinearProgram::MipOptimum{-10.27, {}}; }, 0);
  const LpResult valued = v.lp.solve();
  REQUIRE(valued.status == LpResult::Status::Optimal);
  CHECK(valued.objective == Approx(-10.27).margin(1e-6));
  CHECK(valued.nodes <= searched.nodes);
}

TEST_CASE("MIP: an oracle's point that breaks a constraint or its own value is ignored, and no answer changes nothing") {
  Knapsack full = hard_knapsack();
  const LpResult searched = full.lp.solve();
  std::vector<double> broken(searched.x.size(), 1.0);  // every job on every type
  std::vector<double> right = searched.x;
  for (auto& [x, value] : {std::pair{broken, -10.27}, std::pair{right, -11.0}}) {
    Knapsack k = hard_knapsack();
    k.lp.set_optimum_oracle([&](std::optional<double>) { return LinearProgram::MipOptimum{value, x}; }, 0);
    const LpResult r = k.lp.solve();
    REQUIRE(r.status == searched.status);
    CHECK(r.objective == Approx(-10.27).margin(1e-6));
    CHECK(r.nodes == searched.nodes);  // the search ran as without an oracle
  }
  Knapsack none = hard_knapsack();
  none.lp.set_optimum_oracle([](std::optional<double>) { return std::optional<LinearProgram::MipOptimum>{}; }, 0);
  const LpResult r = none.lp.solve();
  CHECK(r.x == searched.x);
  CHECK(r.nodes == searched.nodes);
}
