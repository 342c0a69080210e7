#pragma once
/// The throughput a Heet-style scheduler believes: a profile tensor completed by 3-D collaborative
/// filtering from a few profiled cells per job type (Mo et al., ASPLOS'24). Policies plan with it
/// (MechanismConfig::planning_model) while the measured table stays the ground truth.
#include <memory>
#include <string>
#include <vector>

#include "hetsim/perf/predict_check.hpp"
#include "hetsim/perf/profile_tensor.hpp"
#include "hetsim/perf/tensor_completion.hpp"
#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// How the predictor is built for a run.
struct CfModelOptions {
  double profiled_fraction = 0.25;  ///< share of each job type's measured cells that are profiled
  CompletionOptions completion;     ///< model of the completion (auto_select on by default below)
  /// Which cells a job type profiles: chosen by active_profiling_cells() (default), or drawn.
  ProfilingSampling sampling = ProfilingSampling::active;
  /// Predict with predict_throughputs() (physical form and CF, chosen by CV); false = CF alone.
  bool physical_form = true;
  std::uint64_t seed = 0;           ///< which cells are profiled, and the ALS initialisation
};

/// Rates from the completed tensor: profiled cells as measured, the rest predicted. A cell the
/// profile never measured is predicted too (and listed by missing_predicted()). Rows: the Heet
/// key "model@batch" when the tensor has it, else the job type; columns: the cluster's GPU type
/// names; configurations: the GPU count. Units as the tensor (epochs/s or steps/s).
class CfThroughputModel final : public ThroughputModel {
 public:
  /// Completes `truth` after hiding all but the profiled cells. Throws InputError (field
  /// "--profiled-fraction") for a fraction outside (0, 1].
  CfThroughputModel(ProfileTensor truth, const Cluster& cluster, const CfModelOptions& options);
  std::string name() const override { return "cf-predicted"; }
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  /// Rejects a job whose type is absent from every profile (nothing to predict from).
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;

  /// Cells that were predicted ("job / gpu / config"), i.e. not profiled.
  std::vector<std::string> predicted_cells() const;
  /// Cells absent from the measured profile itself that the model filled in.
  std::vector<std::string> missing_predicted() const;
  /// Profiling runs one job of `job`'s type makes: the number of its profiled cells.
  int profiling_runs(const JobSpec& job) const;
  /// Largest profiling_runs() over all rows (what the mechanism charges per new job).
  int max_profiling_runs() const { return max_runs_; }
  /// Warnings of the completion (clamped rank, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Median absolute percentage error of the predicted cells that have a measurement (for logs).
  double median_error_pct() const { return median_error_pct_; }

 private:
  std::optional<std::size_t> row_of(const JobSpec& job) const;

  ProfileTensor truth_;
  std::vector<double> values_;          // completed tensor
  std::vector<char> profiled_;          // per cell
  std::vector<std::ptrdiff_t> gpu_col_; // cluster type -> tensor column, -1 = absent
  std::vector<std::string> warnings_;
  int max_runs_ = 0;
  double median_error_pct_ = 0.0;
};

}  // namespace hetsim
