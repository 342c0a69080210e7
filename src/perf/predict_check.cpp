// Hide-and-predict evaluation of the profile completion (Heet, Mo et al., ASPLOS'24, claims its 3-D
// collaborative filtering predicts unprofiled configurations from a few profiling runs).
#include "hetsim/perf/predict_check.hpp"

#include "hetsim/perf/throughput_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <fmt/format.h>

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

std::pair<double, double> median_bounds(std::vector<double> seen, std::size_t rest) {
  std::sort(seen.begin(), seen.end());
  const std::size_t total = seen.size() + rest;
  const std::size_t r = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(0.5 * static_cast<double>(total))));
  const double inf = std::numeric_limits<double>::infinity();
  const double lo = r > rest ? seen[r - rest - 1] : -inf;
  const double hi = r <= seen.size() ? seen[r - 1] : inf;
  return {lo, hi};
}

namespace {
std::vector<std::size_t> active_order(const ProfileTensor& truth, std::size_t job, std::size_t budget,
                                      const std::vector<int>& covered);
}  // namespace

std::vector<std::size_t> active_profiling_cells(const ProfileTensor& truth, std::size_t job, std::size_t budget,
                                                const std::vector<int>& covered) {
  std::vector<std::size_t> order = active_order(truth, job, std::numeric_limits<std::size_t>::max(), covered);
  if (!covered.empty() && order.size() > 1) {
    // After the first (one GPU), cells whose (GPU type, configuration) no profiled job type covers
    // come first, in the rule's order: every communication cost K[j,k] gets identified by someone.
    const std::size_t JK = truth.dim_gpus() * truth.dim_configs();
    std::stable_partition(order.begin() + 1, order.end(), [&](std::size_t n) { return covered[n % JK] == 0; });
  }
  if (order.size() > budget) order.resize(budget);
  return order;
}

std::vector<std::size_t> active_profiling_cells(const ProfileTensor& truth, std::size_t job, std::size_t budget) {
  return active_order(truth, job, budget, {});
}

namespace {

// The rule of active_profiling_cells(); `covered` (empty = none) breaks the round-robin's ties
// between placements of the same GPU count (Sia's table has up to 9 per count, Heet's and Gavel's
// one): the one the fewest job types profiled, so that across job types every placement gets
// measured by some, as the GPU x configuration terms need.
std::vector<std::size_t> active_order(const ProfileTensor& truth, std::size_t job, std::size_t budget,
                                      const std::vector<int>& covered) {
  const std::size_t J = truth.dim_gpus(), K = truth.dim_configs();
  std::vector<std::size_t> per_gpu(J, 0), order(J);
  for (std::size_t j = 0; j < J; ++j) {
    order[j] = j;
    for (std::size_t k = 0; k < K; ++k) per_gpu[j] += truth.measured(truth.index(job, j, k));
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return per_gpu[x] > per_gpu[y]; });
  std::vector<std::size_t> out;
  std::vector<char> taken(K * J, 0);
  auto take = [&](std::size_t j, std::size_t k) {
    const std::size_t n = truth.index(job, j, k);
    if (out.size() >= budget || taken[j * K + k] || !truth.measured(n)) return;
    taken[j * K + k] = 1;
    out.push_back(n);
  };
  // Measured configurations of a type by GPU count, the listed-last first among equal counts.
  auto single = [&](std::size_t j) {
    for (std::size_t k = 0; k < K; ++k)
      if (truth.config_gpus[k] == 1 && truth.measured(truth.index(job, j, k))) return take(j, k);
  };
  auto largest = [&](std::size_t j) {
    for (std::size_t k = K; k-- > 0;)
      if (truth.measured(truth.index(job, j, k))) return take(j, k);
  };
  if (J == 0) return out;
  single(order[0]);
  if (J > 1) largest(order[1]);
  if (J > 2) single(order[2]);
  if (J == 1) largest(order[0]);
  for (std::size_t r = 3; r < J; ++r) single(order[r]);
  for (std::size_t r = 0; r < J; ++r) largest(order[r]);
  // Round-robin: per type the configuration farthest in log2 GPUs from that type's chosen ones.
  for (bool more = true; more && out.size() < budget;) {
    more = false;
    for (std::size_t r = 0; r < J && out.size() < budget; ++r) {
      const std::size_t j = order[r];
      std::ptrdiff_t best = -1;
      double best_d = -1.0;
      int best_cov = 0;
      for (std::size_t k = 0; k < K; ++k) {
        if (taken[j * K + k] || !truth.measured(truth.index(job, j, k))) continue;
        double d = std::numeric_limits<double>::infinity();
        for (std::size_t q = 0; q < K; ++q)
          if (taken[j * K + q]) d = std::min(d, std::abs(std::log2(truth.config_gpus[k]) - std::log2(truth.config_gpus[q])));
        const int cov = covered.empty() ? 0 : covered[j * K + k];
        const auto b = static_cast<std::size_t>(best);
        const bool tie = best >= 0 && d == best_d && truth.config_gpus[k] == truth.config_gpus[b];
        if (d > best_d || (d == best_d && truth.config_gpus[k] > truth.config_gpus[b]) || (tie && cov < best_cov))
          best = static_cast<std::ptrdiff_t>(k), best_d = d, best_cov = cov;
      }
      if (best >= 0) take(j, static_cast<std::size_t>(best)), more = true;
    }
  }
  return out;
}

}  // namespace

std::vector<std::size_t> choose_profiled(const ProfileTensor& truth, double fraction, std::mt19937_64& rng,
                                         ProfilingSampling sampling, const std::vector<char>& fully_profiled) {
  std::vector<std::size_t> keep;
  const std::size_t row = truth.dim_gpus() * truth.dim_configs();
  // Per (GPU type, configuration): profiled job types so far. Fully profiled job types count first,
  // whatever their position, so a new job type sees every one of them.
  std::vector<int> coverage(row, 0);
  for (std::size_t i = 0; i < truth.dim_jobs() && i < fully_profiled.size(); ++i)
    if (fully_profiled[i])
      for (std::size_t n = i * row; n < (i + 1) * row; ++n) coverage[n % row] += truth.measured(n);
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
    if (sampling == ProfilingSampling::active) {
      const std::vector<std::size_t> chosen = active_profiling_cells(truth, i, want, coverage);
      keep.insert(keep.end(), chosen.begin(), chosen.end());
      for (std::size_t n : chosen) ++coverage[n % row];
      continue;
    }
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
                              std::uint64_t seed, ProfilingSampling sampling, ProfilingProtocol protocol,
                              bool physical_form) {
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
    const CompletionResult cf = predict_throughputs(known, PredictorOptions{o, {}, physical_form, protocol == ProfilingProtocol::all_new});
    const auto lin = predict_linear_scaling(known);
    const auto m2 = predict_matrix_2d(known, std::max(1, options.pair_rank), o.seed);
    row.rank = cf.rank;
    row.pair_rank = cf.pair_rank;
    row.terms = !cf.interactions ? "main" : cf.family_config ? "int+fc" : "int";
    if (cf.table_lambda_scale != 1.0) row.terms += fmt::format("/{:g}", cf.table_lambda_scale);
    row.method = cf.method;
    warnings.insert(cf.warnings.begin(), cf.warnings.end());
    for (std::size_t n = 0; n < truth.size(); ++n) {
      if (!truth.measured(n) || is_known[n]) continue;
      const double v = truth.values[n];
      e_cf.push_back(100.0 * std::abs(cf.values[n] - v) / v);
      e_lin.push_back(100.0 * std::abs(lin[n] - v) / v);
      e_2d.push_back(100.0 * std::abs(m2[n] - v) / v);
    }
  }
  row.trials = trials;
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
