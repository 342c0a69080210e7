// LinearProgram on GLPK (GNU Linear Programming Kit, libglpk-dev): the builder, the checks and the
// GLPK back end; the Clp back end is lp_clp.cpp (solve() hands LPs to it when chosen).
// The glp_prob lives as long as the LinearProgram: changes are pushed into it incrementally, and
// GLPK keeps the statuses of the last basis, so a re-solve needs a few pivots instead of a full
// solve (presolve would discard that basis, so it runs only on the first solve).
#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <cmath>
#include <stdexcept>
#include <utility>

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

// Branch-and-bound hook: hands GLPK the caller's start point as its first incumbent and stops the
// search at the node limit. GLPK calls it at fixed points of its (deterministic) search, so a
// search stopped here ends at the same node on every machine, unlike GLPK's own tm_lim.
struct MipHook {
  long long node_limit = 0;
  double objective_step = 0.0;  // > 0: every feasible objective value is a multiple of it
  bool minimize = true;
  const std::vector<double>* start = nullptr;  // 0-based, empty = none
  bool start_offered = false;
  bool node_limit_hit = false;
  bool proven = false;  // by the objective step or the optimum oracle
  const LinearProgram::OptimumOracle* oracle = nullptr;
  long long oracle_after_nodes = 0;
  bool oracle_asked = false;
  std::optional<LinearProgram::MipOptimum> optimum;  // the oracle's answer
  bool optimum_offered = false;
  long long nodes = 0;
};

// Asks the oracle once the search is past `oracle_after_nodes`; true when the incumbent then has
// the optimal value it gave (see LinearProgram::set_optimum_oracle).
bool reached_optimum(glp_tree* tree, MipHook& hook, int total) {
  glp_prob* prob = glp_ios_get_prob(tree);
  if (!hook.oracle_asked) {
    // Asked where its point can be offered at once (GLPK takes heuristic solutions only at
    // GLP_IHEUR), and once there is an incumbent: its value lets an oracle prune (type_packing.hpp).
    if (total <= hook.oracle_after_nodes || glp_ios_reason(tree) != GLP_IHEUR || glp_mip_status(prob) != GLP_FEAS)
      return false;
    hook.oracle_asked = true;
    hook.optimum = (*hook.oracle)(glp_mip_obj_val(prob));
  }
  if (!hook.optimum || glp_mip_status(prob) != GLP_FEAS) return false;
  const double value = hook.optimum->objective;
  const double tolerance = hook.objective_step > 0.0 ? hook.objective_step / 2.0 : 1e-9 * std::max(1.0, std::abs(value));
  const double above = hook.minimize ? glp_mip_obj_val(prob) - value : value - glp_mip_obj_val(prob);
  return above < tolerance;
}

// Offers the oracle's point as a heuristic solution (GLPK takes those only at GLP_IHEUR, where
// the oracle is asked).
bool offer_optimum(glp_tree* tree, MipHook& hook) {
  if (hook.optimum_offered || !hook.optimum || hook.optimum->x.empty() || glp_ios_reason(tree) != GLP_IHEUR) return false;
  hook.optimum_offered = true;
  std::vector<double> x1(hook.optimum->x.size() + 1, 0.0);  // 1-based for GLPK
  std::copy(hook.optimum->x.begin(), hook.optimum->x.end(), x1.begin() + 1);
  glp_ios_heur_sol(tree, x1.data());
  return true;
}

void mip_hook(glp_tree* tree, void* info) {
  auto& hook = *static_cast<MipHook*>(info);
  int active = 0, current = 0, total = 0;
  glp_ios_tree_size(tree, &active, &current, &total);
  hook.nodes = total;
  const int reason = glp_ios_reason(tree);
  // With objective values on a grid of `objective_step`, an incumbent less than one step from the
  // best bound of the open nodes is optimal: no open node can hold a better value.
  if (hook.objective_step > 0.0 && (reason == GLP_ISELECT || reason == GLP_IBINGO)) {
    glp_prob* prob = glp_ios_get_prob(tree);
    const int best = glp_ios_best_node(tree);
    if (glp_mip_status(prob) == GLP_FEAS && best != 0) {
      const double incumbent = glp_mip_obj_val(prob), bound = glp_ios_node_bound(tree, best);
      const double room = hook.minimize ? incumbent - bound : bound - incumbent;
      if (room < hook.objective_step * (1.0 - 1e-6)) {
        hook.proven = true;
        glp_ios_terminate(tree);
        return;
      }
    }
  }
  if (hook.oracle && *hook.oracle) {
    bool reached = reached_optimum(tree, hook, total);
    if (!reached && offer_optimum(tree, hook)) reached = reached_optimum(tree, hook, total);
    if (reached) {
      hook.proven = true;
      glp_ios_terminate(tree);
      return;
    }
  }
  if (reason == GLP_IHEUR && !hook.start_offered && hook.start && !hook.start->empty()) {
    hook.start_offered = true;
    std::vector<double> x1(hook.start->size() + 1, 0.0);  // 1-based for GLPK
    for (std::size_t j = 0; j < hook.start->size(); ++j) x1[j + 1] = (*hook.start)[j];
    glp_ios_heur_sol(tree, x1.data());  // rejected (ignored) when GLPK already has a better one
  }
  // `>`: the root is always solved in full (heuristics included), whatever the limit.
  if (total > hook.node_limit && !hook.node_limit_hit) {
    hook.node_limit_hit = true;
    glp_ios_terminate(tree);
  }
}

// GLPK keeps one environment per thread (Debian builds it with thread-local storage). Silence its
// terminal output once per thread, and free the environment when the thread ends: the worker
// threads of compare and sweep otherwise leak it (LeakSanitizer). Every problem is created and
// deleted in the thread that solves it, so none outlives its environment.
struct ThreadEnv {
  ThreadEnv() { glp_term_out(GLP_OFF); }
  ~ThreadEnv() { glp_free_env(); }
  ThreadEnv(const ThreadEnv&) = delete;
  ThreadEnv& operator=(const ThreadEnv&) = delete;
};

glp_prob* create_problem() {
  thread_local const ThreadEnv env;
  return glp_create_prob();
}
}  // namespace

struct LinearProgram::Solver {
  glp_prob* prob = create_problem();
  int cols = 0, rows = 0;       // variables / constraints already in `prob`
  std::size_t nonzeros = 0;     // matrix entries already in `prob` (entries are stored row by row)
  bool solved = false;          // a simplex ran on `prob`, so its statuses are a basis to start from
  ~Solver() { glp_delete_prob(prob); }
};

void LinearProgram::SolverDeleter::operator()(Solver* s) const { delete s; }

LinearProgram::LinearProgram(Sense sense, Backend backend) : sense_(sense), backend_(backend) {}
LinearProgram::~LinearProgram() = default;
LinearProgram::LinearProgram(LinearProgram&&) noexcept = default;
LinearProgram& LinearProgram::operator=(LinearProgram&&) noexcept = default;

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
  }
  for (const auto& [var, coef] : terms) {
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
  if (cost_[static_cast<std::size_t>(var)] == coefficient) return;
  cost_[static_cast<std::size_t>(var)] = coefficient;
  objective_changed_ = true;
}

void LinearProgram::set_node_limit(long long nodes) {
  if (nodes < 1) throw std::invalid_argument("LinearProgram: the node limit must be at least 1");
  node_limit_ = nodes;
}

void LinearProgram::set_time_limit_s(double seconds) {
  if (!(seconds > 0.0)) throw std::invalid_argument("LinearProgram: the time limit must be positive");
  time_limit_s_ = seconds;
}

void LinearProgram::set_objective_step(double step) {
  if (!(step >= 0.0) || !std::isfinite(step)) throw std::invalid_argument("LinearProgram: bad objective step");
  objective_step_ = step;
}

void LinearProgram::set_sense(Sense sense) {
  if (sense != sense_) objective_changed_ = true;
  sense_ = sense;
}

void LinearProgram::set_variable_bounds(int var, double lower, double upper) {
  if (var < 0 || var >= variables()) throw std::invalid_argument("LinearProgram: bounds of an unknown variable");
  check_bounds(lower, upper, "variable");
  auto k = static_cast<std::size_t>(var);
  lower_[k] = lower;
  upper_[k] = upper;
  changed_cols_.push_back(var);
}

void LinearProgram::set_constraint_bounds(int row, double lower, double upper) {
  if (row < 0 || row >= constraints()) throw std::invalid_argument("LinearProgram: bounds of an unknown constraint");
  check_bounds(lower, upper, "constraint");
  auto k = static_cast<std::size_t>(row);
  row_lower_[k] = lower;
  row_upper_[k] = upper;
  changed_rows_.push_back(row);
}

LpResult LinearProgram::solve() {
  auto t0 = std::chrono::steady_clock::now();
  const int n = variables(), m = constraints();
  bool mip = false;
  for (char c : integer_) mip = mip || c;
  if (!mip_start_.empty()) check_mip_start();
  // Clp has no branch-and-bound: a MIP always goes to GLPK, and a program stays on the back end
  // of its first solve (the other one's problem would be out of date).
  if (backend_ == Backend::Clp && !mip && !solver_) return solve_clp();

  // Push what changed into the solver's problem (all of it on the first solve).
  if (!solver_) solver_.reset(new Solver);
  Solver& s = *solver_;
  glp_prob* lp = s.prob;
  const bool only_bounds_changed = !objective_changed_ && s.cols == n && s.rows == m;
  auto set_col = [&](int j) {
    auto k = static_cast<std::size_t>(j);
    glp_set_col_bnds(lp, j + 1, bound_type(lower_[k], upper_[k]), finite_or_zero(lower_[k]), finite_or_zero(upper_[k]));
  };
  auto set_row = [&](int i) {
    auto k = static_cast<std::size_t>(i);
    glp_set_row_bnds(lp, i + 1, bound_type(row_lower_[k], row_upper_[k]), finite_or_zero(row_lower_[k]),
                     finite_or_zero(row_upper_[k]));
  };
  for (int j : changed_cols_)
    if (j < s.cols) set_col(j);
  for (int i : changed_rows_)
    if (i < s.rows) set_row(i);
  changed_cols_.clear();
  changed_rows_.clear();
  glp_set_obj_dir(lp, sense_ == Sense::Minimize ? GLP_MIN : GLP_MAX);
  if (objective_changed_)
    for (int j = 0; j < s.cols; ++j) glp_set_obj_coef(lp, j + 1, cost_[static_cast<std::size_t>(j)]);
  objective_changed_ = false;
  if (n > s.cols) {
    // New columns are non-basic at a bound and new rows basic, so an earlier basis stays a basis.
    glp_add_cols(lp, n - s.cols);
    for (int j = s.cols; j < n; ++j) {
      set_col(j);
      glp_set_obj_coef(lp, j + 1, cost_[static_cast<std::size_t>(j)]);
      if (integer_[static_cast<std::size_t>(j)]) glp_set_col_kind(lp, j + 1, GLP_IV);
    }
  }
  if (m > s.rows) {
    glp_add_rows(lp, m - s.rows);
    for (int i = s.rows; i < m; ++i) set_row(i);
    // GLPK's arrays are 1-based: element 0 is ignored.
    const std::size_t first = s.nonzeros, count = nz_val_.size() - first;
    std::vector<int> ia(count + 1), ja(count + 1);
    std::vector<double> ar(count + 1);
    for (std::size_t e = 0; e < count; ++e) {
      ia[e + 1] = nz_row_[first + e] + 1;
      ja[e + 1] = nz_col_[first + e] + 1;
      ar[e + 1] = nz_val_[first + e];
    }
    if (s.rows == 0) {
      if (count > 0) glp_load_matrix(lp, static_cast<int>(count), ia.data(), ja.data(), ar.data());
    } else {
      for (std::size_t e = 0; e < count;) {  // one call per new row
        std::size_t end = e;
        while (end < count && ia[end + 1] == ia[e + 1]) ++end;
        glp_set_mat_row(lp, ia[e + 1], static_cast<int>(end - e), ja.data() + e, ar.data() + e);
        e = end;
      }
    }
    s.nonzeros = nz_val_.size();
  }
  s.cols = n;
  s.rows = m;

  LpResult result = run_glpk(s, mip, s.solved ? (only_bounds_changed ? Warm::Dual : Warm::Primal) : Warm::None);
  if (result.status == LpResult::Status::Failed && s.solved && !result.node_limit_hit && !result.time_limit_hit) {
    // The warm start went wrong (singular basis, iteration trouble): solve from scratch.
    glp_std_basis(lp);
    result = run_glpk(s, mip, Warm::None);
  }
  result.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.solved = true;
  return result;
}

const char* LinearProgram::point_fault(const std::vector<double>& x) const {
  constexpr double tol = 1e-9;
  if (x.size() != lower_.size()) return "has the wrong size";
  for (std::size_t j = 0; j < x.size(); ++j)
    if (!(x[j] >= lower_[j] - tol && x[j] <= upper_[j] + tol) || (integer_[j] && std::abs(x[j] - std::round(x[j])) > tol))
      return "breaks a variable's bounds or integrality";
  std::vector<double> activity(row_lower_.size(), 0.0);
  for (std::size_t e = 0; e < nz_val_.size(); ++e)
    activity[static_cast<std::size_t>(nz_row_[e])] += nz_val_[e] * x[static_cast<std::size_t>(nz_col_[e])];
  for (std::size_t i = 0; i < activity.size(); ++i)
    if (activity[i] < row_lower_[i] - tol || activity[i] > row_upper_[i] + tol) return "breaks a constraint";
  return nullptr;
}

void LinearProgram::check_mip_start() const {
  if (const char* fault = point_fault(mip_start_))
    throw std::invalid_argument(std::string("LinearProgram: the MIP start ") + fault);
}

LinearProgram::OptimumOracle LinearProgram::checked_oracle() const {
  if (!oracle_) return {};
  return [this](std::optional<double> incumbent) -> std::optional<MipOptimum> {
    std::optional<MipOptimum> answer = oracle_(incumbent);
    if (!answer || !std::isfinite(answer->objective) || answer->x.empty()) return answer;
    if (point_fault(answer->x)) return std::nullopt;
    double objective = 0.0;
    for (std::size_t j = 0; j < answer->x.size(); ++j) objective += cost_[j] * answer->x[j];
    if (std::abs(objective - answer->objective) > 1e-6 * (1.0 + std::abs(objective))) return std::nullopt;
    return answer;
  };
}

LpResult LinearProgram::run_glpk(Solver& s, bool mip, Warm warm) const {
  glp_prob* lp = s.prob;
  const int n = variables();
  LpResult result;
  glp_smcp smcp;
  glp_init_smcp(&smcp);
  smcp.msg_lev = GLP_MSG_OFF;
  // Cold: presolve, then dual simplex (primal when that fails). Warm: no presolve (it would throw
  // the basis away); after bound changes the old basis is still dual feasible, so dual simplex;
  // after objective changes it is still primal feasible, so primal simplex.
  smcp.meth = warm == Warm::Primal ? GLP_PRIMAL : GLP_DUALP;
  smcp.presolve = warm == Warm::None ? GLP_ON : GLP_OFF;
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
      // All of GLPK's cut families: on packing problems (sia's ILP is a multiple knapsack) they
      // close most of the LP gap at the root and cut the tree by one to two orders of magnitude.
      MipHook hook;
      hook.node_limit = node_limit_;
      hook.start = &mip_start_;
      hook.objective_step = objective_step_;
      hook.minimize = sense_ == Sense::Minimize;
      const OptimumOracle oracle = checked_oracle();
      hook.oracle = &oracle;
      hook.oracle_after_nodes = oracle_after_nodes_;
      glp_iocp iocp;
      glp_init_iocp(&iocp);
      iocp.msg_lev = GLP_MSG_OFF;
      iocp.mip_gap = 1e-4;
      iocp.gmi_cuts = GLP_ON;
      iocp.mir_cuts = GLP_ON;
      iocp.cov_cuts = GLP_ON;
      iocp.clq_cuts = GLP_ON;
      iocp.cb_func = mip_hook;
      iocp.cb_info = &hook;
      iocp.tm_lim = static_cast<int>(std::clamp(time_limit_s_ * 1000.0, 1.0, 2e9));
      int irc = glp_intopt(lp, &iocp);
      int ist = glp_mip_status(lp);
      result.nodes = hook.nodes;
      result.node_limit_hit = irc == GLP_ESTOP && hook.node_limit_hit && !hook.proven;
      result.time_limit_hit = irc == GLP_ETMLIM;
      if (ist == GLP_OPT || (ist == GLP_FEAS && hook.proven)) {
        result.status = LpResult::Status::Optimal;
        read_x(true);
      } else if (ist == GLP_FEAS) {
        result.status = LpResult::Status::Feasible;
        result.message = result.time_limit_hit
                             ? "wall-time safety net reached; best integer solution used"
                             : result.node_limit_hit ? "node limit reached; best integer solution used"
                                                     : irc == GLP_EMIPGAP ? "within the relative MIP gap (1e-4)"
                                                                          : "stopped early; best integer solution used";
        read_x(true);
      } else if (result.node_limit_hit || result.time_limit_hit) {
        result.status = LpResult::Status::Failed;
        result.message = std::string(result.time_limit_hit ? "wall-time safety net" : "node limit") +
                         " reached without an integer solution";
      } else if (ist == GLP_NOFEAS) {
        result.status = LpResult::Status::Infeasible;
        result.message = "no integer feasible solution";
      } else {
        result.status = LpResult::Status::Failed;
        result.message = "branch-and-cut failed with GLPK code " + std::to_string(irc);
      }
    }
  }
  return result;
}

}  // namespace hetsim
