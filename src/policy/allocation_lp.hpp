#pragma once
// Private to src/policy/: the LP skeleton every Gavel policy shares (Gavel, OSDI'20, policy.py
// get_base_constraints): x[i][t] in [0, 1] (fixed to 0 where job i has zero throughput on t, so a
// solver can never place it there), sum_t x[i][t] <= 1, sum_i s_i x[i][t] <= G_t.
#include <optional>
#include <string>
#include <vector>

#include "hetsim/policy/allocation.hpp"
#include "hetsim/policy/lp.hpp"
#include "hetsim/policy/registry.hpp"

namespace hetsim {

struct BaseLp {
  LinearProgram lp;
  std::vector<std::vector<int>> var;  // var[i][t]: index of x[i][t]
};

/// The `solver` parameter of the LP policies: "glpk" (default) or "clp"; InputError otherwise.
LinearProgram::Backend lp_backend_param(const PolicyParams& params);
/// The PolicyInfo entry of that parameter.
ParamInfo lp_backend_param_info();
/// Builds the skeleton for `view` with the given sense and zero objective.
BaseLp make_base_lp(const AllocationView& view, LinearProgram::Sense sense,
                    LinearProgram::Backend backend = LinearProgram::Backend::Glpk);
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
BaseLp make_grouped_base_lp(const AllocationView& view, LinearProgram::Sense sense, const JobGroups& groups,
                            LinearProgram::Backend backend = LinearProgram::Backend::Glpk);
/// Each member's row: its group's shares / count, sanitized.
AllocationMatrix read_grouped_allocation(const AllocationView& view, const BaseLp& base, const JobGroups& groups,
                                         const LpResult& result);
/// The grouped forms of gavel-ftf and gavel-makespan, whose rows ask each job i for a throughput of
/// its own (sum_t T[i][t] x[i][t] >= need[i]): splits each group's total shares y (a usable
/// solution of the grouped LP) among its members as x_i = w_i y, with w_i in [need_i / P, 1 / S]
/// (P = the group's throughput T.y, S = sum_t y[t]) summing to 1, so every member gets its need
/// and at most a whole share. Such weights exist iff max_i need_i * S <= P (up to 1e-9 relative);
/// std::nullopt when a group breaks that (the caller then solves the per-job LP).
std::optional<AllocationMatrix> split_grouped_allocation(const AllocationView& view, const BaseLp& base,
                                                         const JobGroups& groups, const LpResult& result,
                                                         const std::vector<double>& need);
/// "job ids a, b, c, ... (N jobs)" for failure messages.
std::string describe_jobs(const AllocationView& view);
/// A failed result carrying the solver's status and the jobs involved.
AllocationResult solver_failure(const AllocationView& view, const std::string& policy, const LpResult& result,
                                double solver_s, int solves);

}  // namespace hetsim
