// Fitting Pollux's step-time model (Qiao et al., OSDI'21; petuum/adaptdl goodput.py for the model
// form and its objective: squared log errors of step and compute time, parameters >= 1e-8, gamma in
// [1, 10], unidentifiable terms fixed). The fitting procedure (Levenberg-Marquardt from several
// starts, then a robust Cauchy reweighting) is hetsim's own; docs/models.md describes it.
#include "hetsim/perf/pollux_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

#include "hetsim/util/stats.hpp"

namespace hetsim {
namespace {

constexpr double kTiny = 1e-8;  // Pollux's lower bound of every parameter

// Fits y ~ a + b*x minimising relative error (rows weighted by 1/y), a, b >= kTiny. When the
// unconstrained fit makes a coefficient negative, that coefficient is pinned and the other refitted.
std::pair<double, double> fit_line_rel(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<Eigen::Index>(x.size());
  if (n == 0) return {kTiny, kTiny};
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    double w = 1.0 / std::max(y[static_cast<std::size_t>(i)], kTiny);
    A(i, 0) = w;
    A(i, 1) = w * x[static_cast<std::size_t>(i)];
    b(i) = 1.0;
  }
  bool varied = std::any_of(x.begin(), x.end(), [&](double v) { return v != x.front(); });
  if (varied) {
    Eigen::Vector2d s = A.colPivHouseholderQr().solve(b);
    if (s(0) >= kTiny && s(1) >= kTiny) return {s(0), s(1)};
  }
  // One coefficient pinned at kTiny: refit the other alone, keep the better of the two options.
  auto fit_one = [&](int col) {
    double num = 0, den = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      double r = b(i) - kTiny * A(i, 1 - col);
      num += A(i, col) * r;
      den += A(i, col) * A(i, col);
    }
    return den > 0 ? std::max(kTiny, num / den) : kTiny;
  };
  auto err = [&](double a0, double a1) { return (A.col(0) * a0 + A.col(1) * a1 - b).squaredNorm(); };
  double only_a = fit_one(0), only_b = varied ? fit_one(1) : kTiny;
  if (!varied || err(only_a, kTiny) <= err(kTiny, only_b)) return {only_a, kTiny};
  return {kTiny, only_b};
}

double sync_x(int replicas) { return std::max(replicas - 2, 0); }

// The fit works on x = (log alpha_c, log beta_c, log alpha_r, log beta_r, log alpha_n, log beta_n,
// u) with gamma = 1 + 9 / (1 + e^-u): every parameter stays in Pollux's bounds without constraints.
constexpr int kParams = 7;
using Vec = Eigen::Matrix<double, kParams, 1>;
const double kLogTiny = std::log(kTiny);
constexpr double kCauchyScale = 0.2;  // log-error scale of the robust loss (about 20%)
constexpr int kRobustRounds = 4;

double gamma_of(double u) { return 1.0 + 9.0 / (1.0 + std::exp(-u)); }
double u_of(double gamma) {
  const double f = std::clamp((gamma - 1.0) / 9.0, 1e-3, 1.0 - 1e-3);
  return std::log(f / (1.0 - f));
}

PolluxPerfParams to_params(const Vec& x) {
  PolluxPerfParams p;
  p.alpha_c = std::exp(x(0));
  p.beta_c = std::exp(x(1));
  p.alpha_r = std::exp(x(2));
  p.beta_r = std::exp(x(3));
  p.alpha_n = std::exp(x(4));
  p.beta_n = std::exp(x(5));
  p.gamma = gamma_of(x(6));
  return p;
}

// The measured compute part of a row. A data-parallel step contains its synchronisation, so
// step - sync > 0; the floor only guards rows that break that (Sia's pipeline-parallel gpt_pmp).
double measured_compute(const StepSample& s) { return std::max(s.step_time_s - s.sync_time_s, 1e-3 * s.step_time_s); }

// Pollux's two log errors per row (step time, and compute time = step - sync), each row scaled by
// its robust weight.
Eigen::VectorXd residuals(const Vec& x, const std::vector<StepSample>& rows, const std::vector<double>& weight) {
  const PolluxPerfParams p = to_params(x);
  Eigen::VectorXd r(2 * static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StepSample& s = rows[i];
    const StepTime t = p.predict(s.num_nodes, s.num_replicas, s.local_bsz);
    const double w = weight.empty() ? 1.0 : weight[i];
    const auto k = static_cast<Eigen::Index>(2 * i);
    r(k) = w * (std::log(t.step_s) - std::log(s.step_time_s));
    r(k + 1) = w * (std::log(p.alpha_c + p.beta_c * s.local_bsz) - std::log(measured_compute(s)));
  }
  return r;
}

// Levenberg-Marquardt on the free coordinates of x (forward-difference Jacobian, multiplicative
// damping of the diagonal). Deterministic: fixed iteration limits, no randomness.
Vec levenberg_marquardt(Vec x, const std::array<bool, kParams>& free, const std::vector<StepSample>& rows,
                        const std::vector<double>& weight) {
  std::vector<int> cols;
  for (int k = 0; k < kParams; ++k)
    if (free[static_cast<std::size_t>(k)]) cols.push_back(k);
  if (cols.empty()) return x;
  const auto m = static_cast<Eigen::Index>(cols.size());
  auto clamp_x = [](Vec& v) {
    for (int k = 0; k < kParams; ++k) v(k) = std::clamp(v(k), k == 6 ? -30.0 : kLogTiny, 30.0);
  };
  Eigen::VectorXd r = residuals(x, rows, weight);
  double cost = r.squaredNorm();
  double lambda = 1e-2;
  for (int iter = 0; iter < 200; ++iter) {
    Eigen::MatrixXd J(r.size(), m);
    for (Eigen::Index j = 0; j < m; ++j) {
      Vec xh = x;
      const double h = 1e-6 * std::max(1.0, std::fabs(x(cols[static_cast<std::size_t>(j)])));
      xh(cols[static_cast<std::size_t>(j)]) += h;
      J.col(j) = (residuals(xh, rows, weight) - r) / h;
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool accepted = false;
    for (int attempt = 0; attempt < 20 && !accepted; ++attempt) {
      Eigen::MatrixXd damped = A;
      for (Eigen::Index j = 0; j < m; ++j) damped(j, j) += lambda * (A(j, j) + 1e-9);
      const Eigen::VectorXd d = damped.ldlt().solve(-g);
      Vec xn = x;
      for (Eigen::Index j = 0; j < m; ++j) xn(cols[static_cast<std::size_t>(j)]) += d(j);
      clamp_x(xn);
      Eigen::VectorXd rn = residuals(xn, rows, weight);
      const double cn = rn.squaredNorm();
      if (std::isfinite(cn) && cn < cost) {
        const double gain = (cost - cn) / cost;
        x = xn;
        r = std::move(rn);
        cost = cn;
        lambda = std::max(lambda / 3.0, 1e-9);
        accepted = true;
        if (gain < 1e-10) return x;
      } else {
        lambda *= 4.0;
      }
    }
    if (!accepted) break;
  }
  return x;
}

}  // namespace

StepTime PolluxPerfParams::predict(int nodes, int replicas, double local_bsz) const {
  double compute = alpha_c + beta_c * local_bsz;
  double sync = kTiny;
  if (replicas > 1) sync = nodes > 1 ? alpha_n + beta_n * sync_x(replicas) : alpha_r + beta_r * sync_x(replicas);
  double step = std::pow(std::pow(compute, gamma) + std::pow(sync, gamma), 1.0 / gamma);
  return {step, step - compute};
}

PolluxPerfParams fit_pollux_params(const std::vector<StepSample>& samples) {
  if (samples.empty()) throw std::invalid_argument("fit_pollux_params: no samples");
  bool any_inter = false, any_intra = false, any_multi = false, any_retro = false;
  double sum_r = 0.0, sum_n = 0.0;
  int count_r = 0, count_n = 0;
  for (const StepSample& s : samples) {
    if (s.num_replicas <= 1) continue;
    any_multi = true;
    any_retro = any_retro || s.num_replicas > 2;
    const double sync = std::max(s.sync_time_s, 1e-5);
    if (s.num_nodes > 1) {
      any_inter = true;
      sum_n += sync;
      ++count_n;
    } else {
      any_intra = true;
      sum_r += sync;
      ++count_r;
    }
  }
  // Parameters the rows cannot identify stay where they start (Pollux fixes the same ones).
  std::array<bool, kParams> free{true, true, any_intra, any_intra && any_retro, any_inter, any_inter && any_retro,
                                 any_multi};
  // Start: the compute line by relative least squares; network terms at the mean measured sync.
  std::vector<double> xb, yc;
  for (const StepSample& s : samples) {
    xb.push_back(s.local_bsz);
    yc.push_back(measured_compute(s));
  }
  const auto [alpha_c, beta_c] = fit_line_rel(xb, yc);
  const double sync_r = count_r ? sum_r / count_r : 1e-3;
  const double sync_n = count_n ? sum_n / count_n : 1.1 * sync_r;
  // Several starts (overlap gamma x network level), each refined; the lowest unweighted cost wins.
  const std::vector<double> no_weight;
  Vec best = Vec::Zero();
  double best_cost = std::numeric_limits<double>::infinity();
  for (double gamma : {1.0, 1.5, 2.5, 5.0}) {
    for (double scale : {0.3, 1.0}) {
      Vec x;
      x << std::log(alpha_c), std::log(beta_c), std::log(sync_r * scale), std::log(0.05 * sync_r * scale),
          std::log(sync_n * scale), std::log(0.05 * sync_n * scale), u_of(gamma);
      if (!any_retro) x(3) = x(5) = kLogTiny;
      x = levenberg_marquardt(x, free, samples, no_weight);
      const double cost = residuals(x, samples, no_weight).squaredNorm();
      if (cost < best_cost) {
        best_cost = cost;
        best = x;
      }
    }
  }
  // Robust (Cauchy) refinement by reweighting: a few wildly off rows (the V100 profiles have
  // multi-second sync spikes) must not drag the fit away from the bulk of the measurements.
  for (int round = 0; round < kRobustRounds; ++round) {
    const PolluxPerfParams p = to_params(best);
    std::vector<double> weight(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const StepSample& s = samples[i];
      const double e = std::log(p.predict(s.num_nodes, s.num_replicas, s.local_bsz).step_s / s.step_time_s) /
                       kCauchyScale;
      weight[i] = 1.0 / std::sqrt(1.0 + e * e);
    }
    best = levenberg_marquardt(best, free, samples, weight);
  }
  PolluxPerfParams p = to_params(best);
  // Pollux's prior without multi-node rows: inter-node sync at least 10% slower than intra-node.
  // Without single-node multi-GPU rows, the mirror image: intra-node no slower than inter-node.
  if (!any_inter) {
    p.alpha_n = std::max(p.alpha_n, p.alpha_r * 1.1);
    p.beta_n = std::max(p.beta_n, p.beta_r * 1.1);
  }
  if (any_inter && !any_intra) {
    p.alpha_r = p.alpha_n / 1.1;
    p.beta_r = p.beta_n / 1.1;
  }
  return p;
}

PolluxFitStepModel::PolluxFitStepModel(const std::map<std::string, PolluxApplication>& apps) {
  for (const auto& [name, app] : apps) {
    for (const auto& [type, prof] : app.profiles()) {
      std::vector<StepSample> rows = prof.placements;
      rows.insert(rows.end(), prof.scalability.begin(), prof.scalability.end());
      params_[name + "/" + type] = fit_pollux_params(rows);
    }
  }
}

const PolluxPerfParams& PolluxFitStepModel::params(const std::string& app, const std::string& gpu_type) const {
  auto it = params_.find(app + "/" + gpu_type);
  if (it == params_.end())
    throw std::out_of_range(fmt::format("pollux-fit has no fit for application {} on GPU type {}", app, gpu_type));
  return it->second;
}

StepTime PolluxFitStepModel::step_time(const PolluxApplication& app, const std::string& gpu_type,
                                       const Placement& placement, double local_bsz) const {
  int nodes = 0, replicas = 0;
  for (int g : placement) {
    if (g <= 0) continue;
    ++nodes;
    replicas += g;
  }
  return params(app.name(), gpu_type).predict(nodes, replicas, local_bsz);
}

}  // namespace hetsim
