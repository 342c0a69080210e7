// LinearProgram on GLPK (GNU Linear Programming Kit, libglpk-dev): the only file that calls the
// solver, so another back end (Clp/Cbc) would replace this file alone.
#include <glpk.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "hetsim/policy/lp.hpp"

namespace hetsim {

const char* to_string(LpResult::Status status) {
  switch (status) {
    case LpResult::Status::Optimal: return "optimal";
    case LpResult::Status::Feasible: return "feasible";
    case LpResult::Status::Infeasible: return "infeasible";
    case LpResult::Status::Unbounded: return "unbounded";
    case LpResult::Status::Failed: return "failed";
  }
  return "unknown";
}

namespace {
void check_bounds(double lower, double upper, const char* what) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper || lower == LinearProgram::kInf ||
      upper == -LinearProgram::kInf)
    throw std::invalid_argument(std::string("LinearProgram: bad bounds for a ") + what);
}
// GLPK bound type for [lower, upper] with infinities.
int bound_type(double lower, double upper) {
  bool lo = std::isfinite(lower), up = std::isfinite(upper);
  if (lo && up) return lower == upper ? GLP_FX : GLP_DB;
  if (lo) return GLP_LO;
  if (up) return GLP_UP;
  return GLP_FR;
}
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

// GLPK owns no global state we need, but it prints to the terminal by default.
struct TermOff {
  TermOff() { glp_term_out(GLP_OFF); }
};
}  // namespace

int LinearProgram::add_variable(double lower, double upper, double objective, bool integer) {
  check_bounds(lower, upper, "variable");
  if (!std::isfinite(objective)) throw std::invalid_argument("LinearProgram: non-finite objective coefficient");
  lower_.push_back(lower);
  upper_.push_back(upper);
  cost_.push_back(objective);
  integer_.push_back(integer ? 1 : 0);
  return variables() - 1;
}

void LinearProgram::add_constraint(const Terms& terms, double lower, double upper) {
  check_bounds(lower, upper, "constraint");
  const int row = constraints();
  for (const auto& [var, coef] : terms) {
    if (var < 0 || var >= variables()) throw std::invalid_argument("LinearProgram: unknown variable in a constraint");
    if (!std::isfinite(coef)) throw std::invalid_argument("LinearProgram: non-finite constraint coefficient");
    if (coef == 0.0) continue;
    nz_row_.push_back(row);
    nz_col_.push_back(var);
    nz_val_.push_back(coef);
  }
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
}

void LinearProgram::set_objective(int var, double coefficient) {
  if (var < 0 || var >= variables() || !std::isfinite(coefficient))
    throw std::invalid_argument("LinearProgram: bad objective update");
  cost_[static_cast<std::size_t>(var)] = coefficient;
}

LpResult LinearProgram::solve() const {
  static const TermOff term_off;  // constant after first use: silences GLPK's banner
  (void)term_off;
  auto t0 = std::chrono::steady_clock::now();
  LpResult result;
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, sense_ == Sense::Minimize ? GLP_MIN : GLP_MAX);
  const int n = variables(), m = constraints();
  bool mip = false;
  if (n > 0) glp_add_cols(lp, n);
  for (int j = 0; j < n; ++j) {
    auto k = static_cast<std::size_t>(j);
    glp_set_col_bnds(lp, j + 1, bound_type(lower_[k], upper_[k]), finite_or_zero(lower_[k]), finite_or_zero(upper_[k]));
    glp_set_obj_coef(lp, j + 1, cost_[k]);
    if (integer_[k]) {
      glp_set_col_kind(lp, j + 1, GLP_IV);
      mip = true;
    }
  }
  if (m > 0) glp_add_rows(lp, m);
  for (int i = 0; i < m; ++i) {
    auto k = static_cast<std::size_t>(i);
    glp_set_row_bnds(lp, i + 1, bound_type(row_lower_[k], row_upper_[k]), finite_or_zero(row_lower_[k]),
                     finite_or_zero(row_upper_[k]));
  }
  // GLPK's arrays are 1-based: element 0 is ignored.
  std::vector<int> ia(nz_val_.size() + 1), ja(nz_val_.size() + 1);
  std::vector<double> ar(nz_val_.size() + 1);
  for (std::size_t e = 0; e < nz_val_.size(); ++e) {
    ia[e + 1] = nz_row_[e] + 1;
    ja[e + 1] = nz_col_[e] + 1;
    ar[e + 1] = nz_val_[e];
  }
  if (!nz_val_.empty()) glp_load_matrix(lp, static_cast<int>(nz_val_.size()), ia.data(), ja.data(), ar.data());

  glp_smcp smcp;
  glp_init_smcp(&smcp);
  smcp.msg_lev = GLP_MSG_OFF;
  smcp.meth = GLP_DUALP;
  smcp.presolve = GLP_ON;
  int rc = glp_simplex(lp, &smcp);
  auto read_x = [&](bool from_mip) {
    result.x.resize(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j)
      result.x[static_cast<std::size_t>(j)] = from_mip ? glp_mip_col_val(lp, j + 1) : glp_get_col_prim(lp, j + 1);
    result.objective = from_mip ? glp_mip_obj_val(lp) : glp_get_obj_val(lp);
  };
  if (rc == GLP_ENOPFS) {
    result.status = LpResult::Status::Infeasible;
    result.message = "no primal feasible solution";
  } else if (rc == GLP_ENODFS) {
    result.status = LpResult::Status::Unbounded;
    result.message = "no dual feasible solution (unbounded or infeasible)";
  } else if (rc != 0) {
    result.status = LpResult::Status::Failed;
    result.message = "simplex failed with GLPK code " + std::to_string(rc);
  } else {
    int st = glp_get_status(lp);
    if (st == GLP_OPT) {
      result.status = LpResult::Status::Optimal;
    } else if (st == GLP_NOFEAS || st == GLP_INFEAS) {
      result.status = LpResult::Status::Infeasible;
      result.message = "infeasible";
    } else if (st == GLP_UNBND) {
      result.status = LpResult::Status::Unbounded;
      result.message = "unbounded";
    } else {
      result.status = LpResult::Status::Failed;
      result.message = "simplex ended with GLPK status " + std::to_string(st);
    }
    if (result.status == LpResult::Status::Optimal && !mip) read_x(false);
    if (result.status == LpResult::Status::Optimal && mip) {
      glp_iocp iocp;
      glp_init_iocp(&iocp);
      iocp.msg_lev = GLP_MSG_OFF;
      iocp.mip_gap = 1e-4;
      iocp.tm_lim = static_cast<int>(std::max(1.0, time_limit_s_ * 1000.0));
      int irc = glp_intopt(lp, &iocp);
      int ist = glp_mip_status(lp);
      if (ist == GLP_OPT) {
        result.status = LpResult::Status::Optimal;
        read_x(true);
      } else if (ist == GLP_FEAS) {
        result.status = LpResult::Status::Feasible;
        result.message = "time or gap limit reached; best integer solution used";
        read_x(true);
      } else if (ist == GLP_NOFEAS) {
        result.status = LpResult::Status::Infeasible;
        result.message = "no integer feasible solution";
      } else {
        result.status = LpResult::Status::Failed;
        result.message = "branch-and-cut failed with GLPK code " + std::to_string(irc);
      }
    }
  }
  glp_delete_prob(lp);
  result.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace hetsim
