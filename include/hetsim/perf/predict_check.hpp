#pragma once
/// Prediction accuracy of the collaborative-filtering completion against two baselines, on a
/// measured profile tensor with part of its cells hidden (what `hetsim predict-check` prints).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hetsim/perf/profile_tensor.hpp"
#include "hetsim/perf/tensor_completion.hpp"

namespace hetsim {

/// Median and 90th percentile of absolute percentage error over the hidden measured cells.
struct ErrorStats {
  double median_pct = 0.0;
  double p90_pct = 0.0;
  std::size_t cells = 0;  ///< hidden cells scored (pooled over trials)
};

/// One row of the report: one data set at one profiled fraction.
struct PredictCheckRow {
  double fraction = 0.0;     ///< share of each job type's measured cells kept as "profiled"
  std::size_t known = 0;     ///< profiled cells per trial (mean, rounded)
  ErrorStats cf;             ///< 3-D collaborative filtering (complete_tensor)
  ErrorStats linear;         ///< per-type linear scaling baseline
  ErrorStats matrix2d;       ///< 2-D matrix completion baseline
  int rank = 0;              ///< CP rank used in the last trial (after clamping/selection)
  int pair_rank = 0;
  std::vector<std::string> warnings;  ///< distinct warnings of the completion
};

/// The profiled cells of one trial: for every job type, max(1, round(fraction x its measured
/// cells)) of them, drawn uniformly without replacement (stratified so no job type is unknown).
std::vector<std::size_t> choose_profiled(const ProfileTensor& truth, double fraction, std::mt19937_64& rng);

/// `truth` with every cell outside `keep` set to NaN.
ProfileTensor keep_only(const ProfileTensor& truth, const std::vector<std::size_t>& keep);

/// Runs `trials` random hidings at `fraction` (trial t seeded with seed + t) and scores the three
/// predictors on the hidden measured cells. Throws std::invalid_argument for a fraction outside
/// (0, 1) or a tensor with no measured cell.
PredictCheckRow predict_check(const ProfileTensor& truth, double fraction, int trials, const CompletionOptions& options,
                              std::uint64_t seed);

/// Median / p90 of absolute percentage errors (in %); zeros for an empty list.
ErrorStats error_stats(std::vector<double> ape_pct);

}  // namespace hetsim
