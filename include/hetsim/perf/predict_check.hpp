#pragma once
/// Prediction accuracy of the collaborative-filtering completion against two baselines, on a
/// measured profile tensor with part of its cells hidden (what `hetsim predict-check` prints).
#include <cstdint>
#include <random>
#include <string>
#include <utility>
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
  int trials = 0;            ///< trials run (new_job: min(trials asked, job types))
  ErrorStats cf;             ///< 3-D collaborative filtering (complete_tensor)
  ErrorStats linear;         ///< per-type linear scaling baseline
  ErrorStats matrix2d;       ///< 2-D matrix completion baseline
  int rank = 0;              ///< CP rank used in the last trial (after clamping/selection)
  int pair_rank = 0;
  std::string terms;         ///< model terms chosen in the last trial ("main", "int", "int+fc", "cp")
  std::string method;        ///< predictor chosen in the last trial ("cf", "form", "form+cf")
  std::vector<std::string> warnings;  ///< distinct warnings of the completion
};

/// How the profiled cells of a job type are drawn.
enum class ProfilingSampling {
  uniform,     ///< uniformly among the job type's measured cells
  single_gpu,  ///< first one single-GPU cell on a random GPU type (what a user profiling a few short
               ///< runs usually includes), then uniformly among the rest
  active,      ///< chosen, not drawn: active_profiling_cells() (no random draw)
};

/// Active profiling (ours; Heet's "few short profiling runs", Mo et al., ASPLOS'24, do not say which):
/// the first `budget` of job type `job`'s measured cells in this order, chosen to identify the
/// physical form's three job parameters (physical_form.hpp) first. GPU types are ranked by the
/// job's measured cells on them (most first; ties in tensor order): o0, o1, o2, ...
///   1. one GPU on o0 (the job's compute without communication), 2. the largest configuration on o1
///   (the most communication: gradient size g), 3. one GPU on o2 (the largest configuration on o0
///   when there is one GPU type), 4. one GPU on each further type, 5. the largest configuration on
///   every type not yet,
///   6. then round-robin over the types, each time the configuration farthest in log2 GPUs from that
///      type's chosen ones (ties: more GPUs, then tensor order).
/// "Largest" = most GPUs, ties the configuration listed last (the most spread placement). Cells the
/// profile did not measure are skipped. Returns flat indices in the order chosen.
std::vector<std::size_t> active_profiling_cells(const ProfileTensor& truth, std::size_t job, std::size_t budget);

/// The same with the coverage of the job types profiled before (`covered`: per (GPU type,
/// configuration), index j * K + k, how many job types profiled it; empty = ignore). Two changes:
/// in step 6, among configurations at the same distance with an equal GPU count (Sia's placements
/// `4`, `22`, `1111`; Heet's and Gavel's tables have one per count) the one the fewest job types
/// profiled comes first (then tensor order); and after the first cell, the cells nobody covers
/// come first (in the resulting order), so that when every job type is new each communication
/// cost is still measured by some job type. choose_profiled() with ProfilingSampling::active goes
/// through the job types in order and uses this.
std::vector<std::size_t> active_profiling_cells(const ProfileTensor& truth, std::size_t job, std::size_t budget,
                                                const std::vector<int>& covered);

/// Which job types are partly profiled in a trial of predict_check().
enum class ProfilingProtocol {
  /// Every job type is new: each has only its sampled share of cells (the hiding protocol).
  all_new,
  /// Heet's online setting: the job types are split into `trials` seeded groups; in trial t the
  /// job types of group t are new (sampled share only) and every other job type is fully profiled
  /// (it ran in the cluster before). Errors are scored on the new job types' hidden cells.
  new_job,
};

/// The profiled cells of one trial: for every job type, max(1, round(fraction x its measured
/// cells)) of them, drawn without replacement as `sampling` says (stratified so no job type is
/// unknown). A job type without a measured single-GPU cell falls back to uniform.
/// `fully_profiled` (empty, or one flag per job type) marks job types that keep every measured
/// cell; they draw nothing from `rng`.
std::vector<std::size_t> choose_profiled(const ProfileTensor& truth, double fraction, std::mt19937_64& rng,
                                         ProfilingSampling sampling = ProfilingSampling::uniform,
                                         const std::vector<char>& fully_profiled = {});

/// `truth` with every cell outside `keep` set to NaN.
ProfileTensor keep_only(const ProfileTensor& truth, const std::vector<std::size_t>& keep);

/// Runs `trials` random hidings at `fraction` (trial t seeded with seed + t) and scores the three
/// predictors (the first is predict_throughputs(), or complete_tensor() alone with
/// `physical_form` false) on the hidden measured cells; all three see the same profiled cells and nothing
/// else. With ProfilingProtocol::new_job the trials are min(trials, job types) groups of new job
/// types (see there). Throws std::invalid_argument for a fraction outside (0, 1) or a tensor with
/// no measured cell.
PredictCheckRow predict_check(const ProfileTensor& truth, double fraction, int trials, const CompletionOptions& options,
                              std::uint64_t seed, ProfilingSampling sampling = ProfilingSampling::uniform,
                              ProfilingProtocol protocol = ProfilingProtocol::all_new, bool physical_form = true);

/// Median / p90 of absolute percentage errors (in %); zeros for an empty list.
ErrorStats error_stats(std::vector<double> ape_pct);

/// Bounds on error_stats()'s median of `seen` plus `rest` values not known yet: the final
/// nearest-rank median (the r-th smallest of n + rest, r = ceil((n + rest) / 2)) lies between the
/// (r - rest)-th and the r-th smallest of the n seen; -inf / +inf where the seen ones do not reach.
/// The predictor's cross-validation stops its folds once these decide its choice.
std::pair<double, double> median_bounds(std::vector<double> seen, std::size_t rest);

}  // namespace hetsim
