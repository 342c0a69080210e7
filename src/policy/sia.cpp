// sia: Sia's integer program (Jayaram Subramanya et al., "Sia: Heterogeneity-aware,
// goodput-optimized ML-cluster scheduling", SOSP'23; siasosp23/artifacts, sia-simulator/sia.py),
// in two forms. On --workload goodput profiles (elastic jobs, event mechanism in 60-s rounds) the
// ILP is over configurations (type, GPU count): sia_goodput.cpp and sia_plan.cpp. This file is the
// allocation form for rigid jobs on throughput tables (--mechanism gavel): a job's goodput on a
// type is its measured throughput at its requested GPU count, and its only configuration per type
// is that count. Per round:
//   speedup[i][t] = T[i][t] / min_{t': T>0} T[i][t']          (>= 1; 0 where T = 0)
//   speedup[i][t] *= r_i for every t other than the job's current type (restart penalty), with
//   Pollux's re-allocation factor r_i = max(age_i - restarts_i * P, 0) / (age_i + P), and r_i = 1
//   while age_i < P (P = restart_penalty_s)
//   A[i][t] = speedup[i][t]^p rounded to 2 decimals (p = fairness exponent, p != 0)
//   p < 0: minimise  sum w_i A[i][t] x[i][t] + lambda_n (N - sum x)
//   p > 0: maximise  sum w_i A[i][t] x[i][t] - lambda_n (N - sum x)
//   x binary, sum_t x[i][t] <= 1, sum_i s_i x[i][t] <= G_t, x = 0 where T = 0.
// lambda_n (> 1) makes an unallocated job cost more than any allocated one gains (Sia's default
// 1.1; its sign rule is applied here from the sign of p). X is recomputed every round.
// Determinism: branch-and-bound is bounded by a node limit, not by wall time (Sia gives its solver
// a time limit, which makes answers depend on the machine); it starts from a greedy incumbent so
// that a search stopped at the limit always has an answer. A wall-time safety net far above what
// the node limit takes is counted and reported if it ever stops a search. Where the root does not
// prove its incumbent optimal, an exact search over the GPUs used per type (type_packing.hpp)
// settles the optimum instead of hundreds of nodes (--param proof).
#include <cmath>
#include <map>
#include <fmt/format.h>

#include "allocation_lp.hpp"
#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "sia_goodput.hpp"
#include "type_packing.hpp"

namespace hetsim {
namespace {

class Sia final : public AllocationPolicy {
 public:
  Sia(double p, double lambda_n, double restart_penalty_s, long long node_limit, double time_limit_s, bool group,
      bool table_proof)
      : p_(p), lambda_n_(lambda_n), penalty_s_(restart_penalty_s), node_limit_(node_limit), time_limit_s_(time_limit_s),
        group_(group), table_proof_(table_proof) {}
  std::string name() const override { return "sia"; }
  bool every_round() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    AllocationResult out;
    const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
    if (n == 0) return out;
    // The constant lambda_n * N is dropped; -lambda_n * x (p<0) or +lambda_n * x (p>0) remains.
    const double per_alloc = p_ < 0 ? -lambda_n_ : lambda_n_;
    // The ILP's numbers: per job its scale factor, then per type 1/0 (can run) and the objective
    // coefficient; then the capacities. Between rounds they often do not change (A is rounded to
    // 2 decimals), and GLPK is deterministic, so the previous answer is reused as it is.
    std::vector<double> key;
    key.reserve(n * (1 + 2 * types) + types);
    for (std::size_t i = 0; i < n; ++i) {
      const AllocationJob& job = view.jobs[i];
      key.push_back(job.scale_factor);
      double slowest = 0.0;
      for (double v : job.throughput)
        if (v > 0.0 && (slowest == 0.0 || v < slowest)) slowest = v;
      double realloc = 1.0;
      if (job.age_s >= penalty_s_)
        realloc = std::max(job.age_s - job.placement_changes * penalty_s_, 0.0) / (job.age_s + penalty_s_);
      for (std::size_t t = 0; t < types; ++t) {
        bool can = job.throughput[t] > 0.0 && slowest > 0.0;
        double a = 0.0;
        if (can) {
          double speedup = job.throughput[t] / slowest;
          if (job.current_type >= 0 && static_cast<std::size_t>(job.current_type) != t) speedup *= realloc;
          a = speedup > 0.0 ? std::round(std::pow(speedup, p_) * 100.0) / 100.0 : 0.0;
        }
        key.push_back(can ? 1.0 : 0.0);
        key.push_back(job.priority_weight * a + per_alloc);
      }
    }
    for (int g : view.gpus_per_type) key.push_back(g);
    if (key == previous_key_) {
      out.x = sanitize_allocation(view, previous_x_);
      return out;
    }

    LinearProgram lp(p_ < 0 ? LinearProgram::Sense::Minimize : LinearProgram::Sense::Maximize);
    // Per job (group=false) or per group of jobs with the same ILP numbers (group=true): var[i][t]
    // is then the group's integer count on type t, shared by its members.
    const SiaGroups groups = group_ ? group_jobs(view, key) : SiaGroups{};
    std::vector<std::vector<int>> var(n, std::vector<int>(types, -1));
    const std::size_t stride = 1 + 2 * types;
    for (std::size_t i = 0; i < n; ++i) {
      const bool first = !group_ || groups.members[groups.group_of[i]].front() == i;
      if (!first) {
        var[i] = var[groups.members[groups.group_of[i]].front()];
        continue;
      }
      const double count = group_ ? static_cast<double>(groups.members[groups.group_of[i]].size()) : 1.0;
      for (std::size_t t = 0; t < types; ++t) {
        const std::size_t k = i * stride + 1 + 2 * t;
        var[i][t] = lp.add_variable(0.0, key[k] * count, key[k + 1], true);
      }
      LinearProgram::Terms row;
      for (std::size_t t = 0; t < types; ++t) row.push_back({var[i][t], 1.0});
      lp.add_constraint(row, -LinearProgram::kInf, count);
    }
    for (std::size_t t = 0; t < types; ++t) {
      LinearProgram::Terms col;
      for (std::size_t i = 0; i < n; ++i)
        if (!group_ || groups.members[groups.group_of[i]].front() == i)
          col.push_back({var[i][t], static_cast<double>(view.jobs[i].scale_factor)});
      lp.add_constraint(col, -LinearProgram::kInf, static_cast<double>(view.gpus_per_type[t]));
    }
    lp.set_objective_step(objective_step(key, n, types));
    lp.set_node_limit(node_limit_);
    lp.set_time_limit_s(time_limit_s_);
    lp.set_mip_start(greedy_start(view, key, var, lp.variables()));
    // On crowded rounds GLPK has a near-optimal incumbent at its root but needs hundreds of nodes
    // (up to the node limit) to improve and prove it. Once the root has branched, the exact search
    // of type_packing.hpp gives the optimum: GLPK keeps its incumbent if that has the optimal
    // value, else takes the optimum found, and stops (--param proof=table; proof=search leaves the
    // proof to branch-and-bound, as before 2026-12-05).
    if (table_proof_)
      lp.set_optimum_oracle(
          [&](std::optional<double> incumbent) { return optimum(view, key, groups, var, lp.variables(), incumbent); },
          kProofAfterNodes);
    LpResult r = lp.solve();
    out.solver_s = r.solve_s;
    out.solves = 1;
    out.node_limit_hits = r.node_limit_hit ? 1 : 0;
    out.time_limit_hits = r.time_limit_hit ? 1 : 0;
    if (!r.usable()) {
      AllocationResult failed = solver_failure(view, name(), r, r.solve_s, 1);
      failed.node_limit_hits = out.node_limit_hits;
      failed.time_limit_hits = out.time_limit_hits;
      return failed;
    }
    out.x.assign(n, std::vector<double>(types, 0.0));
    if (group_) {
      split_groups(groups, var, r.x, out.x);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < types; ++t) out.x[i][t] = std::round(r.x[static_cast<std::size_t>(var[i][t])]);
    }
    previous_key_ = std::move(key);
    previous_x_ = out.x;
    previous_type_.clear();
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t t = 0; t < types; ++t)
        if (out.x[i][t] > 0.5) previous_type_[view.jobs[i].job] = static_cast<int>(t);
    out.x = sanitize_allocation(view, std::move(out.x));
    return out;
  }

 private:
  // Jobs whose ILP numbers (scale factor, usable types, coefficients: one slice of `key`) and
  // current type are equal. Why the optimum is unchanged: such jobs have identical columns in the
  // ILP, so any per-job solution sums to a group solution (integer counts y[t] <= count, sum_t y[t]
  // <= count) with the same objective and GPU use, and any group solution is split back into a
  // per-job one (members in order take the counts type by type). The search sees fewer, general
  // integer variables; which member of a group gets which type is then by job order, where the
  // per-job search picked one arbitrarily.
  struct SiaGroups {
    std::vector<std::size_t> group_of;              // per job
    std::vector<std::vector<std::size_t>> members;  // per group, in job order
  };
  static SiaGroups group_jobs(const AllocationView& view, const std::vector<double>& key) {
    const std::size_t n = view.jobs.size(), stride = 1 + 2 * view.gpus_per_type.size();
    SiaGroups g;
    g.group_of.resize(n);
    std::map<std::pair<int, std::vector<double>>, std::size_t> index;
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> slice(key.begin() + static_cast<std::ptrdiff_t>(i * stride),
                                key.begin() + static_cast<std::ptrdiff_t>((i + 1) * stride));
      auto [it, added] = index.try_emplace({view.jobs[i].current_type, std::move(slice)}, g.members.size());
      if (added) g.members.emplace_back();
      g.group_of[i] = it->second;
      g.members[it->second].push_back(i);
    }
    return g;
  }
  static void split_groups(const SiaGroups& groups, const std::vector<std::vector<int>>& var,
                           const std::vector<double>& solution, AllocationMatrix& x) {
    for (const auto& members : groups.members) {
      std::size_t next = 0;
      const auto& gv = var[members.front()];
      for (std::size_t t = 0; t < gv.size(); ++t) {
        const auto count = static_cast<long long>(std::round(solution[static_cast<std::size_t>(gv[t])]));
        for (long long c = 0; c < count && next < members.size(); ++c) x[members[next++]][t] = 1.0;
      }
    }
  }

  // 0.01 when every objective coefficient is a whole number of cents (A has 2 decimals; so do
  // lambda_n and the weights by default): the ILP's objective then moves in steps of 0.01, and a
  // search whose incumbent is within 0.01 of its bound has proved optimality. Else 0 (no grid).
  static double objective_step(const std::vector<double>& key, std::size_t n, std::size_t types) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ++k;  // scale factor
      for (std::size_t t = 0; t < types; ++t, k += 2) {
        const double cents = key[k + 1] * 100.0;
        if (key[k] > 0.0 && std::abs(cents - std::round(cents)) > 1e-6) return 0.0;
      }
    }
    return 0.01;
  }

  static constexpr long long kProofAfterNodes = 1;  // the root's own proof (objective step) comes first

  // The ILP's optimum by dynamic programming over the GPUs used per type (type_packing.hpp;
  // nothing when that would cost too much): per group (or job) its count and, per usable type, a
  // gain of sign * coefficient on scale_factor GPUs.
  std::optional<LinearProgram::MipOptimum> optimum(const AllocationView& view, const std::vector<double>& key,
                                                   const SiaGroups& groups, const std::vector<std::vector<int>>& var,
                                                   int variables, std::optional<double> incumbent) const {
    const std::size_t types = view.gpus_per_type.size(), stride = 1 + 2 * types;
    const double sign = p_ < 0 ? -1.0 : 1.0;
    std::vector<PackingItem> items;
    std::vector<std::vector<int>> columns;  // per item, per option: its ILP variable
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      if (group_ && groups.members[groups.group_of[i]].front() != i) continue;
      PackingItem& item = items.emplace_back();
      std::vector<int>& column = columns.emplace_back();
      item.count = group_ ? static_cast<long long>(groups.members[groups.group_of[i]].size()) : 1;
      for (std::size_t t = 0; t < types; ++t) {
        const std::size_t k = i * stride + 1 + 2 * t;
        if (!(key[k] > 0.0)) continue;
        item.options.push_back({t, view.jobs[i].scale_factor, sign * key[k + 1]});
        column.push_back(var[i][t]);
      }
    }
    const std::vector<long long> capacity(view.gpus_per_type.begin(), view.gpus_per_type.end());
    std::optional<double> at_least;
    if (incumbent) at_least = sign * *incumbent;
    const std::optional<Packing> packing = best_type_packing(capacity, items, at_least);
    if (!packing) return std::nullopt;
    LinearProgram::MipOptimum out{sign * packing->gain, std::vector<double>(static_cast<std::size_t>(variables), 0.0)};
    for (std::size_t g = 0; g < items.size(); ++g)
      for (std::size_t o = 0; o < columns[g].size(); ++o)
        out.x[static_cast<std::size_t>(columns[g][o])] = static_cast<double>(packing->taken[g][o]);
    return out;
  }

  // A feasible first incumbent: the last solved round's answer for the jobs still here (where it
  // still fits and still scores), then the other jobs in arrival order, each on its best-scoring
  // type that still has room, if being placed improves the objective at all. The previous answer
  // is usually close to the new optimum, so branch-and-bound prunes from the start.
  std::vector<double> greedy_start(const AllocationView& view, const std::vector<double>& key,
                                   const std::vector<std::vector<int>>& var, int variables) const {
    std::vector<double> x(static_cast<std::size_t>(variables), 0.0);
    std::vector<long long> free(view.gpus_per_type.begin(), view.gpus_per_type.end());
    const std::size_t types = free.size();
    const double sign = p_ < 0 ? -1.0 : 1.0;  // sign * coefficient: larger is better
    const std::size_t stride = 1 + 2 * types;  // key entries per job
    std::vector<char> placed(view.jobs.size(), 0);
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      auto it = previous_type_.find(view.jobs[i].job);
      if (it == previous_type_.end()) continue;
      const auto t = static_cast<std::size_t>(it->second);
      const std::size_t k = i * stride + 1 + 2 * t;
      const long long need = view.jobs[i].scale_factor;
      if (key[k] > 0.0 && free[t] >= need && sign * key[k + 1] > 0.0) {
        free[t] -= need;
        x[static_cast<std::size_t>(var[i][t])] += 1.0;  // += : a group's members share var
        placed[i] = 1;
      }
    }
    std::size_t k = 0;
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      ++k;  // scale factor
      if (placed[i]) {
        k += 2 * types;
        continue;
      }
      const long long need = view.jobs[i].scale_factor;
      int best = -1;
      double best_gain = 0.0;
      for (std::size_t t = 0; t < types; ++t, k += 2) {
        double gain = sign * key[k + 1];
        if (key[k] > 0.0 && free[t] >= need && gain > best_gain) {
          best = static_cast<int>(t);
          best_gain = gain;
        }
      }
      if (best >= 0) {
        free[static_cast<std::size_t>(best)] -= need;
        x[static_cast<std::size_t>(var[i][static_cast<std::size_t>(best)])] += 1.0;
      }
    }
    return x;
  }

  double p_, lambda_n_, penalty_s_;
  long long node_limit_;
  double time_limit_s_;
  bool group_;  // --param group: one integer variable per group of identical jobs (SiaGroups)
  bool table_proof_;  // --param proof=table: optimum() settles what branch-and-bound cannot quickly
  std::vector<double> previous_key_;  // the last solved ILP's numbers (see allocate)
  AllocationMatrix previous_x_;       // its rounded solution, before sanitising
  std::map<JobIndex, int> previous_type_;  // its type per placed job (start point of the next ILP)
};

// The parameters both forms share, checked once.
struct SiaParams {
  double p, lambda_n, penalty_s;
  long long nodes;
  double time_limit_s;
  bool table_proof;
};

SiaParams read_sia_params(const PolicyParams& params) {
  double p = param_double(params, "p"), lambda_n = param_double(params, "lambda_n"),
         penalty = param_double(params, "restart_penalty_s");
  if (p == 0.0 || !std::isfinite(p)) throw InputError("", 0, "--param p", "must be a non-zero number");
  if (!(lambda_n > 0.0)) throw InputError("", 0, "--param lambda_n", "must be positive");
  if (!(penalty >= 0.0 && penalty <= kMaxSimSeconds))
    throw InputError("", 0, "--param restart_penalty_s", fmt::format("must be in [0, {:.0e}] s, got {:g}", kMaxSimSeconds, penalty));
  double nodes = param_double(params, "mip_node_limit"), time_limit = param_double(params, "mip_time_limit_s");
  if (!(nodes >= 1.0 && nodes <= 1e15) || nodes != std::floor(nodes))
    throw InputError("", 0, "--param mip_node_limit", "must be a whole number >= 1");
  if (!(time_limit > 0.0 && time_limit <= 1e6)) throw InputError("", 0, "--param mip_time_limit_s", "must be in (0, 1e6]");
  const std::string& proof = param_string(params, "proof");
  if (proof != "table" && proof != "search")
    throw InputError("", 0, "--param proof", fmt::format("expected table or search, got '{}'", proof));
  return {p, lambda_n, penalty, static_cast<long long>(nodes), time_limit, proof == "table"};
}

}  // namespace

void register_sia(PolicyRegistry& registry) {
  PolicyInfo info{"sia",
                  "Sia's ILP with restart penalty and fairness exponent p: over (job, GPU type, GPU count) for elastic "
                  "jobs on --workload goodput profiles; over (job, GPU type) for rigid jobs on throughput tables",
                  "Sia (Jayaram Subramanya et al., SOSP'23)",
                  {{"p", "-0.5", "fairness exponent (non-zero); p < 0 favours fairness"},
                   {"lambda_n", "1.1", "penalty for leaving a job unallocated (> 1)"},
                   {"restart_penalty_s", "30",
                    "seconds lost per placement change (Sia's default for unknown models); on --workload jobs with their "
                    "own restart time (--sia-restart-costs) use that"},
                   {"bootstrap_s", "20",
                    "--workload only: profiling seconds per GPU type charged at each job's first start (Sia: < 20 GPU s "
                    "per type)"},
                   {"mip_node_limit", "1000", "branch-and-bound nodes per ILP (deterministic bound on the search)"},
                   {"mip_time_limit_s", "60", "wall-time safety net per ILP; a hit is counted (solver_time_limits)"},
                   {"group", "true",
                    "throughput tables only: true: one integer variable per group of jobs with equal ILP numbers and "
                    "current type (same optimum, smaller search; members take the group's types in job order); false: "
                    "one binary variable per job and type"},
                   {"proof", "table",
                    "table: once GLPK's root has branched, an exact search over GPUs used per type gives the optimum "
                    "and ends branch-and-bound (keeping its incumbent when that is optimal); search: branch-and-bound "
                    "alone, up to mip_node_limit (the answers before 2026-12-05)"}},
                  nullptr,
                  nullptr};
  info.make = [](const PolicyParams& params, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
    const SiaParams s = read_sia_params(params);
    const double bootstrap_s = param_double(params, "bootstrap_s", 0.0, 3600.0);
    return make_sia_goodput({s.p, s.lambda_n, s.nodes, s.time_limit_s, s.table_proof}, s.penalty_s, bootstrap_s);
  };
  info.make_allocation = [](const PolicyParams& params, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    const SiaParams s = read_sia_params(params);
    const std::string& group = param_string(params, "group");
    if (group != "true" && group != "false")
      throw InputError("", 0, "--param group", fmt::format("expected true or false, got '{}'", group));
    return std::make_unique<Sia>(s.p, s.lambda_n, s.penalty_s, s.nodes, s.time_limit_s, group == "true",
                                 s.table_proof);
  };
  info.scheduling_form_for_workloads_only = true;
  registry.add(std::move(info));
}

}  // namespace hetsim
