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
#include <fmt/format.h>
#include <map>
#include <optional>

#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

class GavelFtf final : public AllocationPolicy {
 public:
  GavelFtf(double tolerance, bool group, LinearProgram::Backend backend)
      : tolerance_(tolerance), group_(group), backend_(backend) {}
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
    // With group=true the grouped LP answers first and the per-job LP is built only if needed.
    const JobGroups groups = group_ ? group_identical_jobs(view) : JobGroups{};
    std::optional<FtfLp> per_job, grouped;
    if (group_) grouped = make_ftf_lp(view, rem, d, &groups);
    std::vector<double> need(n, 0.0);
    // Steps that reach an LP, counted apart from solves (the grouped form may solve twice in one
    // step) so that both forms stop the bisection at the same step.
    int lp_steps = 0;
    auto solve_counted = [&](LinearProgram& lp) {
      last = lp.solve();
      out.solver_s += last.solve_s;
      ++out.solves;
      return last.usable();
    };
    auto feasible = [&](double rho) -> bool {
      for (std::size_t i = 0; i < n; ++i) {
        need[i] = 0.0;
        if (rem[i] <= 0.0 || d[i] <= 0.0) continue;  // no rho row for this job
        double slack = rho * d[i] - age[i];
        if (slack <= 0.0) return false;
        need[i] = rem[i] / slack;
      }
      ++lp_steps;
      if (grouped) {
        // The grouped LP is a relaxation (any per-job X sums to a grouped point with the same
        // objective): infeasible there means infeasible per job; a grouped optimum that splits
        // (split_grouped_allocation) is a per-job optimum. Otherwise the per-job LP decides.
        std::vector<double> group_need(groups.first.size(), 0.0);
        for (std::size_t i = 0; i < n; ++i) group_need[groups.group_of[i]] += need[i];
        for (std::size_t g = 0; g < group_need.size(); ++g)
          grouped->base.lp.set_constraint_bounds(grouped->row[g], group_need[g], LinearProgram::kInf);
        const bool usable = solve_counted(grouped->base.lp);
        if (!usable && last.status == LpResult::Status::Infeasible) return false;
        if (usable)
          if (auto x = split_grouped_allocation(view, grouped->base, groups, last, need)) {
            best = std::move(*x);
            return true;
          }
      }
      if (!per_job) per_job = make_ftf_lp(view, rem, d, nullptr);
      for (std::size_t i = 0; i < n; ++i)
        if (per_job->row[i] >= 0) per_job->base.lp.set_constraint_bounds(per_job->row[i], need[i], LinearProgram::kInf);
      if (!solve_counted(per_job->base.lp)) return false;
      best = read_allocation(view, per_job->base, last);
      return true;
    };
    if (!feasible(hi)) {
      // The isolated share should always be feasible at rho_hi; report and let the mechanism fall back.
      AllocationResult f = solver_failure(view, name(), last, out.solver_s, out.solves);
      return f;
    }
    while (hi - lo > tolerance_ * hi && lp_steps < 60) {
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
  // The feasibility LP: base constraints, the total normalised throughput as objective and one
  // rho row per job (row[i], -1 for a job without remaining work) or, with `groups`, one per group
  // of identical jobs (row[g], over the group's total shares; every member's row has the same
  // terms, so the group's row is their sum).
  struct FtfLp {
    BaseLp base;
    std::vector<int> row;
  };
  FtfLp make_ftf_lp(const AllocationView& view, const std::vector<double>& rem, const std::vector<double>& d,
                    const JobGroups* groups) const {
    FtfLp f{groups ? make_grouped_base_lp(view, LinearProgram::Sense::Maximize, *groups, backend_)
                   : make_base_lp(view, LinearProgram::Sense::Maximize, backend_),
            {}};
    const std::size_t rows = groups ? groups->first.size() : view.jobs.size();
    f.row.assign(rows, -1);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t i = groups ? groups->first[r] : r;
      const AllocationJob& job = view.jobs[i];
      double top = *std::max_element(job.throughput.begin(), job.throughput.end());
      LinearProgram::Terms terms;
      for (std::size_t t = 0; t < job.throughput.size(); ++t) {
        terms.push_back({f.base.var[r][t], job.throughput[t]});
        f.base.lp.set_objective(f.base.var[r][t], top > 0 ? job.throughput[t] / top : 0.0);
      }
      if (!groups && (rem[i] <= 0.0 || d[i] <= 0.0)) continue;
      f.row[r] = f.base.lp.constraints();
      f.base.lp.add_constraint(terms, 0.0, LinearProgram::kInf);
    }
    return f;
  }

  double tolerance_;
  bool group_;  // --param group=true: the grouped LP first (docs/policies.md)
  LinearProgram::Backend backend_;
  std::map<JobIndex, double> cumulative_isolated_s_;
  std::map<JobIndex, Previous> previous_;
};

}  // namespace

void register_gavel_ftf(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-ftf",
                  "finish-time fairness: minimise the largest rho (LP bisection), round-based time sharing",
                  "Themis (Mahajan et al., NSDI'20) as in Gavel FinishTimeFairness_Perf (OSDI'20)",
                  {{"tolerance", "0.001", "relative tolerance of the bisection on rho (0 < tolerance < 1)"},
                   {"group", "true",
                    "true: each bisection step solves an LP with one variable per group of jobs with equal rates, "
                    "scale factor and weight first (same rho and optimum; may return another optimal X, so results "
                    "can move); false: the per-job LP only"},
                   lp_backend_param_info()},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    double tol = param_double(p, "tolerance");
    if (!(tol > 0.0 && tol < 1.0)) throw InputError("", 0, "--param tolerance", "must be in (0, 1)");
    const std::string& group = param_string(p, "group");
    if (group != "true" && group != "false")
      throw InputError("", 0, "--param group", fmt::format("expected true or false, got '{}'", group));
    return std::make_unique<GavelFtf>(tol, group == "true", lp_backend_param(p));
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
