// Fitting Pollux's step-time model (Qiao et al., OSDI'21; petuum/adaptdl goodput.py for the model
// form) with Eigen least squares. The fitting procedure is hetsim's own.
#include "hetsim/perf/pollux_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "hetsim/metrics/summary.hpp"

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

// Squared log errors of compute and step time over the samples (Pollux's objective, without its
// regularisers).
double log_error(const PolluxPerfParams& p, const std::vector<StepSample>& samples) {
  double err = 0.0;
  for (const StepSample& s : samples) {
    StepTime t = p.predict(s.num_nodes, s.num_replicas, s.local_bsz);
    double d1 = std::log(t.step_s) - std::log(s.step_time_s);
    double c = std::max(s.step_time_s - s.sync_time_s, kTiny);
    double d2 = std::log(t.step_s - t.sync_s) - std::log(c);
    err += d1 * d1 + d2 * d2;
  }
  return err;
}

// Joint refinement of all seven parameters from the staged least-squares start: coordinate
// descent with shrinking multiplicative steps (deterministic, a few hundred evaluations).
PolluxPerfParams refine(PolluxPerfParams p, const std::vector<StepSample>& samples) {
  double* coords[] = {&p.alpha_c, &p.beta_c, &p.alpha_r, &p.beta_r, &p.alpha_n, &p.beta_n, &p.gamma};
  double best = log_error(p, samples);
  for (double step = 0.5; step > 1e-3; step *= 0.5) {
    for (int sweep = 0; sweep < 4; ++sweep) {
      bool improved = false;
      for (std::size_t k = 0; k < 7; ++k) {
        for (double f : {1.0 + step, 1.0 / (1.0 + step)}) {
          double old = *coords[k];
          double v = old * f;
          if (k == 6) v = std::clamp(v, 1.0, 10.0);
          else v = std::max(v, kTiny);
          *coords[k] = v;
          double e = log_error(p, samples);
          if (e < best) {
            best = e;
            improved = true;
          } else {
            *coords[k] = old;
          }
        }
      }
      if (!improved) break;
    }
  }
  return p;
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
  PolluxPerfParams p;
  {
    std::vector<double> x, y;
    for (const StepSample& s : samples) {
      x.push_back(s.local_bsz);
      y.push_back(std::max(s.step_time_s - s.sync_time_s, kTiny));
    }
    std::tie(p.alpha_c, p.beta_c) = fit_line_rel(x, y);
  }
  bool any_inter = false, any_intra = false;
  for (const StepSample& s : samples) {
    any_inter = any_inter || s.num_nodes > 1;
    any_intra = any_intra || (s.num_nodes == 1 && s.num_replicas > 1);
  }
  double best_err = std::numeric_limits<double>::infinity();
  PolluxPerfParams best = p;
  for (int g = 0; g <= 90; ++g) {
    PolluxPerfParams q = p;
    q.gamma = 1.0 + 0.1 * g;
    std::vector<double> xr, yr, xn, yn;
    for (const StepSample& s : samples) {
      if (s.num_replicas <= 1) continue;
      double c = q.alpha_c + q.beta_c * s.local_bsz;
      double rest = std::pow(s.step_time_s, q.gamma) - std::pow(c, q.gamma);
      double net = rest > 0 ? std::pow(rest, 1.0 / q.gamma) : kTiny;
      (s.num_nodes > 1 ? xn : xr).push_back(sync_x(s.num_replicas));
      (s.num_nodes > 1 ? yn : yr).push_back(std::max(net, kTiny));
    }
    std::tie(q.alpha_r, q.beta_r) = fit_line_rel(xr, yr);
    std::tie(q.alpha_n, q.beta_n) = fit_line_rel(xn, yn);
    // Without multi-node rows, inter-node sync is assumed 10% slower than intra-node (Pollux's prior).
    if (!any_inter) {
      q.alpha_n = std::max(q.alpha_n, q.alpha_r * 1.1);
      q.beta_n = std::max(q.beta_n, q.beta_r * 1.1);
    }
    (void)any_intra;
    double err = 0.0;
    for (const StepSample& s : samples) {
      double d = std::log(q.predict(s.num_nodes, s.num_replicas, s.local_bsz).step_s) - std::log(s.step_time_s);
      err += d * d;
    }
    if (err < best_err) {
      best_err = err;
      best = q;
    }
  }
  return refine(best, samples);
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

std::vector<FitCheckRow> fit_check(const std::map<std::string, PolluxApplication>& apps) {
  std::vector<FitCheckRow> out;
  for (const auto& [name, app] : apps) {
    for (const auto& [type, prof] : app.profiles()) {
      std::vector<StepSample> rows = prof.placements;
      rows.insert(rows.end(), prof.scalability.begin(), prof.scalability.end());
      std::vector<StepSample> train, test;
      for (std::size_t i = 0; i < rows.size(); ++i) (i % 2 == 0 ? train : test).push_back(rows[i]);
      if (train.empty() || test.empty()) continue;
      PolluxPerfParams p = fit_pollux_params(train);
      FitCheckRow r{name, type, train.size(), test.size(), 0.0, 0.0, {}};
      for (const StepSample& s : test) {
        double pred = p.predict(s.num_nodes, s.num_replicas, s.local_bsz).step_s;
        r.errors.push_back(std::fabs(pred - s.step_time_s) / s.step_time_s);
      }
      r.median_rel_err = percentile(r.errors, 50);
      r.p90_rel_err = percentile(r.errors, 90);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace hetsim
