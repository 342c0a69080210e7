#pragma once
/// A small linear / mixed-integer program builder that hides the solver: policies state variables,
/// linear constraints and a linear objective, then call solve(). Two back ends: GLPK (libglpk-dev,
/// the default, LPs and MIPs) and COIN-OR Clp (coinor-libclp-dev, LPs only: a MIP handed to the Clp
/// back end is solved by GLPK, as Clp has no branch-and-bound). Both are deterministic.
/// Infinite bounds are written as +-kInf. Solver wall time is measured and returned.
/// MIPs are bounded by a node limit (deterministic: same problem, same answer on any machine) and,
/// only as a safety net, by a wall-time limit whose hit is flagged in the result.
/// The solver's problem and its last basis are kept between solve() calls: a re-solve after
/// changing bounds or objective coefficients (bisection, two-phase objectives) or after adding
/// variables and constraints starts from the previous basis instead of from scratch.
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hetsim {

/// Outcome of LinearProgram::solve().
struct LpResult {
  enum class Status { Optimal, Feasible, Infeasible, Unbounded, Failed };
  Status status = Status::Failed;
  std::vector<double> x;   ///< variable values (empty unless Optimal or Feasible)
  double objective = 0.0;
  double solve_s = 0.0;    ///< wall time spent in the solver (build + solve)
  std::string message;     ///< solver's reason when not optimal
  long long nodes = 0;     ///< branch-and-bound nodes created (MIPs only)
  /// The MIP search stopped at the node limit (deterministic); `x` is the best incumbent found.
  bool node_limit_hit = false;
  /// The MIP search stopped at the wall-time safety net: `x` then depends on machine speed and load.
  bool time_limit_hit = false;
  /// True when `x` holds a usable solution (optimal, or a feasible MIP incumbent at a time limit).
  bool usable() const { return status == Status::Optimal || status == Status::Feasible; }
};

/// Name of an LpResult status ("optimal", "infeasible", ...).
const char* to_string(LpResult::Status status);

/// The builder. Variables and constraints are numbered from 0 in the order added.
class LinearProgram {
 public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr long long kDefaultNodeLimit = 20000;  ///< MIP branch-and-bound nodes
  static constexpr double kDefaultTimeLimitS = 300.0;    ///< MIP wall-time safety net
  enum class Sense { Minimize, Maximize };
  using Terms = std::vector<std::pair<int, double>>;  ///< (variable index, coefficient)
  enum class Backend { Glpk, Clp };

  explicit LinearProgram(Sense sense, Backend backend = Backend::Glpk);
  ~LinearProgram();
  LinearProgram(LinearProgram&&) noexcept;
  LinearProgram& operator=(LinearProgram&&) noexcept;
  LinearProgram(const LinearProgram&) = delete;
  LinearProgram& operator=(const LinearProgram&) = delete;
  /// Adds a variable with bounds [lower, upper] (either may be infinite) and objective coefficient.
  /// Throws std::invalid_argument on NaN or lower > upper.
  int add_variable(double lower, double upper, double objective, bool integer = false);
  /// Adds lower <= sum(coef * x[var]) <= upper. Throws std::invalid_argument on an unknown variable,
  /// a non-finite coefficient, NaN bounds or lower > upper.
  void add_constraint(const Terms& terms, double lower, double upper);
  /// Changes the objective coefficient of a variable (for two-phase solves).
  void set_objective(int var, double coefficient);
  /// Changes a variable's bounds; same checks as add_variable (std::invalid_argument).
  void set_variable_bounds(int var, double lower, double upper);
  /// Changes a constraint's bounds (for bisection); same checks as add_constraint.
  void set_constraint_bounds(int row, double lower, double upper);
  void set_sense(Sense sense);
  /// Deterministic bound on a MIP's branch-and-bound: the search stops as soon as more than
  /// `nodes` (>= 1) subproblems have been created (the root is always solved); the best incumbent
  /// then is returned as Feasible with node_limit_hit set. Throws std::invalid_argument for nodes < 1.
  void set_node_limit(long long nodes);
  /// Wall-time safety net for MIPs (seconds, > 0). It makes results depend on machine speed, so it
  /// should be far above what the node limit takes; when it stops a search, time_limit_hit is set
  /// and callers must report it. Throws std::invalid_argument for seconds <= 0 or NaN.
  void set_time_limit_s(double seconds);
  /// Declares that every feasible objective value of the MIP is a multiple of `step` (> 0; 0 = no
  /// such grid, the default), e.g. integer variables with costs in cents. Branch-and-bound then
  /// stops, with an optimal answer, as soon as its incumbent is less than one step from the best
  /// bound. Throws std::invalid_argument for a negative or non-finite step. A wrong step can end
  /// the search at a non-optimal incumbent.
  void set_objective_step(double step);
  /// A known integer-feasible point of the MIP (one value per variable), handed to branch-and-bound
  /// as its first incumbent so that a search stopped by a limit always has an answer. Checked
  /// against the bounds, the constraints and integrality at solve(); std::invalid_argument if it
  /// violates any of them (by more than 1e-9) or has the wrong size. Cleared by an empty vector.
  void set_mip_start(std::vector<double> x) { mip_start_ = std::move(x); }
  /// A MIP optimum found another way, for the solver to stop on instead of proving optimality by
  /// branch-and-bound (which can take hundreds of nodes where the optimum was found at the root).
  struct MipOptimum {
    double objective = 0.0;
    std::vector<double> x;  ///< an optimal point (one value per variable), or empty: the value only
  };
  using OptimumOracle = std::function<std::optional<MipOptimum>(std::optional<double> incumbent)>;
  /// Asked at most once per solve, once branch-and-bound has an incumbent and has created more than
  /// `after_nodes` nodes without proving it optimal, and given the incumbent's objective, which the
  /// optimum is at least as good as; it returns the optimum, or nothing (e.g. too costly). If the
  /// incumbent has the optimal value (within half an objective step; 1e-9 relative without a
  /// step), it is kept: where several solutions share that value, it is the first one the search
  /// found (often the start point). Else the oracle's point becomes the incumbent. The search then
  /// stops and the result is Optimal. An answer whose point breaks a bound, a constraint or
  /// integrality, or does not have the objective given, is ignored. A wrong value can end the
  /// search at a non-optimal incumbent, as a wrong objective step can. An empty function clears it.
  void set_optimum_oracle(OptimumOracle oracle, long long after_nodes) {
    oracle_ = std::move(oracle);
    oracle_after_nodes_ = after_nodes;
  }
  Backend backend() const { return backend_; }
  int variables() const { return static_cast<int>(lower_.size()); }
  int constraints() const { return static_cast<int>(row_lower_.size()); }
  /// Solves with the back end (GLPK's branch-and-cut when a variable is integer). The first solve runs the
  /// simplex with presolve; later solves of an LP start from the previous basis without presolve
  /// (dual simplex after bound changes, primal after objective changes) and fall back to a fresh
  /// presolved solve if the warm start fails. Never throws for infeasible/unbounded/failed
  /// problems: the status says so. Clp alike: dual simplex first, then warm dual (bounds) or
  /// primal (objective) from the kept basis, and a cold solve when the warm one fails.
  LpResult solve();

 private:
  struct Solver;  // the GLPK problem object (lp_glpk.cpp)
  struct SolverDeleter {
    void operator()(Solver* s) const;
  };
  struct ClpSolver;  // the Clp model (lp_clp.cpp)
  struct ClpDeleter {
    void operator()(ClpSolver* s) const;
  };
  LpResult solve_clp();  // solve() with Backend::Clp and no integer variable (lp_clp.cpp)
  enum class Warm { None, Dual, Primal };  // how a solve starts: presolve from scratch, or from the last basis
  LpResult run_glpk(Solver& solver, bool mip, Warm warm) const;
  void check_mip_start() const;  // std::invalid_argument when mip_start_ is not a feasible point
  const char* point_fault(const std::vector<double>& x) const;  // why x is not a feasible point; nullptr if it is
  OptimumOracle checked_oracle() const;  // oracle_, its answers checked with point_fault
  Sense sense_;
  Backend backend_ = Backend::Glpk;
  std::vector<double> lower_, upper_, cost_;
  std::vector<char> integer_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<int> nz_row_, nz_col_;
  std::vector<double> nz_val_;
  long long node_limit_ = kDefaultNodeLimit;
  double time_limit_s_ = kDefaultTimeLimitS;
  std::vector<double> mip_start_;
  double objective_step_ = 0.0;
  OptimumOracle oracle_;  // see set_optimum_oracle
  long long oracle_after_nodes_ = 0;
  std::unique_ptr<Solver, SolverDeleter> solver_;
  std::unique_ptr<ClpSolver, ClpDeleter> clp_;
  // What changed since the solver's problem was last synchronised (one back end per program).
  std::vector<int> changed_cols_, changed_rows_;
  bool objective_changed_ = false;
};

}  // namespace hetsim
