// Hide-and-predict evaluation of the profile completion (Heet, Mo et al., ASPLOS'24, claims its 3-D
// collaborative filtering predicts unprofiled configurations from a few profiling runs).
#include "hetsim/perf/predict_check.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace hetsim {

ErrorStats error_stats(std::vector<double> ape) {
  ErrorStats s;
  s.cells = ape.size();
  if (ape.empty()) return s;
  std::sort(ape.begin(), ape.end());
  // Nearest-rank percentiles: reproducible without interpolation choices.
  auto pct = [&](double q) {
    std::size_t r = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ape.size())));
    return ape[std::min(ape.size(), std::max<std::size_t>(1, r)) - 1];
  };
  s.median_pct = pct(0.5);
  s.p90_pct = pct(0.9);
  return s;
}

std::vector<std::size_t> choose_profiled(const ProfileTensor& truth, double fraction, std::mt19937_64& rng,
                                         ProfilingSampling sampling, const std::vector<char>& fully_profiled) {
  std::vector<std::size_t> keep;
  const std::size_t row = truth.dim_gpus() * truth.dim_configs();
  for (std::size_t i = 0; i < truth.dim_jobs(); ++i) {
    std::vector<std::size_t> cells;
    for (std::size_t n = i * row; n < (i + 1) * row; ++n)
      if (truth.measured(n)) cells.push_back(n);
    if (cells.empty()) continue;
    if (i < fully_profiled.size() && fully_profiled[i]) {
      keep.insert(keep.end(), cells.begin(), cells.end());
      continue;
    }
    const auto want = std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(fraction * static_cast<double>(cells.size()))));
    std::size_t first = 0;
    if (sampling == ProfilingSampling::single_gpu) {
      // Move the single-GPU cells to the front, pick one of them, and draw the rest from the others.
      const auto singles = static_cast<std::size_t>(
          std::stable_partition(cells.begin(), cells.end(),
                                [&](std::size_t n) { return truth.config_gpus[n % truth.dim_configs()] == 1; }) -
          cells.begin());
      if (singles > 0) {
        std::swap(cells[0], cells[static_cast<std::size_t>(rng() % singles)]);
        keep.push_back(cells[0]);
        first = 1;
      }
    }
    // Partial Fisher-Yates with raw draws (no std::*_distribution: same numbers on every library).
    for (std::size_t n = first; n < want && n < cells.size(); ++n) {
      const std::size_t pick = n + static_cast<std::size_t>(rng() % (cells.size() - n));
      std::swap(cells[n], cells[pick]);
      keep.push_back(cells[n]);
    }
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

ProfileTensor keep_only(const ProfileTensor& truth, const std::vector<std::size_t>& keep) {
  ProfileTensor t = truth;
  std::fill(t.values.begin(), t.values.end(), std::nan(""));
  for (std::size_t n : keep) t.values[n] = truth.values[n];
  return t;
}

// GCC 12 reports a false -Wuse-after-free on the per-trial vectors' destructors in this loop
// (its known inlining false positive); the code only reads them while they are alive.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif
PredictCheckRow predict_check(const ProfileTensor& truth, double fraction, int trials, const CompletionOptions& options,
                              std::uint64_t seed, ProfilingSampling sampling, ProfilingProtocol protocol) {
  if (!(fraction > 0.0 && fraction < 1.0)) throw std::invalid_argument("profiled fraction must be in (0, 1)");
  if (truth.measured_count() == 0) throw std::invalid_argument("profile has no measured cell");
  PredictCheckRow row;
  row.fraction = fraction;
  std::vector<double> e_cf, e_lin, e_2d;
  std::set<std::string> warnings;
  std::size_t known_total = 0;
  // new_job: a seeded split of the job types into groups, one group new per trial.
  std::vector<std::size_t> group_of(truth.dim_jobs(), 0);
  if (protocol == ProfilingProtocol::new_job) {
    trials = std::min(trials, static_cast<int>(truth.dim_jobs()));
    std::vector<std::size_t> order(truth.dim_jobs());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::mt19937_64 split(seed ^ 0x5851f42d4c957f2dULL);
    for (std::size_t n = order.size(); n > 1; --n) std::swap(order[n - 1], order[split() % n]);
    for (std::size_t n = 0; n < order.size(); ++n) group_of[order[n]] = n % static_cast<std::size_t>(std::max(1, trials));
  }
  for (int t = 0; t < trials; ++t) {
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(t));
    std::vector<char> full;
    if (protocol == ProfilingProtocol::new_job) {
      full.assign(truth.dim_jobs(), 1);
      for (std::size_t i = 0; i < full.size(); ++i)
        if (group_of[i] == static_cast<std::size_t>(t)) full[i] = 0;
    }
    const std::vector<std::size_t> keep = choose_profiled(truth, fraction, rng, sampling, full);
    known_total += keep.size();
    std::vector<char> is_known(truth.size(), 0);
    for (std::size_t n : keep) is_known[n] = 1;
    const ProfileTensor known = keep_only(truth, keep);
    CompletionOptions o = options;
    o.seed = seed + static_cast<std::uint64_t>(t);
    const CompletionResult cf = complete_tensor(known, o);
    const auto lin = predict_linear_scaling(known);
    const auto m2 = predict_matrix_2d(known, std::max(1, options.pair_rank), o.seed);
    row.rank = cf.rank;
    row.pair_rank = cf.pair_rank;
    row.terms = !cf.interactions ? "main" : cf.family_config ? "int+fc" : "int";
    warnings.insert(cf.warnings.begin(), cf.warnings.end());
    for (std::size_t n = 0; n < truth.size(); ++n) {
      if (!truth.measured(n) || is_known[n]) continue;
      const double v = truth.values[n];
      e_cf.push_back(100.0 * std::abs(cf.values[n] - v) / v);
      e_lin.push_back(100.0 * std::abs(lin[n] - v) / v);
      e_2d.push_back(100.0 * std::abs(m2[n] - v) / v);
    }
  }
  row.known = trials > 0 ? static_cast<std::size_t>(std::lround(static_cast<double>(known_total) / trials)) : 0;
  row.cf = error_stats(std::move(e_cf));
  row.linear = error_stats(std::move(e_lin));
  row.matrix2d = error_stats(std::move(e_2d));
  row.warnings.assign(warnings.begin(), warnings.end());
  return row;
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic pop
#endif

}  // namespace hetsim
