// gavel-maxmin: weighted max-min fairness over normalised effective throughput, Gavel's
// MaxMinFairness_Perf (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep
// Learning Workloads", OSDI'20, section 4.1; stanford-futuredata/gavel,
// scheduler/policies/max_min_fairness.py). Formulation (docs/policies.md):
//   maximise z  s.t.  sum_t T[i][t] x[i][t] * s_i / (w_i * P_i) >= z  for every job i,
// plus the base constraints, where P_i = sum_t T[i][t] G_t / sum G (throughput under an equal
// share of every type; Gavel's ProportionalPolicy) and s_i the scale factor (a job on s GPUs gets
// s times the GPU-time of a 1-GPU job for equal throughput). With fill_spare (default) a second LP
// keeps z at its optimum and maximises the sum of the normalised throughputs, so GPUs the
// minimum does not need are not left idle (a simplex vertex would otherwise leave them idle;
// Gavel's interior-point solver returns an interior optimum instead).
//
// Weights enter relative to the largest active one, so the binding rows (the heaviest jobs') have
// coefficients of order 1: with raw weights 1e9 apart the heavy job's share falls below GLPK's
// tolerances (1e-7) and the priority silently inverts. Weights more than 1e6 apart still leave
// the lightest jobs' guarantees below that precision, which the run reports as a warning.
#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

constexpr double kMaxWeightRatio = 1e6;

class GavelMaxMin final : public AllocationPolicy {
 public:
  explicit GavelMaxMin(bool fill_spare) : fill_spare_(fill_spare) {}
  std::string name() const override { return "gavel-maxmin"; }

  AllocationResult allocate(const AllocationView& view) override {
    AllocationResult out;
    const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
    if (n == 0) return out;
    std::vector<double> prop = proportional_throughputs(view);
    double w_max = 0.0, w_min = std::numeric_limits<double>::infinity();
    for (const AllocationJob& job : view.jobs) {
      w_max = std::max(w_max, job.priority_weight);
      w_min = std::min(w_min, job.priority_weight);
    }
    if (w_max > kMaxWeightRatio * w_min)
      out.warning = fmt::format("priority weights {:g} to {:g} are more than {:g} apart: the lightest jobs' "
                                "shares are below the LP solver's precision and may come out as 0",
                                w_min, w_max, kMaxWeightRatio);
    BaseLp base = make_base_lp(view, LinearProgram::Sense::Maximize);
    int z = base.lp.add_variable(-LinearProgram::kInf, LinearProgram::kInf, 1.0);
    std::vector<LinearProgram::Terms> rows(n);
    for (std::size_t i = 0; i < n; ++i) {
      const AllocationJob& job = view.jobs[i];
      double c = prop[i] > 0.0 ? job.scale_factor / (job.priority_weight / w_max * prop[i]) : 0.0;
      for (std::size_t t = 0; t < types; ++t) rows[i].push_back({base.var[i][t], job.throughput[t] * c});
      LinearProgram::Terms with_z = rows[i];
      with_z.push_back({z, -1.0});
      base.lp.add_constraint(with_z, 0.0, LinearProgram::kInf);
    }
    LpResult r = base.lp.solve();
    double solver_s = r.solve_s;
    if (!r.usable()) return solver_failure(view, name(), r, solver_s, 1);
    if (fill_spare_) {
      // Phase 2: the minimum stays (within round-off), the total normalised throughput grows.
      double zmin = r.x[static_cast<std::size_t>(z)];
      base.lp.set_objective(z, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        for (const auto& [var, coef] : rows[i]) base.lp.set_objective(var, coef);
      // A bound rather than a new row: the phase-1 basis stays primal feasible, so phase 2 is a
      // warm primal simplex from it.
      base.lp.set_variable_bounds(z, zmin * (1.0 - 1e-7), LinearProgram::kInf);
      LpResult r2 = base.lp.solve();
      solver_s += r2.solve_s;
      if (r2.usable()) r = std::move(r2);  // else keep the phase-1 optimum: still max-min fair
      out.solves = 2;
    } else {
      out.solves = 1;
    }
    out.x = read_allocation(view, base, r);
    out.solver_s = solver_s;
    return out;
  }

 private:
  bool fill_spare_;
};

}  // namespace

void register_gavel_maxmin(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-maxmin",
                  "weighted max-min fairness over normalised effective throughput (LP), round-based time sharing",
                  "Gavel MaxMinFairness_Perf (Narayanan et al., OSDI'20)",
                  {{"fill_spare", "true",
                    "true: second LP maximises total normalised throughput at the max-min optimum; false: one LP"}},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    const std::string& v = param_string(p, "fill_spare");
    if (v != "true" && v != "false")
      throw InputError("", 0, "--param fill_spare", fmt::format("expected true or false, got '{}'", v));
    return std::make_unique<GavelMaxMin>(v == "true");
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
