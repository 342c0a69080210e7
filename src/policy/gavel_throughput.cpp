// gavel-throughput: maximum total normalised throughput, after Gavel's ThroughputSumWithPerf
// (Narayanan et al., OSDI'20, section 4.2; stanford-futuredata/gavel,
// scheduler/policies/max_sum_throughput.py). Gavel sums raw steps/s, which lets a model with
// cheap steps dominate; hetsim normalises each job by its best throughput (the issue's
// "normalised throughput"):  maximise sum_i sum_t x[i][t] T[i][t] / max_t T[i][t]  under the base
// constraints. normalize=none gives Gavel's raw objective.
//
// Ties: the maximum is often reached by a whole face of allocations (three equal jobs on two GPUs:
// any split summing to 2), and the simplex returns one of its vertices, which starves a job (0, 1,
// 1) where Gavel's interior-point solver (cvxpy) lands inside the face (2/3 each). With
// break_ties=fair (default) a second LP keeps the total at its optimum (relative 1e-7) and
// maximises the smallest job's normalised throughput, so equal jobs get equal shares.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

class GavelThroughput final : public AllocationPolicy {
 public:
  GavelThroughput(bool normalize, bool fair_ties, bool group, LinearProgram::Backend backend)
      : normalize_(normalize), fair_ties_(fair_ties), group_(group), backend_(backend) {}
  std::string name() const override { return "gavel-throughput"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    if (view.jobs.empty()) return {};
    // --param group=true: one variable per group of identical jobs (docs/policies.md): the
    // objective and the phase-2 rows are symmetric in the members, so the optimum is unchanged;
    // a member's normalised throughput is its group's over count.
    const JobGroups groups = group_ ? group_identical_jobs(view) : JobGroups{};
    BaseLp base = group_ ? make_grouped_base_lp(view, LinearProgram::Sense::Maximize, groups, backend_)
                         : make_base_lp(view, LinearProgram::Sense::Maximize, backend_);
    const std::size_t rows = group_ ? groups.first.size() : view.jobs.size();
    std::vector<LinearProgram::Terms> normalised(rows);
    LinearProgram::Terms total;
    for (std::size_t i = 0; i < rows; ++i) {
      const auto& tput = view.jobs[group_ ? groups.first[i] : i].throughput;
      const double members = group_ ? groups.count[i] : 1.0;
      double best = *std::max_element(tput.begin(), tput.end());
      for (std::size_t t = 0; t < tput.size(); ++t) {
        const double norm = best > 0 ? tput[t] / best : 0.0;
        const double coef = normalize_ ? norm : tput[t];
        base.lp.set_objective(base.var[i][t], coef);
        total.push_back({base.var[i][t], coef});
        normalised[i].push_back({base.var[i][t], norm / members});
      }
    }
    LpResult r = base.lp.solve();
    if (!r.usable()) return solver_failure(view, name(), r, r.solve_s, 1);
    AllocationResult out;
    out.solver_s = r.solve_s;
    out.solves = 1;
    if (fair_ties_) {
      LpResult fair = fairest_optimum(base, r.objective, total, normalised);
      out.solver_s += fair.solve_s;
      out.solves += 1;
      if (fair.usable()) r = std::move(fair);  // else keep the vertex: still optimal
    }
    out.x = group_ ? read_grouped_allocation(view, base, groups, r) : read_allocation(view, base, r);
    return out;
  }

 private:
  // Phase 2: the total stays at its optimum (within round-off), z <= each job's normalised
  // throughput is maximised.
  static LpResult fairest_optimum(BaseLp& base, double optimum, const LinearProgram::Terms& total,
                                  const std::vector<LinearProgram::Terms>& normalised) {
    for (const auto& [var, coef] : total) base.lp.set_objective(var, 0.0);
    base.lp.add_constraint(total, optimum - 1e-7 * std::max(1.0, std::abs(optimum)), LinearProgram::kInf);
    const int z = base.lp.add_variable(-LinearProgram::kInf, LinearProgram::kInf, 1.0);
    for (const LinearProgram::Terms& row : normalised) {
      LinearProgram::Terms with_z = row;
      with_z.push_back({z, -1.0});
      base.lp.add_constraint(with_z, 0.0, LinearProgram::kInf);
    }
    return base.lp.solve();
  }

  bool normalize_;
  bool fair_ties_;
  bool group_;  // one LP variable per group of identical jobs
  LinearProgram::Backend backend_;
};

}  // namespace

void register_gavel_throughput(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-throughput",
                  "maximum total normalised throughput (LP), round-based time sharing",
                  "Gavel ThroughputSumWithPerf (Narayanan et al., OSDI'20)",
                  {{"normalize", "best", "'best' = each job's throughput over its best type's; 'none' = raw steps/s (Gavel)"},
                   {"break_ties", "fair",
                    "'fair' = among optimal allocations, the one whose smallest normalised throughput is largest "
                    "(second LP); 'none' = the solver's vertex"},
                   {"group", "true",
                    "true: one LP variable per group of jobs with equal rates, scale factor and weight (same optimum, "
                    "smaller LP; identical jobs get identical shares); false: one variable per job"},
                   lp_backend_param_info()},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    const std::string& v = param_string(p, "normalize");
    if (v != "best" && v != "none")
      throw InputError("", 0, "--param normalize", fmt::format("expected best or none, got '{}'", v));
    const std::string& ties = param_string(p, "break_ties");
    if (ties != "fair" && ties != "none")
      throw InputError("", 0, "--param break_ties", fmt::format("expected fair or none, got '{}'", ties));
    const std::string& group = param_string(p, "group");
    if (group != "true" && group != "false")
      throw InputError("", 0, "--param group", fmt::format("expected true or false, got '{}'", group));
    return std::make_unique<GavelThroughput>(v == "best", ties == "fair", group == "true", lp_backend_param(p));
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
