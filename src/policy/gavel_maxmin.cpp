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
#include "gavel_goodput.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

constexpr double kMaxWeightRatio = 1e6;

// The packed LP (Gavel's MaxMinFairnessPolicyWithPacking.get_allocation, policies/max_min_fairness.py
// and PolicyWithPacking in policies/policy.py): one variable per (combination, type), where the
// combinations are the single jobs and the pairs of AllocationView::pairs. A job's share is the
// sum over every combination holding it (sum <= 1); a pair uses its scale factor's GPUs once; a
// job's normalised throughput sums its solo rate over its single variables and its pair rate over
// its pairs' variables. hetsim fixes a pair's variable on a type to 0 when either job's pair rate
// there is 0 (the mechanism never runs such a pair; Gavel's LP leaves it free with no gain).
struct PackedLp {
  LinearProgram lp{LinearProgram::Sense::Maximize};
  std::vector<std::vector<int>> single, pair;  // [row][type] variable indices
  std::vector<LinearProgram::Terms> gain;      // [job] normalised throughput terms
};

PackedLp make_packed_lp(const AllocationView& view, const std::vector<double>& coef, LinearProgram::Backend backend) {
  PackedLp p;
  p.lp = LinearProgram(LinearProgram::Sense::Maximize, backend);
  const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
  std::vector<LinearProgram::Terms> share(n), gpus(types);
  p.gain.resize(n);
  p.single.assign(n, std::vector<int>(types));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t < types; ++t) {
      const double rate = view.jobs[i].throughput[t];
      const int v = p.single[i][t] = p.lp.add_variable(0.0, rate > 0.0 ? 1.0 : 0.0, 0.0);
      share[i].push_back({v, 1.0});
      gpus[t].push_back({v, static_cast<double>(view.jobs[i].scale_factor)});
      p.gain[i].push_back({v, rate * coef[i]});
    }
  p.pair.assign(view.pairs.size(), std::vector<int>(types));
  for (std::size_t k = 0; k < view.pairs.size(); ++k) {
    const AllocationPair& q = view.pairs[k];
    for (std::size_t t = 0; t < types; ++t) {
      const double ra = q.first_rate[t], rb = q.second_rate[t];
      const int v = p.pair[k][t] = p.lp.add_variable(0.0, ra > 0.0 && rb > 0.0 ? 1.0 : 0.0, 0.0);
      share[q.first].push_back({v, 1.0});
      share[q.second].push_back({v, 1.0});
      gpus[t].push_back({v, static_cast<double>(view.jobs[q.first].scale_factor)});
      p.gain[q.first].push_back({v, ra * coef[q.first]});
      p.gain[q.second].push_back({v, rb * coef[q.second]});
    }
  }
  for (std::size_t i = 0; i < n; ++i) p.lp.add_constraint(share[i], -LinearProgram::kInf, 1.0);
  for (std::size_t t = 0; t < types; ++t)
    p.lp.add_constraint(gpus[t], -LinearProgram::kInf, static_cast<double>(view.gpus_per_type[t]));
  return p;
}

class GavelMaxMin final : public AllocationPolicy {
 public:
  GavelMaxMin(bool fill_spare, bool packing, bool group, LinearProgram::Backend backend)
      : fill_spare_(fill_spare), packing_(packing), group_(group), backend_(backend) {}
  std::string name() const override { return "gavel-maxmin"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }
  bool packing() const override { return packing_; }

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
    if (packing_) return allocate_packed(view, prop, w_max, std::move(out));
    if (group_) return allocate_grouped(view, prop, w_max, std::move(out));
    BaseLp base = make_base_lp(view, LinearProgram::Sense::Maximize, backend_);
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
  // --param group=true (issue 19): jobs with the same rates on every type, scale factor and weight
  // have the same row in every constraint, so the LP is symmetric under swapping them; averaging an
  // optimal X over those swaps keeps it feasible and optimal (the LP is convex, its objectives and
  // constraints are swap-invariant), so an optimum exists where such jobs have equal rows. One
  // variable y[g][t] = the group's total share (at most its count) then stands for them, with the
  // max-min row on y / count; the optimum z and the total throughput are those of the per-job LP.
  // Which optimal X comes back can differ (the equal split instead of GLPK's vertex), so results
  // move and the default stays per job.
  AllocationResult allocate_grouped(const AllocationView& view, const std::vector<double>& prop, double w_max,
                                    AllocationResult out) const {
    const JobGroups groups = group_identical_jobs(view);
    BaseLp base = make_grouped_base_lp(view, LinearProgram::Sense::Maximize, groups, backend_);
    const std::size_t types = view.gpus_per_type.size();
    std::vector<LinearProgram::Terms> rows(groups.first.size());  // [group] its members' throughput sum
    for (std::size_t g = 0; g < rows.size(); ++g) {
      const AllocationJob& job = view.jobs[groups.first[g]];
      const double c = prop[groups.first[g]] > 0.0 ? job.scale_factor / (job.priority_weight / w_max * prop[groups.first[g]]) : 0.0;
      for (std::size_t t = 0; t < types; ++t) rows[g].push_back({base.var[g][t], job.throughput[t] * c});
    }
    const int z = base.lp.add_variable(-LinearProgram::kInf, LinearProgram::kInf, 1.0);
    for (std::size_t g = 0; g < rows.size(); ++g) {  // each member's normalised throughput >= z
      LinearProgram::Terms with_z;
      for (const auto& [var, coef] : rows[g]) with_z.push_back({var, coef / groups.count[g]});
      with_z.push_back({z, -1.0});
      base.lp.add_constraint(with_z, 0.0, LinearProgram::kInf);
    }
    LpResult r = base.lp.solve();
    double solver_s = r.solve_s;
    if (!r.usable()) return solver_failure(view, name(), r, solver_s, 1);
    out.solves = 1;
    if (fill_spare_) {
      const double zmin = r.x[static_cast<std::size_t>(z)];
      base.lp.set_objective(z, 0.0);
      for (const auto& row : rows)
        for (const auto& [var, coef] : row) base.lp.set_objective(var, coef);
      base.lp.set_variable_bounds(z, zmin * (1.0 - 1e-7), LinearProgram::kInf);
      LpResult r2 = base.lp.solve();
      solver_s += r2.solve_s;
      if (r2.usable()) r = std::move(r2);
      out.solves = 2;
    }
    out.x = read_grouped_allocation(view, base, groups, r);
    out.solver_s = solver_s;
    return out;
  }

  // Max-min over the packed LP, with the same second phase as the unpacked one.
  AllocationResult allocate_packed(const AllocationView& view, const std::vector<double>& prop, double w_max,
                                   AllocationResult out) const {
    const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
    std::vector<double> coef(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      if (prop[i] > 0.0) coef[i] = view.jobs[i].scale_factor / (view.jobs[i].priority_weight / w_max * prop[i]);
    PackedLp p = make_packed_lp(view, coef, backend_);
    const int z = p.lp.add_variable(-LinearProgram::kInf, LinearProgram::kInf, 1.0);
    for (std::size_t i = 0; i < n; ++i) {
      LinearProgram::Terms with_z = p.gain[i];
      with_z.push_back({z, -1.0});
      p.lp.add_constraint(with_z, 0.0, LinearProgram::kInf);
    }
    LpResult r = p.lp.solve();
    double solver_s = r.solve_s;
    out.solves = 1;
    if (!r.usable()) return solver_failure(view, name(), r, solver_s, 1);
    if (fill_spare_) {
      const double zmin = r.x[static_cast<std::size_t>(z)];
      p.lp.set_objective(z, 0.0);
      // The total normalised throughput; a pair's variable is in two jobs' gains, so terms add up.
      std::vector<double> objective(static_cast<std::size_t>(p.lp.variables()), 0.0);
      for (std::size_t i = 0; i < n; ++i)
        for (const auto& [var, c] : p.gain[i]) objective[static_cast<std::size_t>(var)] += c;
      for (std::size_t v = 0; v < objective.size(); ++v)
        if (objective[v] != 0.0) p.lp.set_objective(static_cast<int>(v), objective[v]);
      p.lp.set_variable_bounds(z, zmin * (1.0 - 1e-7), LinearProgram::kInf);
      LpResult r2 = p.lp.solve();
      solver_s += r2.solve_s;
      if (r2.usable()) r = std::move(r2);
      out.solves = 2;
    }
    auto value = [&](int v) { return std::clamp(r.x[static_cast<std::size_t>(v)], 0.0, 1.0); };
    out.x.assign(n, std::vector<double>(types, 0.0));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t t = 0; t < types; ++t) out.x[i][t] = value(p.single[i][t]);
    out.pair_x.assign(view.pairs.size(), std::vector<double>(types, 0.0));
    for (std::size_t k = 0; k < view.pairs.size(); ++k)
      for (std::size_t t = 0; t < types; ++t) out.pair_x[k][t] = value(p.pair[k][t]);
    out.solver_s = solver_s;
    return out;
  }

  bool fill_spare_;
  bool packing_;
  bool group_;  // one LP variable per group of identical jobs (allocate_grouped)
  LinearProgram::Backend backend_;
};

bool flag_param(const PolicyParams& p, const char* key) {
  const std::string& v = param_string(p, key);
  if (v != "true" && v != "false")
    throw InputError("", 0, fmt::format("--param {}", key), fmt::format("expected true or false, got '{}'", v));
  return v == "true";
}

// group=auto (the default, issue 19): grouped unless packing=true, whose job pairs are per job.
bool group_param(const PolicyParams& p, bool packing) {
  const std::string& v = param_string(p, "group");
  if (v == "auto") return !packing;
  if (v != "true" && v != "false")
    throw InputError("", 0, "--param group", fmt::format("expected true, false or auto, got '{}'", v));
  return v == "true";
}

}  // namespace

void register_gavel_maxmin(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-maxmin",
                  "weighted max-min fairness over normalised effective throughput (LP), round-based time sharing",
                  "Gavel MaxMinFairness_Perf (Narayanan et al., OSDI'20)",
                  {{"fill_spare", "true",
                    "true: second LP maximises total normalised throughput at the max-min optimum; false: one LP"},
                   {"packing", "false",
                    "true: Gavel's MaxMinFairness_Packing: job pairs with a pair rate in the throughput table may "
                    "share GPUs (--mechanism gavel)"},
                   {"group", "auto",
                    "true: one LP variable per group of jobs with equal rates, scale factor and weight (same optimum, "
                    "smaller LP, identical jobs get identical shares as Gavel's interior-point ECOS gives them); "
                    "false: one variable per job (a simplex vertex); auto: true unless packing=true"},
                   lp_backend_param_info()},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    const bool fill_spare = flag_param(p, "fill_spare");
    const bool packing = flag_param(p, "packing");
    const bool group = group_param(p, packing);
    if (packing && group)
      throw InputError("", 0, "--param group", "group=true does not combine with packing=true (pairs are per job)");
    return std::make_unique<GavelMaxMin>(fill_spare, packing, group, lp_backend_param(p));
  };
  // On Pollux/Sia goodput workloads (--workload): the event mechanism in round mode runs the same
  // LP over rigid jobs, as Sia's Gavel baseline (gavel_goodput.cpp).
  info.make = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
    const bool fill_spare = flag_param(p, "fill_spare");
    if (flag_param(p, "packing"))
      throw InputError("", 0, "--param packing",
                       "true needs pair rates from a throughput table (--mechanism gavel); a Pollux/Sia workload "
                       "(--workload) has none");
    return make_gavel_goodput(
        std::make_unique<GavelMaxMin>(fill_spare, false, group_param(p, false), lp_backend_param(p)));
  };
  info.scheduling_form_for_workloads_only = true;
  registry.add(std::move(info));
}

}  // namespace hetsim
