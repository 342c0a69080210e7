#pragma once
// Private to src/policy/: the LP skeleton every Gavel policy shares (Gavel, OSDI'20, policy.py
// get_base_constraints): x[i][t] in [0, 1] (fixed to 0 where job i has zero throughput on t, so a
// solver can never place it there), sum_t x[i][t] <= 1, sum_i s_i x[i][t] <= G_t.
#include <string>
#include <vector>

#include "hetsim/policy/allocation.hpp"
#include "hetsim/policy/lp.hpp"

namespace hetsim {

struct BaseLp {
  LinearProgram lp;
  std::vector<std::vector<int>> var;  // var[i][t]: index of x[i][t]
};

/// Builds the skeleton for `view` with the given sense and zero objective.
BaseLp make_base_lp(const AllocationView& view, LinearProgram::Sense sense);
/// Reads x[i][t] out of a usable solution and sanitizes it.
AllocationMatrix read_allocation(const AllocationView& view, const BaseLp& base, const LpResult& result);
/// Solves `base` once: the sanitized X (as read_allocation) with its solver time, or, when the
/// solver gives no usable answer, solver_failure() for `policy`. solves = 1 either way.
AllocationResult solve_allocation(const AllocationView& view, const std::string& policy, BaseLp& base);
/// Jobs with equal (scale factor, weight, rates on every type), numbered by their first job: the
/// `--param group=true` form of gavel-maxmin and gavel-throughput (docs/policies.md says why one
/// variable per group keeps those LPs' optimum).
struct JobGroups {
  std::vector<std::size_t> group_of;  // [job row] -> group
  std::vector<std::size_t> first;     // [group] -> its first job row
  std::vector<double> count;          // [group] -> members
};
JobGroups group_identical_jobs(const AllocationView& view);
/// The skeleton over groups: var[g][t] = the group's total share of type t, in [0, count]
/// (0 where its rate is 0), sum_t var[g][t] <= count, sum_g s_g var[g][t] <= G_t.
BaseLp make_grouped_base_lp(const AllocationView& view, LinearProgram::Sense sense, const JobGroups& groups);
/// Each member's row: its group's shares / count, sanitized.
AllocationMatrix read_grouped_allocation(const AllocationView& view, const BaseLp& base, const JobGroups& groups,
                                         const LpResult& result);
/// "job ids a, b, c, ... (N jobs)" for failure messages.
std::string describe_jobs(const AllocationView& view);
/// A failed result carrying the solver's status and the jobs involved.
AllocationResult solver_failure(const AllocationView& view, const std::string& policy, const LpResult& result,
                                double solver_s, int solves);

}  // namespace hetsim
