// gavel-ftf: finish-time fairness (Themis, Mahajan et al., NSDI'20) as formulated in Gavel's
// FinishTimeFairness_Perf (Narayanan et al., OSDI'20, section 4.1; stanford-futuredata/gavel,
// scheduler/policies/finish_time_fairness.py):
//   minimise max_i rho_i,  rho_i = (age_i + rem_i / sum_t T[i][t] x[i][t]) / (C_i + rem_i / I_i)
// where I_i is the job's throughput under Gavel's isolated allocation (an equal 1/N share of every
// type) and C_i the isolated time of the work done so far (accumulated between calls from the
// steps done and the previous call's I_i, as Gavel does). Gavel hands the convex program to
// cvxpy; hetsim bisects on rho: for a fixed rho each constraint is linear,
//   sum_t T[i][t] x[i][t] >= rem_i / (rho D_i - age_i),  D_i = C_i + rem_i / I_i,
// and the isolated allocation is feasible at rho_hi = max_i (age_i + rem_i/I_i)/D_i, so bisection
// between max_i age_i/D_i and rho_hi (relative tolerance `tolerance`) finds the optimum. Each
// feasibility LP maximises total normalised throughput so spare GPUs are used. (It is not one LP:
// the bound rem_i / (rho D_i - age_i) is convex, not linear, in rho unless every age is 0.) The LP
// is built once per computation and each step only moves row bounds, so it re-solves warm.
#include <algorithm>
#include <cmath>
#include <map>

#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

class GavelFtf final : public AllocationPolicy {
 public:
  explicit GavelFtf(double tolerance) : tolerance_(tolerance) {}
  std::string name() const override { return "gavel-ftf"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    AllocationResult out;
    const std::size_t n = view.jobs.size();
    std::vector<double> iso = isolated_throughputs(view);
    std::vector<double> d(n), age(n), rem(n);
    for (std::size_t i = 0; i < n; ++i) {
      const AllocationJob& job = view.jobs[i];
      double& cum = cumulative_isolated_s_[job.job];
      if (auto it = previous_.find(job.job); it != previous_.end() && it->second.iso > 0.0)
        cum += (it->second.remaining - job.remaining_work) / it->second.iso;
      rem[i] = job.remaining_work;
      age[i] = job.age_s;
      d[i] = cum + (iso[i] > 0.0 ? rem[i] / iso[i] : 0.0);
    }
    previous_.clear();
    for (std::size_t i = 0; i < n; ++i) previous_[view.jobs[i].job] = {rem[i], iso[i]};
    if (n == 0) return out;

    double lo = 0.0, hi = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (d[i] <= 0.0) continue;
      lo = std::max(lo, age[i] / d[i]);
      hi = std::max(hi, (age[i] + (iso[i] > 0.0 ? rem[i] / iso[i] : 0.0)) / d[i]);
    }
    hi = std::max(hi, lo) * (1.0 + 1e-9) + 1e-12;
    std::optional<AllocationMatrix> best;
    LpResult last;
    // One LP for the whole bisection: only the rows' lower bounds depend on rho, so each step
    // changes bounds and re-solves from the previous basis (dual simplex) instead of rebuilding.
    BaseLp base = make_base_lp(view, LinearProgram::Sense::Maximize);
    std::vector<int> row(n, -1);  // row[i]: index of job i's rho constraint, -1 when it has none
    for (std::size_t i = 0; i < n; ++i) {
      const AllocationJob& job = view.jobs[i];
      double top = *std::max_element(job.throughput.begin(), job.throughput.end());
      LinearProgram::Terms terms;
      for (std::size_t t = 0; t < job.throughput.size(); ++t) {
        terms.push_back({base.var[i][t], job.throughput[t]});
        base.lp.set_objective(base.var[i][t], top > 0 ? job.throughput[t] / top : 0.0);
      }
      if (rem[i] <= 0.0 || d[i] <= 0.0) continue;
      row[i] = base.lp.constraints();
      base.lp.add_constraint(terms, 0.0, LinearProgram::kInf);
    }
    auto feasible = [&](double rho) -> bool {
      for (std::size_t i = 0; i < n; ++i) {
        if (row[i] < 0) continue;
        double slack = rho * d[i] - age[i];
        if (slack <= 0.0) return false;
        base.lp.set_constraint_bounds(row[i], rem[i] / slack, LinearProgram::kInf);
      }
      last = base.lp.solve();
      out.solver_s += last.solve_s;
      ++out.solves;
      if (!last.usable()) return false;
      best = read_allocation(view, base, last);
      return true;
    };
    if (!feasible(hi)) {
      // The isolated share should always be feasible at rho_hi; report and let the mechanism fall back.
      AllocationResult f = solver_failure(view, name(), last, out.solver_s, out.solves);
      return f;
    }
    while (hi - lo > tolerance_ * hi && out.solves < 60) {
      double mid = 0.5 * (lo + hi);
      if (feasible(mid)) hi = mid; else lo = mid;
    }
    out.x = *best;
    return out;
  }

 private:
  struct Previous {
    double remaining;
    double iso;
  };
  double tolerance_;
  std::map<JobIndex, double> cumulative_isolated_s_;
  std::map<JobIndex, Previous> previous_;
};

}  // namespace

void register_gavel_ftf(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-ftf",
                  "finish-time fairness: minimise the largest rho (LP bisection), round-based time sharing",
                  "Themis (Mahajan et al., NSDI'20) as in Gavel FinishTimeFairness_Perf (OSDI'20)",
                  {{"tolerance", "0.001", "relative tolerance of the bisection on rho (0 < tolerance < 1)"}},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    double tol = param_double(p, "tolerance");
    if (!(tol > 0.0 && tol < 1.0)) throw InputError("", 0, "--param tolerance", "must be in (0, 1)");
    return std::make_unique<GavelFtf>(tol);
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
