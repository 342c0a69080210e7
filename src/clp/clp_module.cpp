// COIN-OR Clp (coinor-libclp-dev; Forrest et al., COIN-OR Clp) behind the C interface of
// src/policy/clp_module_api.hpp, built as libhetsim_clp.so and loaded by LinearProgram's Clp back
// end (src/policy/lp_clp.cpp) at its first solve, so that no other run loads Clp and its libraries.
// As with GLPK, the ClpSimplex model lives as long as the LinearProgram: changes are pushed into
// it, and Clp keeps the statuses of its last basis, so a re-solve (bisection on row bounds, a
// second objective, added rows and columns) starts from that basis. Clp is single-threaded and
// seeds its perturbation from a fixed value per model, so the same program gives the same bytes
// on every run and under any thread count.
#include <ClpSimplex.hpp>
#include <CoinError.hpp>
#include <CoinFinite.hpp>
#include <CoinPackedMatrix.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "clp_module_api.hpp"

#define HETSIM_CLP_API extern "C" __attribute__((visibility("default")))

namespace {

// Clp writes infinite bounds as +-COIN_DBL_MAX.
double clp_bound(double v) {
  if (std::isinf(v)) return v > 0 ? COIN_DBL_MAX : -COIN_DBL_MAX;
  return v;
}

struct HetsimClpModel {
  ClpSimplex model;
  int cols = 0, rows = 0;    // variables / constraints already in `model`
  std::size_t nonzeros = 0;  // matrix entries already in `model` (stored row by row)
  bool solved = false;       // the model holds a basis to start from
  HetsimClpModel() {
    model.setLogLevel(0);
    // Clp's own scaling is off: with it, Debian's Clp 1.17.6 aborts on an internal assertion
    // (`elValue` in ClpPackedMatrix::gutsOfTransposeTimesByRowGE3) on gavel-makespan's LP for 177
    // identical ResNet-50 jobs on gavel-24 (tests/test_lp_clp_scaling.cpp), an abort no caller can
    // catch. The policies' rows are already within a few orders of magnitude (rates in steps/s,
    // remaining steps), so the unscaled simplex solves them.
    model.scaling(0);
  }
};

// Pushes the program's changes since the last solve into the model.
void synchronise(HetsimClpModel& s, const HetsimClpProblem& p) {
  ClpSimplex& model = s.model;
  const int n = p.cols, m = p.rows;
  const double direction = p.minimize ? 1.0 : -1.0;
  for (std::size_t k = 0; k < p.changed_col_count; ++k)
    if (const int j = p.changed_cols[k]; j < s.cols) model.setColumnBounds(j, clp_bound(p.lower[j]), clp_bound(p.upper[j]));
  for (std::size_t k = 0; k < p.changed_row_count; ++k)
    if (const int i = p.changed_rows[k]; i < s.rows)
      model.setRowBounds(i, clp_bound(p.row_lower[i]), clp_bound(p.row_upper[i]));
  if (p.objective_changed)
    for (int j = 0; j < s.cols; ++j) model.setObjectiveCoefficient(j, p.cost[j]);
  model.setOptimizationDirection(direction);

  std::vector<double> lo, up, obj;
  if (n > s.cols) {  // new columns carry no entries yet: their entries arrive with the new rows
    for (int j = s.cols; j < n; ++j) {
      lo.push_back(clp_bound(p.lower[j]));
      up.push_back(clp_bound(p.upper[j]));
      obj.push_back(p.cost[j]);
    }
    if (s.cols == 0 && s.rows == 0) {
      // First load: the whole matrix at once (row-ordered triplets).
      std::vector<double> rlo, rup;
      for (int i = 0; i < m; ++i) {
        rlo.push_back(clp_bound(p.row_lower[i]));
        rup.push_back(clp_bound(p.row_upper[i]));
      }
      CoinPackedMatrix matrix(false, p.nz_row, p.nz_col, p.nz_val, static_cast<CoinBigIndex>(p.nonzeros));
      matrix.setDimensions(m, n);
      model.loadProblem(matrix, lo.data(), up.data(), obj.data(), rlo.data(), rup.data());
      model.setOptimizationDirection(direction);
      s.cols = n;
      s.rows = m;
      s.nonzeros = p.nonzeros;
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
      rlo.push_back(clp_bound(p.row_lower[i]));
      rup.push_back(clp_bound(p.row_upper[i]));
      starts.push_back(static_cast<CoinBigIndex>(e - first));
      while (e < p.nonzeros && p.nz_row[e] == i) ++e;
    }
    starts.push_back(static_cast<CoinBigIndex>(e - first));
    model.addRows(m - s.rows, rlo.data(), rup.data(), starts.data(), p.nz_col + first, p.nz_val + first);
    s.rows = m;
    s.nonzeros = p.nonzeros;
  }
}

void solve(HetsimClpModel& s, const HetsimClpProblem& p, HetsimClpOutcome& out) {
  const bool only_bounds_changed = !p.objective_changed && s.cols == p.cols && s.rows == p.rows;
  synchronise(s, p);
  ClpSimplex& model = s.model;
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
  out.status = model.status();
  out.secondary_status = model.secondaryStatus();
  if (out.status == 0) {
    const double* x = model.primalColumnSolution();
    for (int j = 0; j < p.cols; ++j) out.x[j] = x[j];
    out.objective = model.objectiveValue();
  }
}

}  // namespace

HETSIM_CLP_API int hetsim_clp_api_version() { return kHetsimClpApiVersion; }

HETSIM_CLP_API void* hetsim_clp_new() {
  try {
    return new HetsimClpModel;
  } catch (...) {
    return nullptr;
  }
}

HETSIM_CLP_API void hetsim_clp_free(void* model) { delete static_cast<HetsimClpModel*>(model); }

HETSIM_CLP_API void hetsim_clp_solve(void* model, const HetsimClpProblem* problem, HetsimClpOutcome* outcome) {
  // No exception crosses the C interface: Clp's CoinError and std::bad_alloc become a failed solve.
  try {
    solve(*static_cast<HetsimClpModel*>(model), *problem, *outcome);
  } catch (const CoinError& e) {
    outcome->status = -1;
    std::snprintf(outcome->message, sizeof outcome->message, "Clp threw: %s (%s)", e.message().c_str(),
                  e.methodName().c_str());
  } catch (const std::exception& e) {
    outcome->status = -1;
    std::snprintf(outcome->message, sizeof outcome->message, "Clp threw: %s", e.what());
  }
}
