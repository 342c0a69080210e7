// The GLPK-backed LinearProgram and the CPython-compatible random stream, against values solved by
// hand or printed by CPython 3.11.
#include <catch2/catch.hpp>

#include "hetsim/policy/lp.hpp"
#include "hetsim/util/py_random.hpp"

using namespace hetsim;

TEST_CASE("LP: textbook maximisation solved by hand") {
  // max x + y, x + 2y <= 4, 3x + y <= 6 -> vertex x = 1.6, y = 1.2, objective 2.8.
  LinearProgram lp(LinearProgram::Sense::Maximize);
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
  LinearProgram infeasible(LinearProgram::Sense::Minimize);
  int x = infeasible.add_variable(0, 1, 1);
  infeasible.add_constraint({{x, 1}}, 2, LinearProgram::kInf);
  LpResult a = infeasible.solve();
  CHECK(a.status == LpResult::Status::Infeasible);
  CHECK_FALSE(a.usable());

  LinearProgram unbounded(LinearProgram::Sense::Maximize);
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
  LinearProgram lp(LinearProgram::Sense::Maximize);
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
  LinearProgram lp(LinearProgram::Sense::Maximize);
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
