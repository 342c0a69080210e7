// The LP skeleton shared by the Gavel-style policies (see allocation_lp.hpp).
#include "allocation_lp.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <tuple>

#include "clp_module_api.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {

LinearProgram::Backend lp_backend_param(const PolicyParams& params) {
  const std::string& v = param_string(params, "solver");
  if (v == "glpk") return LinearProgram::Backend::Glpk;
  if (v == "clp") {
    if (const std::string why = clp_module_error(); !why.empty())
      throw InputError("", 0, "--param solver", "clp is unavailable: " + why);
    return LinearProgram::Backend::Clp;
  }
  throw InputError("", 0, "--param solver", fmt::format("expected glpk or clp, got '{}'", v));
}

ParamInfo lp_backend_param_info() {
  return {"solver", "glpk",
          "LP solver: 'glpk' (GLPK simplex) or 'clp' (COIN-OR Clp; the same optimum, but where the optimum is not "
          "unique it may return another optimal X, so results can move)"};
}

BaseLp make_base_lp(const AllocationView& view, LinearProgram::Sense sense, LinearProgram::Backend backend) {
  BaseLp base{LinearProgram(sense, backend), {}};
  const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
  base.var.assign(n, std::vector<int>(types, -1));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t < types; ++t)
      base.var[i][t] = base.lp.add_variable(0.0, view.jobs[i].throughput[t] > 0.0 ? 1.0 : 0.0, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    LinearProgram::Terms row;
    for (std::size_t t = 0; t < types; ++t) row.push_back({base.var[i][t], 1.0});
    base.lp.add_constraint(row, -LinearProgram::kInf, 1.0);
  }
  for (std::size_t t = 0; t < types; ++t) {
    LinearProgram::Terms col;
    for (std::size_t i = 0; i < n; ++i) col.push_back({base.var[i][t], static_cast<double>(view.jobs[i].scale_factor)});
    base.lp.add_constraint(col, -LinearProgram::kInf, static_cast<double>(view.gpus_per_type[t]));
  }
  return base;
}

AllocationMatrix read_allocation(const AllocationView& view, const BaseLp& base, const LpResult& result) {
  AllocationMatrix x = zero_allocation(view);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t t = 0; t < x[i].size(); ++t) x[i][t] = result.x[static_cast<std::size_t>(base.var[i][t])];
  return sanitize_allocation(view, std::move(x));
}

AllocationResult solve_allocation(const AllocationView& view, const std::string& policy, BaseLp& base) {
  LpResult r = base.lp.solve();
  if (!r.usable()) return solver_failure(view, policy, r, r.solve_s, 1);
  AllocationResult out;
  out.x = read_allocation(view, base, r);
  out.solver_s = r.solve_s;
  out.solves = 1;
  return out;
}

JobGroups group_identical_jobs(const AllocationView& view) {
  JobGroups g;
  g.group_of.resize(view.jobs.size());
  std::map<std::tuple<int, double, std::vector<double>>, std::size_t> group_of_key;
  for (std::size_t i = 0; i < view.jobs.size(); ++i) {
    const AllocationJob& job = view.jobs[i];
    auto [it, added] = group_of_key.try_emplace({job.scale_factor, job.priority_weight, job.throughput}, g.first.size());
    if (added) {
      g.first.push_back(i);
      g.count.push_back(0.0);
    }
    g.group_of[i] = it->second;
    g.count[it->second] += 1.0;
  }
  return g;
}

BaseLp make_grouped_base_lp(const AllocationView& view, LinearProgram::Sense sense, const JobGroups& groups,
                            LinearProgram::Backend backend) {
  BaseLp base{LinearProgram(sense, backend), {}};
  const std::size_t n = groups.first.size(), types = view.gpus_per_type.size();
  base.var.assign(n, std::vector<int>(types, -1));
  for (std::size_t g = 0; g < n; ++g) {
    const AllocationJob& job = view.jobs[groups.first[g]];
    for (std::size_t t = 0; t < types; ++t)
      base.var[g][t] = base.lp.add_variable(0.0, job.throughput[t] > 0.0 ? groups.count[g] : 0.0, 0.0);
  }
  for (std::size_t g = 0; g < n; ++g) {
    LinearProgram::Terms row;
    for (std::size_t t = 0; t < types; ++t) row.push_back({base.var[g][t], 1.0});
    base.lp.add_constraint(row, -LinearProgram::kInf, groups.count[g]);
  }
  for (std::size_t t = 0; t < types; ++t) {
    LinearProgram::Terms col;
    for (std::size_t g = 0; g < n; ++g)
      col.push_back({base.var[g][t], static_cast<double>(view.jobs[groups.first[g]].scale_factor)});
    base.lp.add_constraint(col, -LinearProgram::kInf, static_cast<double>(view.gpus_per_type[t]));
  }
  return base;
}

AllocationMatrix read_grouped_allocation(const AllocationView& view, const BaseLp& base, const JobGroups& groups,
                                         const LpResult& result) {
  AllocationMatrix x = zero_allocation(view);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t g = groups.group_of[i];
    for (std::size_t t = 0; t < x[i].size(); ++t)
      x[i][t] = result.x[static_cast<std::size_t>(base.var[g][t])] / groups.count[g];
  }
  return sanitize_allocation(view, std::move(x));
}

std::optional<AllocationMatrix> split_grouped_allocation(const AllocationView& view, const BaseLp& base,
                                                         const JobGroups& groups, const LpResult& result,
                                                         const std::vector<double>& need) {
  const std::size_t types = view.gpus_per_type.size(), n_groups = groups.first.size();
  std::vector<std::vector<std::size_t>> members(n_groups);
  for (std::size_t i = 0; i < view.jobs.size(); ++i) members[groups.group_of[i]].push_back(i);
  AllocationMatrix x = zero_allocation(view);
  for (std::size_t g = 0; g < n_groups; ++g) {
    const std::vector<double>& rate = view.jobs[groups.first[g]].throughput;
    std::vector<double> y(types);
    double total_share = 0.0, tput = 0.0, need_sum = 0.0, need_max = 0.0;
    for (std::size_t t = 0; t < types; ++t) {
      y[t] = std::max(0.0, result.x[static_cast<std::size_t>(base.var[g][t])]);
      total_share += y[t];
      tput += rate[t] * y[t];
    }
    for (std::size_t i : members[g]) {
      need_sum += need[i];
      need_max = std::max(need_max, need[i]);
    }
    if (total_share <= 0.0 || tput <= 0.0) {
      if (need_max > 0.0) return std::nullopt;  // members that need throughput got none
      continue;                                 // all members idle
    }
    if (need_max * total_share > tput * (1.0 + 1e-9)) return std::nullopt;
    // w_i = need_i/P + lambda (1/S - need_i/P): the needs first, then the rest of y in proportion
    // to each member's room below a whole share; lambda in [0, 1] makes the weights sum to 1.
    const double k = static_cast<double>(members[g].size());
    const double room = k / total_share - need_sum / tput;
    const double lambda = room > 0.0 ? std::clamp((1.0 - need_sum / tput) / room, 0.0, 1.0) : 0.0;
    for (std::size_t i : members[g]) {
      const double w = need[i] / tput + lambda * (1.0 / total_share - need[i] / tput);
      for (std::size_t t = 0; t < types; ++t) x[i][t] = w * y[t];
    }
  }
  return sanitize_allocation(view, std::move(x));
}

std::string describe_jobs(const AllocationView& view) {
  std::string ids;
  for (std::size_t i = 0; i < view.jobs.size() && i < 10; ++i)
    ids += (i ? ", " : "") + (view.jobs[i].spec ? view.jobs[i].spec->id : std::to_string(view.jobs[i].job));
  if (view.jobs.size() > 10) ids += ", ...";
  return fmt::format("jobs {} ({} active)", ids, view.jobs.size());
}

AllocationResult solver_failure(const AllocationView& view, const std::string& policy, const LpResult& result,
                                double solver_s, int solves) {
  AllocationResult r;
  r.ok = false;
  r.failure = fmt::format("{}: solver {} ({}) for {}", policy, to_string(result.status), result.message,
                          describe_jobs(view));
  r.solver_s = solver_s;
  r.solves = solves;
  return r;
}

}  // namespace hetsim
