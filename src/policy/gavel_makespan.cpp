// gavel-makespan: minimum makespan, Gavel's MinTotalDuration_Perf (Narayanan et al., OSDI'20,
// section 4.2; stanford-futuredata/gavel, scheduler/policies/min_total_duration.py). Gavel
// bisects on the makespan M with the feasibility LP sum_t T[i][t] x[i][t] >= rem_i / M. With
// z = 1/M that is one LP, solved exactly instead of by bisection:
//   maximise z  s.t.  sum_t T[i][t] x[i][t] - rem_i z >= 0  for every job i, base constraints.
#include <fmt/format.h>

#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

class GavelMakespan final : public AllocationPolicy {
 public:
  GavelMakespan(bool group, LinearProgram::Backend backend) : group_(group), backend_(backend) {}
  std::string name() const override { return "gavel-makespan"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    if (view.jobs.empty()) return {};
    AllocationResult grouped;
    if (group_) {
      // --param group=true (docs/policies.md): the LP over groups of identical jobs, whose row asks
      // the group for the sum of its members' remaining work, is a relaxation of the per-job LP (a
      // per-job X sums to a grouped point with the same z). When its optimum splits among the
      // members (each gets rem_i z, at most a whole share), that z is the per-job optimum too.
      const JobGroups groups = group_identical_jobs(view);
      BaseLp base = make_grouped_base_lp(view, LinearProgram::Sense::Maximize, groups, backend_);
      std::vector<double> work(groups.first.size(), 0.0);
      for (std::size_t i = 0; i < view.jobs.size(); ++i) work[groups.group_of[i]] += view.jobs[i].remaining_work;
      const int z = add_makespan_rows(base, work, [&](std::size_t g) -> const AllocationJob& {
        return view.jobs[groups.first[g]];
      });
      LpResult r = base.lp.solve();
      grouped.solver_s = r.solve_s;
      grouped.solves = 1;
      if (r.status == LpResult::Status::Optimal) {
        std::vector<double> need(view.jobs.size());
        const double zstar = r.x[static_cast<std::size_t>(z)];
        for (std::size_t i = 0; i < need.size(); ++i) need[i] = view.jobs[i].remaining_work * zstar;
        if (auto x = split_grouped_allocation(view, base, groups, r, need)) {
          grouped.x = std::move(*x);
          return grouped;
        }
      }
    }
    BaseLp base = make_base_lp(view, LinearProgram::Sense::Maximize, backend_);
    std::vector<double> work(view.jobs.size());
    for (std::size_t i = 0; i < work.size(); ++i) work[i] = view.jobs[i].remaining_work;
    add_makespan_rows(base, work, [&](std::size_t i) -> const AllocationJob& { return view.jobs[i]; });
    AllocationResult out = solve_allocation(view, name(), base);
    out.solver_s += grouped.solver_s;
    out.solves += grouped.solves;
    return out;
  }

 private:
  // z and, for every row r of `base` (a job or a group), sum_t T[t] x[r][t] - work[r] z >= 0.
  template <typename JobOfRow>
  static int add_makespan_rows(BaseLp& base, const std::vector<double>& work, JobOfRow job_of_row) {
    int z = base.lp.add_variable(0.0, 1e9, 1.0);  // bounded: all-zero remaining work must not be "unbounded"
    for (std::size_t r = 0; r < work.size(); ++r) {
      const AllocationJob& job = job_of_row(r);
      LinearProgram::Terms row;
      for (std::size_t t = 0; t < job.throughput.size(); ++t) row.push_back({base.var[r][t], job.throughput[t]});
      row.push_back({z, -work[r]});
      base.lp.add_constraint(row, 0.0, LinearProgram::kInf);
    }
    return z;
  }

  bool group_;
  LinearProgram::Backend backend_;
};

}  // namespace

void register_gavel_makespan(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-makespan", "minimum makespan of the active jobs (LP), round-based time sharing",
                  "Gavel MinTotalDuration_Perf (Narayanan et al., OSDI'20)",
                  {{"group", "true",
                    "true: first an LP with one variable per group of jobs with equal rates, scale factor and weight "
                    "(same makespan; identical jobs get identical shares when they can); false: the per-job LP only"},
                   lp_backend_param_info()},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    const std::string& group = param_string(p, "group");
    if (group != "true" && group != "false")
      throw InputError("", 0, "--param group", fmt::format("expected true or false, got '{}'", group));
    return std::make_unique<GavelMakespan>(group == "true", lp_backend_param(p));
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
