#pragma once
/// `hetsim model fit-check`: how well two step-time models predict measured Pollux/Sia step times
/// they were not fitted on (issue "fidelity against measured data"). Rows of each application and
/// GPU type (placements*.csv, then scalability*.csv, file order) are split by position: even rows
/// (0, 2, 4, ...) train, odd rows test.
///  - `pollux-fit` is fitted on all training rows (pollux_fit.hpp);
///  - `analytic` (analytic_model.hpp, default settings) gets only what a user of it would have: the
///    single-GPU training rows (compute time per local batch), the model's gradient size from its
///    architecture, and the documented network of the cluster the data was measured on.
/// Sources of every number: docs/models.md, "Fit-check".
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/perf/analytic_model.hpp"
#include "hetsim/perf/pollux_app.hpp"

namespace hetsim {

/// The servers of the cluster where one GPU type's Pollux/Sia profiles were measured.
struct MeasuredSite {
  std::string name;  ///< e.g. "AWS g4dn.12xlarge"
  int gpus_per_node = 0;
  InterconnectKind interconnect = InterconnectKind::Pcie;
  double interconnect_gbytes_per_s = 0.0;  ///< per GPU link, per direction (GB/s)
  double nic_gbps = 0.0;                   ///< per node, per direction (Gbit/s)
};

/// The site of a hetsim GPU type (t4, v100, a100, quadro6000, rtx2080ti), or nullopt.
std::optional<MeasuredSite> measured_site(const std::string& gpu_type);

/// fp32 gradient bytes (4 x parameters) of the model behind a Pollux/Sia application (cifar10,
/// imagenet, bert, deepspeech2, yolov3, ncf), or nullopt (gpt_pmp: pipeline parallel; unknown).
std::optional<double> pollux_gradient_bytes(const std::string& application);

/// The `analytic` model on a measured site: compute time from single-GPU rows, communication
/// over a cluster of `nodes` servers of the site. Not thread-safe (predict() reuses one profile).
class AnalyticStepPredictor {
 public:
  /// `single_gpu`: rows with one replica (their step_time is the compute time at their local
  /// batch). Throws std::invalid_argument when it is empty or has a row with another replica
  /// count, when gradient_bytes <= 0 or nodes < 1.
  AnalyticStepPredictor(const MeasuredSite& site, int nodes, double gradient_bytes,
                        const std::vector<StepSample>& single_gpu, AnalyticConfig config = {});
  ~AnalyticStepPredictor();
  AnalyticStepPredictor(const AnalyticStepPredictor&) = delete;
  AnalyticStepPredictor& operator=(const AnalyticStepPredictor&) = delete;

  /// Compute seconds at per-GPU batch b: linear interpolation between the single-GPU rows (equal
  /// batches averaged); below the smallest batch its time; above the largest, the last segment
  /// extended (never below the last time).
  double compute_s(double local_bsz) const;
  /// The analytic step of a row's placement: GPUs per node from its placement digits, or for a
  /// scalability row its replicas spread evenly over its nodes (the first nodes take one more).
  /// nullopt when the placement needs more nodes or GPUs per node than the site has.
  std::optional<StepBreakdown> predict(const StepSample& row) const;

 private:
  class RowProfile;
  std::vector<std::pair<double, double>> compute_;  // (local batch, seconds), batch ascending
  std::unique_ptr<Cluster> cluster_;
  RowProfile* profile_ = nullptr;  // owned by model_
  std::unique_ptr<AnalyticModel> model_;
  std::string application_;
};

/// One line of the fit-check: relative errors |predicted - measured| / measured of step_time on
/// the held-out rows of one application and GPU type.
struct FitCheckRow {
  std::string app;
  std::string gpu_type;
  std::size_t train_rows = 0;
  std::size_t test_rows = 0;
  /// false when some row has sync_time >= step_time: a data-parallel step contains its
  /// synchronisation, so these rows are not data-parallel steps (Sia's pipeline-parallel gpt_pmp)
  /// and the line is reported but kept out of the overall figures.
  bool data_parallel = true;
  std::vector<double> errors;  ///< pollux-fit, every held-out row
  double median_rel_err = 0.0;
  double p90_rel_err = 0.0;
  std::vector<double> analytic_errors;  ///< analytic, held-out rows it could place (empty = n/a)
  double analytic_median_rel_err = 0.0;
  double analytic_p90_rel_err = 0.0;
  std::string analytic_note;  ///< why analytic is missing or partial ("" = every row predicted)
};

/// Runs the check on every application and GPU type of `apps` (lines in map order).
std::vector<FitCheckRow> fit_check(const std::map<std::string, PolluxApplication>& apps);

}  // namespace hetsim
