#pragma once
/// Completion of a partly measured profile tensor (job x GPU type x configuration): Heet's 3-D
/// collaborative filtering (Mo et al., ASPLOS'24), as a CP decomposition fitted by regularised
/// alternating least squares (Kolda & Bader, "Tensor Decompositions and Applications", SIAM Review
/// 2009, sec. 3.4; ALS with missing entries as in Tomasi & Bro 2005), plus optional main-effect
/// and pairwise low-rank terms (our addition, see docs/models.md), fitted in log space by default.
/// Also the two baselines predict-check compares against.
#include <cstdint>
#include <string>
#include <vector>

#include "hetsim/perf/profile_tensor.hpp"

namespace hetsim {

/// Model and fitting settings of complete_tensor().
struct CompletionOptions {
  int rank = 2;              ///< CP components over all three modes (job x GPU x configuration)
  int pair_rank = 1;         ///< rank of each pairwise term (job x GPU, job x config, GPU x config)
  bool main_effects = true;  ///< per-job, per-GPU and per-configuration terms
  bool log_space = true;     ///< fit log(value) (multiplicative model; predictions stay positive)
  /// Ridge-shrunk interaction tables and scaling slopes (GPU x config, family x GPU, job x GPU,
  /// per-family / per-job / per-(job, GPU) slope in log2 GPUs; our addition, docs/models.md). They
  /// include the main effects and replace the pairwise low-rank terms in cross-validation.
  bool interactions = true;
  double lambda = 0.05;       ///< ridge weight on every free factor entry and on the main effects
  double table_lambda = 1.0;  ///< ridge weight on the interaction tables and slopes
  int max_iterations = 500;  ///< ALS sweeps per restart
  double tolerance = 1e-7;   ///< stop when the loss changes by less than this, relative
  int restarts = 3;          ///< random initialisations; the lowest training loss wins
  /// Choose (rank, pair_rank, main_effects) among a small candidate list by leave-cells-out
  /// cross-validation on the measured cells (our addition); rank/pair_rank are then upper bounds.
  bool auto_select = false;
  /// With auto_select on a table of more than 1,000 known cells: the folds hold out whole (job type,
  /// configuration) groups, as a new job type's unprofiled configurations are, instead of random
  /// cells, and the interaction tables are also tried shrunk 2x and 4x (table_lambda x 2, x 4).
  /// predict_throughputs() sets it when every job type is new (docs/models.md).
  bool configuration_folds = false;
  std::uint64_t seed = 0;    ///< initialisation and cross-validation folds
};

/// What complete_tensor() produced.
struct CompletionResult {
  std::vector<double> values;         ///< every cell: the measurement where known, else the prediction
  std::vector<std::size_t> predicted; ///< flat indices of the cells that were predicted
  int rank = 0;                       ///< CP rank actually used (after clamping / selection)
  int pair_rank = 0;                  ///< pairwise rank actually used
  bool main_effects = false;
  bool interactions = false;          ///< the interaction tables were used
  bool family_config = false;         ///< ... with the family x configuration table
  double table_lambda_scale = 1.0;    ///< the tables' ridge weight is table_lambda x this (CV's choice)
  double train_rmse = 0.0;            ///< on the known cells, in the fitting space
  std::vector<std::string> warnings;  ///< e.g. a rank clamped because the data cannot support it
  /// Which predictor produced the values: "cf" (this completion), or, from predict_throughputs(),
  /// "form" (the physical scaling form alone) or "form+cf" (the form, its residual completed).
  std::string method = "cf";
};

/// Completes `known` (NaN = unknown). A rank needing more parameters than there are known cells is
/// clamped, with a warning, to the largest that fits (rank first, then pair_rank). Deterministic for
/// a given seed. Throws std::invalid_argument when no cell is known, when log_space meets a value
/// <= 0, or for negative ranks.
CompletionResult complete_tensor(const ProfileTensor& known, const CompletionOptions& options);

/// Baseline 1: per-type linear scaling. For each (job, GPU type) with a known cell, the value at
/// n GPUs is value(m) * n / m from the known cell with the fewest GPUs m (the single-GPU value
/// when it is known). A (job, GPU type) with nothing known borrows the job's known cells on other
/// types, scaled by the median ratio between the two types over jobs known on both; a job with
/// nothing known gets the median of the known per-GPU values. Returns every cell (known = as given).
std::vector<double> predict_linear_scaling(const ProfileTensor& known);

/// Baseline 2: 2-D matrix completion that ignores the configuration axis: every configuration's
/// job x GPU-type matrix is completed on its own by regularised ALS (rank `rank`, log space, with
/// row and column terms), so nothing is learnt across configurations.
std::vector<double> predict_matrix_2d(const ProfileTensor& known, int rank, std::uint64_t seed);

}  // namespace hetsim
