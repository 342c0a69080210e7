// LinearProgram's COIN-OR Clp back end (coinor-libclp-dev; Forrest et al., COIN-OR Clp): the LP
// half of solve() when the program was built with Backend::Clp. As with GLPK, the ClpSimplex model
// lives as long as the LinearProgram: changes are pushed into it, and Clp keeps the statuses of
// its last basis, so a re-solve (bisection on row bounds, a second objective, added rows and
// columns) starts from that basis. Clp is single-threaded and seeds its perturbation from a fixed
// value per model, so the same program gives the same bytes on every run and under any thread count.
#include <ClpSimplex.hpp>
#include <CoinFinite.hpp>
#include <CoinPackedMatrix.hpp>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "hetsim/policy/lp.hpp"

namespace hetsim {

namespace {
// Clp writes infinite bounds as +-COIN_DBL_MAX.
double clp_bound(double v) {
  if (v == LinearProgram::kInf) return COIN_DBL_MAX;
  if (v == -LinearProgram::kInf) return -COIN_DBL_MAX;
  return v;
}
}  // namespace

struct LinearProgram::ClpSolver {
  ClpSimplex model;
  int cols = 0, rows = 0;    // variables / constraints already in `model`
  std::size_t nonzeros = 0;  // matrix entries already in `model` (stored row by row)
  bool solved = false;       // the model holds a basis to start from
  ClpSolver() {
    model.setLogLevel(0);
    // Clp's own scaling is off: with it, Debian's Clp 1.17.6 aborts on an internal assertion
    // (`elValue` in ClpPackedMatrix::gutsOfTransposeTimesByRowGE3) on gavel-makespan's LP for 177
    // identical ResNet-50 jobs on gavel-24 (tests/test_lp_clp_scaling.cpp), an abort no caller can
    // catch. The policies' rows are already within a few orders of magnitude (rates in steps/s,
    // remaining steps), so the unscaled simplex solves them.
    model.scaling(0);
  }
};

void LinearProgram::ClpDeleter::operator()(ClpSolver* s) const { delete s; }

LpResult LinearProgram::solve_clp() {
  const auto t0 = std::chrono::steady_clock::now();
  const int n = variables(), m = constraints();
  if (!clp_) clp_.reset(new ClpSolver);
  ClpSolver& s = *clp_;
  ClpSimplex& model = s.model;
  const bool only_bounds_changed = !objective_changed_ && s.cols == n && s.rows == m;
  for (int j : changed_cols_)
    if (j < s.cols) model.setColumnBounds(j, clp_bound(lower_[static_cast<std::size_t>(j)]), clp_bound(upper_[static_cast<std::size_t>(j)]));
  for (int i : changed_rows_)
    if (i < s.rows)
      model.setRowBounds(i, clp_bound(row_lower_[static_cast<std::size_t>(i)]), clp_bound(row_upper_[static_cast<std::size_t>(i)]));
  changed_cols_.clear();
  changed_rows_.clear();
  if (objective_changed_)
    for (int j = 0; j < s.cols; ++j) model.setObjectiveCoefficient(j, cost_[static_cast<std::size_t>(j)]);
  objective_changed_ = false;
  model.setOptimizationDirection(sense_ == Sense::Minimize ? 1.0 : -1.0);

  std::vector<double> lo, up, obj;
  if (n > s.cols) {  // new columns carry no entries yet: their entries arrive with the new rows
    for (int j = s.cols; j < n; ++j) {
      const auto k = static_cast<std::size_t>(j);
      lo.push_back(clp_bound(lower_[k]));
      up.push_back(clp_bound(upper_[k]));
      obj.push_back(cost_[k]);
    }
    if (s.cols == 0 && s.rows == 0) {
      // First load: the whole matrix at once (row-ordered triplets).
      std::vector<double> rlo, rup;
      for (int i = 0; i < m; ++i) {
        rlo.push_back(clp_bound(row_lower_[static_cast<std::size_t>(i)]));
        rup.push_back(clp_bound(row_upper_[static_cast<std::size_t>(i)]));
      }
      CoinPackedMatrix matrix(false, nz_row_.data(), nz_col_.data(), nz_val_.data(),
                              static_cast<CoinBigIndex>(nz_val_.size()));
      matrix.setDimensions(m, n);
      model.loadProblem(matrix, lo.data(), up.data(), obj.data(), rlo.data(), rup.data());
      model.setOptimizationDirection(sense_ == Sense::Minimize ? 1.0 : -1.0);
      s.cols = n;
      s.rows = m;
      s.nonzeros = nz_val_.size();
    } else {
      std::vector<CoinBigIndex> starts(static_cast<std::size_t>(n - s.cols) + 1, 0);
      model.addColumns(n - s.cols, lo.data(), up.data(), obj.data(), starts.data(), nullptr, nullptr);
      s.cols = n;
    }
  }
  if (m > s.rows) {
    std::vector<double> rlo, rup;
    std::vector<CoinBigIndex> starts;
    const std::size_t first = s.nonzeros;
    std::size_t e = first;
    for (int i = s.rows; i < m; ++i) {
      rlo.push_back(clp_bound(row_lower_[static_cast<std::size_t>(i)]));
      rup.push_back(clp_bound(row_upper_[static_cast<std::size_t>(i)]));
      starts.push_back(static_cast<CoinBigIndex>(e - first));
      while (e < nz_val_.size() && nz_row_[e] == i) ++e;
    }
    starts.push_back(static_cast<CoinBigIndex>(e - first));
    model.addRows(m - s.rows, rlo.data(), rup.data(), starts.data(), nz_col_.data() + first, nz_val_.data() + first);
    s.rows = m;
    s.nonzeros = nz_val_.size();
  }

  // Cold: dual simplex from the slack basis. Warm: dual after bound changes (the basis stays dual
  // feasible), primal after objective or structure changes (it stays primal feasible).
  auto run = [&](bool warm) {
    if (!warm) return model.dual();
    return only_bounds_changed ? model.dual() : model.primal();
  };
  run(s.solved);
  if (s.solved && (model.status() != 0 || model.isAbandoned())) {
    // A warm start that did not end optimal is re-checked from the slack basis, so a status never
    // depends on the path (and numerical trouble on a warm basis is not reported as a failure).
    model.allSlackBasis(true);
    run(false);
  }
  s.solved = true;

  LpResult result;
  const int status = model.status();
  if (status == 0) {
    result.status = LpResult::Status::Optimal;
    const double* x = model.primalColumnSolution();
    result.x.assign(x, x + n);
    result.objective = model.objectiveValue();
  } else if (status == 1) {
    result.status = LpResult::Status::Infeasible;
    result.message = "no primal feasible solution (Clp)";
  } else if (status == 2) {
    result.status = LpResult::Status::Unbounded;
    result.message = "no dual feasible solution (unbounded or infeasible; Clp)";
  } else {
    result.status = LpResult::Status::Failed;
    result.message = "Clp stopped with status " + std::to_string(status) + " (secondary " +
                     std::to_string(model.secondaryStatus()) + ")";
  }
  result.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace hetsim
