// Sia's ILP over configurations (Jayaram Subramanya et al., SOSP'23; siasosp23/artifacts,
// sia-simulator/sia.py SiaPolicy.optimize_mip and populate_valid_configs). See sia_plan.hpp.
#include "hetsim/policy/sia_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "type_packing.hpp"

namespace hetsim {

std::vector<SiaConfig> sia_configurations(const Cluster& cluster) {
  std::vector<SiaConfig> out;
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
    const auto type = static_cast<GpuTypeId>(t);
    const int per_node = cluster.max_gpus_per_node(type), total = cluster.gpus_of_type(type);
    if (per_node <= 0 || total <= 0) continue;
    // Single-node set: powers of two within a node (a partial node never spans two nodes).
    for (int g = 1; g < per_node && g <= total; g *= 2) out.push_back({type, g});
    out.push_back({type, std::min(per_node, total)});
    // Multi-node set: whole nodes only, so distributed jobs never share a node's NIC.
    for (int g = 2 * per_node; g <= total; g += per_node) out.push_back({type, g});
  }
  return out;
}

double sia_realloc_factor(double age_s, int restarts, double penalty_s) {
  if (age_s < penalty_s) return 1.0;
  return std::max(age_s - restarts * penalty_s, 0.0) / (age_s + penalty_s);
}

std::vector<double> sia_coefficients(const SiaPlanJob& job, double p) {
  // Sia's normalisation: the job's least useful valid configuration scores speedup 1, so jobs of
  // very different absolute goodput are compared on the same scale (sia.py, "normalize all
  // goodput values to min_goodput").
  double smallest = 0.0;
  for (double g : job.goodput)
    if (g > 0.0 && (smallest == 0.0 || g < smallest)) smallest = g;
  std::vector<double> a(job.goodput.size(), 0.0);
  if (smallest <= 0.0) return a;
  constexpr double kClip = 3000.0;  // sim_config.sia_goodput_clip_val
  for (std::size_t c = 0; c < a.size(); ++c) {
    if (job.goodput[c] <= 0.0) continue;
    double speedup = job.goodput[c] / smallest;
    if (job.current >= 0 && static_cast<int>(c) != job.current) speedup *= job.realloc_factor;
    // A zero factor (a job that lost all its age to restarts) would make speedup^p infinite for
    // p < 0; Sia's ZERO_ALLOC_GAIN floor (1e-4) keeps it finite, and the clip caps it.
    speedup = std::max(speedup, 1e-4);
    a[c] = std::min(std::round(std::pow(speedup, p) * 100.0) / 100.0, kClip);
  }
  return a;
}

namespace {

// 0.01 when every coefficient is a whole number of cents (A has 2 decimals, lambda_n 1.1 by
// default): the objective then moves in steps of 0.01 and a search whose incumbent is within 0.01
// of its bound is optimal. Else 0 (no grid).
double objective_step(const std::vector<std::vector<double>>& coef) {
  for (const auto& row : coef)
    for (double v : row) {
      const double cents = v * 100.0;
      if (std::abs(cents - std::round(cents)) > 1e-6) return 0.0;
    }
  return 0.01;
}

// A feasible first incumbent: pinned jobs, then `start` where it still fits and still pays, then
// every other job in order on its best-paying configuration with room.
std::vector<int> first_incumbent(const std::vector<SiaConfig>& configs, std::vector<long long> free,
                                 const std::vector<SiaPlanJob>& jobs, const std::vector<std::vector<double>>& coef,
                                 double sign, const std::vector<int>& start) {
  std::vector<int> chosen(jobs.size(), -1);
  auto take = [&](std::size_t i, int c) {
    if (c < 0 || !(jobs[i].goodput[static_cast<std::size_t>(c)] > 0.0)) return false;
    const SiaConfig& k = configs[static_cast<std::size_t>(c)];
    if (free[static_cast<std::size_t>(k.type)] < k.gpus) return false;
    free[static_cast<std::size_t>(k.type)] -= k.gpus;
    chosen[i] = c;
    return true;
  };
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].pinned) take(i, jobs[i].current);
  for (std::size_t i = 0; i < jobs.size() && i < start.size(); ++i)
    if (chosen[i] < 0 && start[i] >= 0 && sign * coef[i][static_cast<std::size_t>(start[i])] > 0.0) take(i, start[i]);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (chosen[i] >= 0 || jobs[i].pinned) continue;
    int best = -1;
    double best_gain = 0.0;
    for (std::size_t c = 0; c < configs.size(); ++c) {
      const double gain = sign * coef[i][c];
      if (jobs[i].goodput[c] > 0.0 && free[static_cast<std::size_t>(configs[c].type)] >= configs[c].gpus && gain > best_gain) {
        best = static_cast<int>(c);
        best_gain = gain;
      }
    }
    take(i, best);
  }
  return chosen;
}

// The ILP's optimum by the exact search of type_packing.hpp (see sia.cpp, proof=table): pinned jobs
// fixed on their configuration, every other job an item with one option per usable configuration.
std::optional<LinearProgram::MipOptimum> table_optimum(const std::vector<SiaConfig>& configs,
                                                       const std::vector<int>& capacity,
                                                       const std::vector<SiaPlanJob>& jobs,
                                                       const std::vector<std::vector<double>>& coef,
                                                       const std::vector<std::vector<int>>& var, double sign,
                                                       int variables, std::optional<double> incumbent) {
  std::vector<long long> left(capacity.begin(), capacity.end());
  LinearProgram::MipOptimum out{0.0, std::vector<double>(static_cast<std::size_t>(variables), 0.0)};
  double fixed_gain = 0.0;
  std::vector<PackingItem> items;
  std::vector<std::vector<int>> columns;  // per item, per option: its ILP variable
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].pinned) {
      const auto c = static_cast<std::size_t>(jobs[i].current);
      const SiaConfig& k = configs[c];
      left[static_cast<std::size_t>(k.type)] -= k.gpus;
      if (left[static_cast<std::size_t>(k.type)] < 0) return std::nullopt;
      fixed_gain += sign * coef[i][c];
      out.x[static_cast<std::size_t>(var[i][c])] = 1.0;
      continue;
    }
    PackingItem& item = items.emplace_back();
    std::vector<int>& column = columns.emplace_back();
    for (std::size_t c = 0; c < configs.size(); ++c) {
      if (var[i][c] < 0) continue;
      item.options.push_back({static_cast<std::size_t>(configs[c].type), configs[c].gpus, sign * coef[i][c]});
      column.push_back(var[i][c]);
    }
  }
  std::optional<double> at_least;
  if (incumbent) at_least = sign * *incumbent - fixed_gain;
  const std::optional<Packing> packing = best_type_packing(left, items, at_least);
  if (!packing) return std::nullopt;
  out.objective = sign * (fixed_gain + packing->gain);
  for (std::size_t g = 0; g < items.size(); ++g)
    for (std::size_t o = 0; o < columns[g].size(); ++o)
      out.x[static_cast<std::size_t>(columns[g][o])] = static_cast<double>(packing->taken[g][o]);
  return out;
}

}  // namespace

SiaPlan sia_plan(const std::vector<SiaConfig>& configs, const std::vector<int>& capacity,
                 const std::vector<SiaPlanJob>& jobs, const SiaPlanSettings& settings, const std::vector<int>& start) {
  if (settings.p == 0.0) throw std::invalid_argument("sia_plan: p must be non-zero");
  SiaPlan plan;
  plan.config.assign(jobs.size(), -1);
  if (jobs.empty()) {
    plan.status = LpResult::Status::Optimal;
    return plan;
  }
  // The constant lambda_n N is dropped; each allocation then gains lambda_n (p < 0: -lambda_n in a
  // minimisation; p > 0: +lambda_n in a maximisation, Sia's sign rule for lambda_n).
  const double per_alloc = settings.p < 0 ? -settings.lambda_n : settings.lambda_n;
  const double sign = settings.p < 0 ? -1.0 : 1.0;  // sign * coefficient: larger is better
  std::vector<std::vector<double>> coef(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].goodput.size() != configs.size()) throw std::invalid_argument("sia_plan: goodput per configuration");
    coef[i] = sia_coefficients(jobs[i], settings.p);
    for (std::size_t c = 0; c < configs.size(); ++c)
      if (jobs[i].goodput[c] > 0.0) coef[i][c] += per_alloc;
  }
  LinearProgram lp(settings.p < 0 ? LinearProgram::Sense::Minimize : LinearProgram::Sense::Maximize);
  std::vector<std::vector<int>> var(jobs.size(), std::vector<int>(configs.size(), -1));
  std::vector<LinearProgram::Terms> per_type(capacity.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    LinearProgram::Terms one;
    for (std::size_t c = 0; c < configs.size(); ++c) {
      if (!(jobs[i].goodput[c] > 0.0)) continue;
      const bool forced = jobs[i].pinned && static_cast<int>(c) == jobs[i].current;
      var[i][c] = lp.add_variable(forced ? 1.0 : 0.0, 1.0, coef[i][c], true);
      one.push_back({var[i][c], 1.0});
      per_type[static_cast<std::size_t>(configs[c].type)].push_back({var[i][c], static_cast<double>(configs[c].gpus)});
    }
    if (!one.empty()) lp.add_constraint(one, -LinearProgram::kInf, 1.0);
  }
  for (std::size_t t = 0; t < capacity.size(); ++t)
    if (!per_type[t].empty()) lp.add_constraint(per_type[t], -LinearProgram::kInf, static_cast<double>(capacity[t]));
  if (lp.variables() == 0) {
    plan.status = LpResult::Status::Optimal;
    return plan;
  }
  lp.set_objective_step(objective_step(coef));
  lp.set_node_limit(settings.node_limit);
  lp.set_time_limit_s(settings.time_limit_s);
  std::vector<long long> free(capacity.begin(), capacity.end());
  const std::vector<int> seed = first_incumbent(configs, free, jobs, coef, sign, start);
  std::vector<double> x0(static_cast<std::size_t>(lp.variables()), 0.0);
  bool seed_ok = true;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (seed[i] >= 0) x0[static_cast<std::size_t>(var[i][static_cast<std::size_t>(seed[i])])] = 1.0;
    else if (jobs[i].pinned) seed_ok = false;  // a pinned job that no longer fits: no valid seed
  }
  if (seed_ok) lp.set_mip_start(std::move(x0));
  if (settings.table_proof)
    lp.set_optimum_oracle(
        [&](std::optional<double> incumbent) {
          return table_optimum(configs, capacity, jobs, coef, var, sign, lp.variables(), incumbent);
        },
        1);  // once the root has branched
  LpResult r = lp.solve();
  plan.status = r.status;
  plan.solve_s = r.solve_s;
  plan.node_limit_hit = r.node_limit_hit;
  plan.time_limit_hit = r.time_limit_hit;
  if (!r.usable()) return plan;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (std::size_t c = 0; c < configs.size(); ++c)
      if (var[i][c] >= 0 && r.x[static_cast<std::size_t>(var[i][c])] > 0.5) plan.config[i] = static_cast<int>(c);
  return plan;
}

}  // namespace hetsim
