#pragma once
// The C interface between LinearProgram's Clp back end (lp_clp.cpp, in the library) and the module
// that holds COIN-OR Clp (src/clp/clp_module.cpp, built as libhetsim_clp.so and loaded with dlopen
// at the first Clp solve). Why a module: Clp, CoinUtils and the LAPACK, BLAS, gfortran and
// quadmath libraries they pull in cost every run's start-up about 4 ms of loading and relocation
// (issue 19: a hello world linked with them ran in 10.8 ms against 6.6 ms without), while only
// `solver=clp` solves with them. Plain C types only: the module shares no C++ ABI with the library.
#include <cstddef>
#include <string>

extern "C" {

/// A LinearProgram's state, borrowed for one solve (the module keeps its own Clp model between
/// solves and applies the changes listed here, as lp_glpk.cpp does with GLPK's problem object).
struct HetsimClpProblem {
  int cols = 0, rows = 0;  // variables and constraints of the program now
  int minimize = 1;        // 1: minimise, 0: maximise
  const double* lower = nullptr;  // per variable, +-infinity for none
  const double* upper = nullptr;
  const double* cost = nullptr;
  const double* row_lower = nullptr;  // per constraint
  const double* row_upper = nullptr;
  const int* nz_row = nullptr;  // the matrix entries, stored row by row in the order added
  const int* nz_col = nullptr;
  const double* nz_val = nullptr;
  std::size_t nonzeros = 0;
  const int* changed_cols = nullptr;  // variables and constraints whose bounds changed since the last solve
  std::size_t changed_col_count = 0;
  const int* changed_rows = nullptr;
  std::size_t changed_row_count = 0;
  int objective_changed = 0;  // the costs changed since the last solve
};

/// What Clp ended with. `x` is the caller's buffer of `cols` values, filled when status is 0.
struct HetsimClpOutcome {
  int status = -1;            // ClpSimplex::status(); -1 when Clp threw (message holds why)
  int secondary_status = 0;   // ClpSimplex::secondaryStatus()
  double objective = 0.0;
  double* x = nullptr;
  char message[256] = {};
};

typedef int (*HetsimClpApiVersion)();
typedef void* (*HetsimClpNew)();
typedef void (*HetsimClpFree)(void* model);
typedef void (*HetsimClpSolve)(void* model, const HetsimClpProblem* problem, HetsimClpOutcome* outcome);
}

/// hetsim_clp_api_version() of a module built from these sources; another value is refused.
inline constexpr int kHetsimClpApiVersion = 1;

namespace hetsim {
/// Why `solver=clp` cannot be used (the module is missing or from another build), or "" when it
/// can; loads the module on the first call (lp_clp.cpp). Policies check it when they read their
/// parameters, so that a missing module is an input error before the run, not a failed solve in it.
std::string clp_module_error();
}  // namespace hetsim
