// gavel-makespan: minimum makespan, Gavel's MinTotalDuration_Perf (Narayanan et al., OSDI'20,
// section 4.2; stanford-futuredata/gavel, scheduler/policies/min_total_duration.py). Gavel
// bisects on the makespan M with the feasibility LP sum_t T[i][t] x[i][t] >= rem_i / M. With
// z = 1/M that is one LP, solved exactly instead of by bisection:
//   maximise z  s.t.  sum_t T[i][t] x[i][t] - rem_i z >= 0  for every job i, base constraints.
#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"

namespace hetsim {
namespace {

class GavelMakespan final : public AllocationPolicy {
 public:
  std::string name() const override { return "gavel-makespan"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    if (view.jobs.empty()) return {};
    BaseLp base = make_base_lp(view, LinearProgram::Sense::Maximize);
    int z = base.lp.add_variable(0.0, 1e9, 1.0);  // bounded: all-zero remaining work must not be "unbounded"
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      const AllocationJob& job = view.jobs[i];
      LinearProgram::Terms row;
      for (std::size_t t = 0; t < job.throughput.size(); ++t) row.push_back({base.var[i][t], job.throughput[t]});
      row.push_back({z, -job.remaining_work});
      base.lp.add_constraint(row, 0.0, LinearProgram::kInf);
    }
    return solve_allocation(view, name(), base);
  }
};

}  // namespace

void register_gavel_makespan(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-makespan", "minimum makespan of the active jobs (LP), round-based time sharing",
                  "Gavel MinTotalDuration_Perf (Narayanan et al., OSDI'20)", {}, nullptr, nullptr};
  info.make_allocation = [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    return std::make_unique<GavelMakespan>();
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
