// Heet's 3-D collaborative filtering (Mo, Xu, Xu, ASPLOS'24) as a CP decomposition with missing
// entries, fitted by regularised alternating least squares (Kolda & Bader, SIAM Review 2009,
// sec. 3.4; Tomasi & Bro, "PARAFAC and missing values", 2005). Heet's paper gives the idea, not the
// model; the component structure below (main effects, pairwise terms, the ridge-shrunk interaction
// terms of interaction_terms.hpp, log space, cross-validated model choice) is ours and documented
// in docs/models.md.
//
// Every term is a "component" with one column per mode; a mode's column is either free (fitted)
// or frozen at 1. All three free = a CP rank-1 term; two free = a pairwise term (e.g. job x config,
// the job's own scaling curve); one free = a main effect. One ALS step updates the free entries of
// one mode's row by ridge regression on the known cells through that row.
#include "hetsim/perf/tensor_completion.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <random>
#include <stdexcept>

#include "interaction_terms.hpp"

namespace hetsim {
namespace {

using Comp = std::array<bool, 3>;  // free in mode 0, 1, 2

using Observation = detail::TensorObservation;
using detail::AdditiveTerms;
using detail::TensorLayout;
using detail::TermKind;
using detail::TermSpec;

// Uniform in [0, 1) from the raw 64-bit draw (std::*_distribution differ between libraries).
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

class AlsModel {
 public:
  AlsModel(std::array<std::size_t, 3> dims, std::vector<Comp> comps) : dims_(dims), comps_(std::move(comps)) {
    for (std::size_t m = 0; m < 3; ++m) factors_[m] = Eigen::MatrixXd::Ones(static_cast<Eigen::Index>(dims_[m]),
                                                                             static_cast<Eigen::Index>(comps_.size()));
  }

  void init(std::mt19937_64& rng, double scale) {
    for (std::size_t m = 0; m < 3; ++m)
      for (std::size_t c = 0; c < comps_.size(); ++c) {
        if (!comps_[c][m]) continue;
        const bool main = (comps_[c][0] + comps_[c][1] + comps_[c][2]) == 1;
        for (Eigen::Index r = 0; r < factors_[m].rows(); ++r)
          factors_[m](r, static_cast<Eigen::Index>(c)) = main ? 0.0 : scale * (0.5 + uniform01(rng));
      }
  }

  double predict(const std::array<std::size_t, 3>& at) const {
    double s = 0.0;
    for (std::size_t c = 0; c < comps_.size(); ++c) {
      double p = 1.0;
      for (std::size_t m = 0; m < 3; ++m) p *= factors_[m](static_cast<Eigen::Index>(at[m]), static_cast<Eigen::Index>(c));
      s += p;
    }
    return s;
  }

  bool empty() const { return comps_.empty(); }

  // Indexes which observations go through each row of each mode (positions in `obs`, which later
  // sweeps must pass in the same order).
  void prepare(const std::vector<Observation>& obs) {
    for (std::size_t m = 0; m < 3; ++m) {
      by_index_[m].assign(dims_[m], {});
      for (std::size_t o = 0; o < obs.size(); ++o) by_index_[m][obs[o].at[m]].push_back(o);
    }
  }

  // One ALS sweep over the three modes (after prepare()).
  void sweep(const std::vector<Observation>& obs, double lambda) {
    for (std::size_t m = 0; m < 3; ++m) update_mode(m, obs, by_index_[m], lambda);
  }

  // Fits to `obs`; returns the final regularised loss.
  double fit(const std::vector<Observation>& obs, double lambda, int max_iterations, double tolerance) {
    prepare(obs);
    double prev = std::numeric_limits<double>::infinity();
    double loss = prev;
    for (int it = 0; it < max_iterations; ++it) {
      sweep(obs, lambda);
      loss = this->loss(obs, lambda);
      if (std::abs(prev - loss) <= tolerance * std::max(1.0, std::abs(loss))) break;
      prev = loss;
    }
    return loss;
  }

  double penalty(double lambda) const {
    double l = 0.0;
    for (std::size_t m = 0; m < 3; ++m)
      for (std::size_t c = 0; c < comps_.size(); ++c)
        if (comps_[c][m]) l += lambda * factors_[m].col(static_cast<Eigen::Index>(c)).squaredNorm();
    return l;
  }

  double loss(const std::vector<Observation>& obs, double lambda) const {
    double l = 0.0;
    for (const Observation& o : obs) {
      const double e = predict(o.at) - o.y;
      l += e * e;
    }
    return l + penalty(lambda);
  }

 private:
  void update_mode(std::size_t m, const std::vector<Observation>& obs, const std::vector<std::vector<std::size_t>>& rows,
                   double lambda) {
    std::vector<std::size_t> free_cols;
    for (std::size_t c = 0; c < comps_.size(); ++c)
      if (comps_[c][m]) free_cols.push_back(c);
    if (free_cols.empty()) return;
    const auto nf = static_cast<Eigen::Index>(free_cols.size());
    // Buffers reused across rows (the 2-D baseline solves thousands of tiny systems per sweep;
    // allocating them per row was a tenth of predict-check's CPU). Same values as fresh ones.
    Eigen::MatrixXd ata(nf, nf);
    Eigen::VectorXd atb(nf), z(nf), sol(nf);
    Eigen::LDLT<Eigen::MatrixXd> ldlt(nf);
    for (std::size_t r = 0; r < dims_[m]; ++r) {
      // A row with no known cell keeps its value (ridge would pull it to 0 anyway).
      if (rows[r].empty()) continue;
      ata.setIdentity();
      ata *= lambda;
      atb.setZero();
      for (std::size_t o : rows[r]) {
        const Observation& ob = obs[o];
        double offset = 0.0;
        Eigen::Index f = 0;
        for (std::size_t c = 0; c < comps_.size(); ++c) {
          double p = 1.0;
          for (std::size_t m2 = 0; m2 < 3; ++m2)
            if (m2 != m) p *= factors_[m2](static_cast<Eigen::Index>(ob.at[m2]), static_cast<Eigen::Index>(c));
          if (comps_[c][m])
            z(f++) = p;
          else
            offset += p;
        }
        ata.noalias() += z * z.transpose();
        atb.noalias() += z * (ob.y - offset);
      }
      ldlt.compute(ata);
      sol = ldlt.solve(atb);
      for (Eigen::Index f = 0; f < nf; ++f)
        factors_[m](static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(free_cols[static_cast<std::size_t>(f)])) = sol(f);
    }
  }

  std::array<std::size_t, 3> dims_;
  std::vector<Comp> comps_;
  std::array<Eigen::MatrixXd, 3> factors_;
  std::array<std::vector<std::vector<std::size_t>>, 3> by_index_;
};

struct Structure {
  int rank = 0;
  int pair_rank = 0;
  bool main_effects = false;
  bool interactions = false;   // the ridge-shrunk tables of interaction_terms.hpp (main effects included)
  bool family_config = false;  // ... plus the family x configuration table
  double table_scale = 1.0;    // the tables' ridge weight is table_lambda x this
};

std::vector<Comp> components(const Structure& s) {
  std::vector<Comp> out;
  if (s.main_effects && !s.interactions) {
    out.push_back({true, false, false});
    out.push_back({false, true, false});
    out.push_back({false, false, true});
  }
  for (int r = 0; r < s.pair_rank; ++r) {
    out.push_back({true, true, false});
    out.push_back({true, false, true});
    out.push_back({false, true, true});
  }
  for (int r = 0; r < s.rank; ++r) out.push_back({true, true, true});
  return out;
}

// The interaction model: main effects (lightly shrunk, weight `lambda`) plus interactions shrunk
// by `table_lambda`. Why these: docs/models.md, "Interaction terms".
std::vector<TermSpec> table_terms(const Structure& s, const CompletionOptions& o) {
  if (!s.interactions) return {};
  // The configuration axis is ordered: the lightly shrunk terms give every GPU type a power law in
  // the GPU count; per-configuration effects are shrunk deviations from it, so a scaling trend seen
  // at 1-2 GPUs carries on to 4-8 instead of being absorbed by the 2-GPU entries.
  std::vector<TermSpec> t{{TermKind::job, o.lambda}, {TermKind::gpu, o.lambda}, {TermKind::slope, o.lambda},
                          {TermKind::gpu_slope, o.lambda}};
  for (TermKind k : {TermKind::config, TermKind::gpu_config, TermKind::family_gpu, TermKind::job_gpu,
                     TermKind::family_slope, TermKind::job_slope, TermKind::family_gpu_slope, TermKind::job_gpu_slope})
    t.push_back({k, o.table_lambda * s.table_scale});
  if (s.family_config) t.push_back({TermKind::family_config, o.table_lambda * s.table_scale});
  return t;
}

// Backfits the tables and (when there are CP / pairwise components) alternates one table sweep
// with one ALS sweep on what the tables leave; returns the final regularised loss.
double fit_joint(AlsModel& cp, AdditiveTerms& terms, const std::vector<Observation>& obs, const CompletionOptions& o) {
  std::vector<double> residual(obs.size());
  std::vector<Observation> rest;  // what the CP part is fitted to: y - tables (only with CP terms)
  if (!cp.empty()) rest = obs;
  terms.bind(obs);
  auto refresh = [&] {
    for (std::size_t n = 0; n < obs.size(); ++n)
      residual[n] = obs[n].y - terms.predict_bound(n) - (cp.empty() ? 0.0 : cp.predict(obs[n].at));
  };
  if (!cp.empty()) cp.prepare(obs);
  refresh();
  double prev = std::numeric_limits<double>::infinity();
  double loss = prev;
  for (int it = 0; it < o.max_iterations; ++it) {
    terms.sweep(obs, residual);
    if (!cp.empty()) {
      for (std::size_t n = 0; n < obs.size(); ++n) rest[n].y = obs[n].y - terms.predict_bound(n);
      cp.sweep(rest, o.lambda);
      refresh();
    }
    loss = terms.penalty() + (cp.empty() ? 0.0 : cp.penalty(o.lambda));
    for (double r : residual) loss += r * r;
    if (std::abs(prev - loss) <= o.tolerance * std::max(1.0, std::abs(loss))) break;
    prev = loss;
  }
  return loss;
}

std::size_t parameters(const Structure& s, const std::array<std::size_t, 3>& d) {
  const std::size_t sum = d[0] + d[1] + d[2];
  return (s.main_effects ? sum : 0) + static_cast<std::size_t>(s.pair_rank) * 2 * sum +
         static_cast<std::size_t>(s.rank) * sum;
}

// Fits one structure with restarts and returns predictions (fitting space) for every cell.
std::vector<double> fit_predict(const TensorLayout& layout, const std::vector<Observation>& raw, const Structure& s,
                                const CompletionOptions& o, std::uint64_t seed, double* loss_out) {
  const std::array<std::size_t, 3>& dims = layout.dims;
  std::mt19937_64 rng(seed);
  double best = std::numeric_limits<double>::infinity();
  // With main effects the global mean is taken out first, so the ridge does not pull the whole
  // tensor towards 0 (an unpenalised intercept); a pure CP model is fitted to the data as given.
  double mean = 0.0;
  if (s.main_effects || s.interactions) {
    for (const Observation& ob : raw) mean += ob.y;
    mean /= static_cast<double>(raw.size());
  }
  std::vector<Observation> obs = raw;
  for (Observation& ob : obs) ob.y -= mean;
  std::vector<double> best_values(dims[0] * dims[1] * dims[2], mean);
  double mag = 0.0;
  for (const Observation& ob : obs) mag += std::abs(ob.y);
  mag /= static_cast<double>(obs.size());
  // Initial scale so a sum of rank-1 terms starts near the data's magnitude.
  const auto ncomp = components(s).size();
  const double scale = std::cbrt(std::max(1e-3, mag) / static_cast<double>(std::max<std::size_t>(1, ncomp)));
  const int restarts = std::max(1, s.rank + s.pair_rank > 0 ? o.restarts : 1);
  for (int r = 0; r < restarts; ++r) {
    AlsModel model(dims, components(s));
    model.init(rng, scale);
    AdditiveTerms terms(layout, table_terms(s, o));
    const double loss = terms.empty() ? model.fit(obs, o.lambda, o.max_iterations, o.tolerance)
                                      : fit_joint(model, terms, obs, o);
    if (loss < best) {
      best = loss;
      // mean + cp + (0 + term 0 + term 1 + ...), each sum in the order it always had; the tables'
      // sum is built in place (a fresh 68,400-cell buffer per fit cost page faults on Sia's table).
      std::fill(best_values.begin(), best_values.end(), 0.0);
      terms.add_predictions(best_values);
      for (std::size_t i = 0; i < dims[0]; ++i)
        for (std::size_t j = 0; j < dims[1]; ++j)
          for (std::size_t k = 0; k < dims[2]; ++k) {
            const std::size_t n = (i * dims[1] + j) * dims[2] + k;
            best_values[n] = mean + (model.empty() ? 0.0 : model.predict({i, j, k})) + best_values[n];
          }
    }
  }
  if (loss_out) *loss_out = best;
  return best_values;
}

// Above this many known cells the cross-validation leaves out the CP candidates (Sia's table:
// 1,391 to 13,000 known cells in predict-check; Heet's and Gavel's hold at most 246 measured cells).
constexpr std::size_t kLargeKnownCells = 1000;

// Largest structure not above `s` whose parameters fit the known cells: rank first, then pair rank.
Structure clamp(Structure s, const std::array<std::size_t, 3>& dims, std::size_t known) {
  while (parameters(s, dims) > known && s.rank > 0) --s.rank;
  while (parameters(s, dims) > known && s.pair_rank > 0) --s.pair_rank;
  return s;
}

}  // namespace

namespace {
// The cross-validation fold of a known cell under configuration_folds: a fixed hash of (job type,
// configuration, seed), so every GPU type of one job type's configuration lands in the same fold.
std::size_t configuration_fold(const Observation& o, std::uint64_t seed, std::size_t folds) {
  const std::uint64_t group = (static_cast<std::uint64_t>(o.at[0]) * 1000003ULL + static_cast<std::uint64_t>(o.at[2])) *
                                  0x9e3779b97f4a7c15ULL +
                              seed;
  return static_cast<std::size_t>((group >> 17) % folds);
}
}  // namespace

CompletionResult complete_tensor(const ProfileTensor& known, const CompletionOptions& options) {
  if (options.rank < 0 || options.pair_rank < 0) throw std::invalid_argument("ranks must not be negative");
  const TensorLayout layout = detail::make_layout(known);
  const std::array<std::size_t, 3>& dims = layout.dims;
  std::vector<Observation> obs;
  for (std::size_t i = 0; i < dims[0]; ++i)
    for (std::size_t j = 0; j < dims[1]; ++j)
      for (std::size_t k = 0; k < dims[2]; ++k) {
        const double v = known.at(i, j, k);
        if (std::isnan(v)) continue;
        if (options.log_space && !(v > 0.0))
          throw std::invalid_argument(fmt::format("log-space completion needs positive values; {} is {}",
                                                  known.describe(known.index(i, j, k)), v));
        obs.push_back({{i, j, k}, options.log_space ? std::log(v) : v});
      }
  if (obs.empty()) throw std::invalid_argument("tensor completion needs at least one known cell");

  CompletionResult result;
  // Cross-validation with the interaction tables never tries pairwise terms: do not warn about them.
  const int pair_rank = options.auto_select && options.interactions ? 0 : options.pair_rank;
  Structure wanted{options.rank, pair_rank, options.main_effects, options.interactions, false};
  Structure s = clamp(wanted, dims, obs.size());
  if (s.rank != wanted.rank || s.pair_rank != wanted.pair_rank)
    result.warnings.push_back(fmt::format(
        "rank {} (pairwise {}) needs {} parameters but only {} cells are known; clamped to rank {} (pairwise {})",
        wanted.rank, wanted.pair_rank, parameters(wanted, dims), obs.size(), s.rank, s.pair_rank));

  if (options.auto_select && obs.size() >= 8) {
    // Candidates from simplest up to the clamped structure; 4-fold CV over the known cells.
    std::vector<Structure> cands;
    // Every job type new (all-new) on a large table: what is hidden is whole configurations of a
    // job type (those the active rule did not profile), so the folds hold out (job type,
    // configuration) groups, and heavier shrinkage of the tables is a candidate. Both are decided
    // on the known cells only. Small tables keep random-cell folds: a few dozen cells cannot fill
    // four folds of whole configurations.
    const bool configuration_folds = options.configuration_folds && obs.size() > kLargeKnownCells;
    if (s.interactions) {
      // The interaction tables (with and without family x configuration) and the tables with
      // 1..rank CP components on top; pairwise terms are subsumed by the tables. Main effects alone
      // are not a candidate: the ridge already shrinks the tables to them where data is thin, and
      // 4-fold CV on a few dozen cells picked them by noise (docs/models.md).
      cands.push_back({0, 0, true, true, false});
      cands.push_back({0, 0, true, true, true});
      // Large tables skip the CP candidates: on Sia's they never won (every trial at 10/25/50%,
      // both protocols, chose the tables with family x configuration; leaving them out gives
      // identical predict-check output) and each costs four ALS fits, half of the check's CPU.
      if (obs.size() <= kLargeKnownCells)
        for (int r = 1; r <= s.rank; ++r) cands.push_back({r, 0, true, true, false});
      if (configuration_folds) {
        cands.push_back({0, 0, true, true, true, 2.0});
        cands.push_back({0, 0, true, true, true, 4.0});
      }
    } else {
      for (int p = 0; p <= s.pair_rank; ++p)
        for (int r = 0; r <= s.rank; ++r)
          if (s.main_effects || p > 0 || r > 0) cands.push_back({r, p, s.main_effects});
    }
    std::vector<std::size_t> perm(obs.size());
    for (std::size_t n = 0; n < perm.size(); ++n) perm[n] = n;
    std::mt19937_64 rng(options.seed ^ 0x9e3779b97f4a7c15ULL);
    for (std::size_t n = perm.size(); n > 1; --n) std::swap(perm[n - 1], perm[rng() % n]);
    constexpr std::size_t kFolds = 4;
    // Cross-validation only ranks structures: one start and fewer sweeps are enough for that (50
    // on large tables: on Sia's, predict-check's output is byte-identical to 100).
    CompletionOptions cv_options = options;
    cv_options.restarts = 1;
    cv_options.max_iterations = std::min(options.max_iterations, obs.size() > kLargeKnownCells ? 50 : 100);
    double best = std::numeric_limits<double>::infinity();
    Structure pick = s;
    for (const Structure& c : cands) {
      double err = 0.0;
      for (std::size_t f = 0; f < kFolds; ++f) {
        std::vector<Observation> train, test;
        if (configuration_folds) {
          for (const Observation& o : obs) (configuration_fold(o, options.seed, kFolds) == f ? test : train).push_back(o);
        } else {
          for (std::size_t n = 0; n < perm.size(); ++n) (n % kFolds == f ? test : train).push_back(obs[perm[n]]);
        }
        if (train.empty() || test.empty() || parameters(c, dims) > train.size()) {
          err = std::numeric_limits<double>::infinity();
          break;
        }
        auto pred = fit_predict(layout, train, c, cv_options, options.seed + f, nullptr);
        for (const Observation& t : test) {
          const double e = pred[(t.at[0] * dims[1] + t.at[1]) * dims[2] + t.at[2]] - t.y;
          err += std::abs(e);  // absolute log error ~ relative error; robust to a few outliers
        }
      }
      if (err < best - 1e-12) {
        best = err;
        pick = c;
      }
    }
    s = pick;
  }

  double loss = 0.0;
  std::vector<double> fitted = fit_predict(layout, obs, s, options, options.seed, &loss);
  result.rank = s.rank;
  result.pair_rank = s.pair_rank;
  result.main_effects = s.main_effects;
  result.interactions = s.interactions;
  result.family_config = s.family_config;
  result.table_lambda_scale = s.table_scale;
  double sq = 0.0;
  for (const Observation& o : obs) {
    const double e = fitted[(o.at[0] * dims[1] + o.at[1]) * dims[2] + o.at[2]] - o.y;
    sq += e * e;
  }
  result.train_rmse = std::sqrt(sq / static_cast<double>(obs.size()));
  result.values.resize(known.size());
  for (std::size_t n = 0; n < known.size(); ++n) {
    if (known.measured(n)) {
      result.values[n] = known.values[n];
    } else {
      result.values[n] = options.log_space ? std::exp(fitted[n]) : fitted[n];
      result.predicted.push_back(n);
    }
  }
  return result;
}

std::vector<double> predict_matrix_2d(const ProfileTensor& known, int rank, std::uint64_t seed) {
  const std::size_t I = known.dim_jobs(), J = known.dim_gpus(), K = known.dim_configs();
  std::vector<double> out = known.values;
  double global = 0.0;
  std::size_t count = 0;
  for (std::size_t n = 0; n < known.size(); ++n)
    if (known.measured(n)) {
      global += std::log(known.values[n]);
      ++count;
    }
  global = count == 0 ? 0.0 : global / static_cast<double>(count);
  CompletionOptions o;
  o.lambda = 0.05;
  for (std::size_t k = 0; k < K; ++k) {
    std::vector<Observation> obs;
    for (std::size_t i = 0; i < I; ++i)
      for (std::size_t j = 0; j < J; ++j)
        if (known.measured(known.index(i, j, k))) obs.push_back({{i, j, 0}, std::log(known.at(i, j, k))});
    if (obs.empty()) {
      for (std::size_t i = 0; i < I; ++i)
        for (std::size_t j = 0; j < J; ++j)
          if (!known.measured(known.index(i, j, k))) out[known.index(i, j, k)] = std::exp(global);
      continue;
    }
    std::vector<Comp> comps{{true, false, false}, {false, true, false}};
    // Clamp like the 3-D model so a nearly empty slice is not over-fitted.
    int r = rank;
    while (r > 0 && (I + J) * static_cast<std::size_t>(1 + r) > obs.size()) --r;
    for (int q = 0; q < r; ++q) comps.push_back({true, true, false});
    std::mt19937_64 rng(seed + k);
    AlsModel model({I, J, 1}, comps);
    model.init(rng, 0.3);
    model.fit(obs, o.lambda, o.max_iterations, o.tolerance);
    for (std::size_t i = 0; i < I; ++i)
      for (std::size_t j = 0; j < J; ++j)
        if (!known.measured(known.index(i, j, k))) out[known.index(i, j, k)] = std::exp(model.predict({i, j, 0}));
  }
  return out;
}

std::vector<double> predict_linear_scaling(const ProfileTensor& known) {
  const std::size_t I = known.dim_jobs(), J = known.dim_gpus(), K = known.dim_configs();
  auto median = [](std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  // Per (job, type): the per-GPU value of the known cell with the fewest GPUs.
  std::vector<double> per_gpu(I * J, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> all_per_gpu;
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t k = 0; k < K; ++k)  // configurations are sorted by GPU count
        if (known.measured(known.index(i, j, k))) {
          per_gpu[i * J + j] = known.at(i, j, k) / known.config_gpus[k];
          all_per_gpu.push_back(per_gpu[i * J + j]);
          break;
        }
  // Median type-to-type ratio of per-GPU values over jobs known on both.
  std::vector<double> ratio(J * J, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t a = 0; a < J; ++a)
    for (std::size_t b = 0; b < J; ++b) {
      std::vector<double> r;
      for (std::size_t i = 0; i < I; ++i)
        if (!std::isnan(per_gpu[i * J + a]) && !std::isnan(per_gpu[i * J + b])) r.push_back(per_gpu[i * J + a] / per_gpu[i * J + b]);
      ratio[a * J + b] = median(r);
    }
  const double fallback = median(all_per_gpu);
  std::vector<double> out = known.values;
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t j = 0; j < J; ++j) {
      double base = per_gpu[i * J + j];
      if (std::isnan(base)) {
        std::vector<double> est;
        for (std::size_t b = 0; b < J; ++b)
          if (!std::isnan(per_gpu[i * J + b]) && !std::isnan(ratio[j * J + b])) est.push_back(per_gpu[i * J + b] * ratio[j * J + b]);
        base = est.empty() ? fallback : median(est);
      }
      for (std::size_t k = 0; k < K; ++k)
        if (!known.measured(known.index(i, j, k))) out[known.index(i, j, k)] = base * known.config_gpus[k];
    }
  return out;
}

}  // namespace hetsim
