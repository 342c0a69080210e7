#pragma once
/// The measured profile of one Pollux/Sia application: statistical efficiency per batch size and
/// epoch (validation-<B>.csv) and step times per placement and GPU type (placements*.csv,
/// scalability*.csv). Semantics follow the Pollux simulator (petuum/adaptdl, branch
/// osdi21-artifact, simulator/applications.py); docs/models.md lists every rule.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetsim {

/// One training run of the application at a fixed global batch size: one entry per epoch.
struct ValidationCurve {
  int batch_size = 0;
  std::vector<double> progress;   ///< cumulative statistical progress at the end of each epoch
  std::vector<double> iteration;  ///< cumulative iterations at the end of each epoch
  std::vector<double> metric;     ///< validation metric after each epoch
  std::vector<double> grad_sqr;   ///< gradient squared norm measured during each epoch
  std::vector<double> grad_var;   ///< gradient variance measured during each epoch
};

/// One measured step time: a placement (GPUs per node) and per-GPU batch size.
struct StepSample {
  std::string placement;  ///< GPUs per node as digits ("4", "22", "1111"); empty for scalability rows
  int num_nodes = 0;
  int num_replicas = 0;
  double local_bsz = 0.0;
  double step_time_s = 0.0;  ///< seconds per iteration
  double sync_time_s = 0.0;  ///< seconds of it in gradient synchronisation
  // No file:line per row: a string of its own for each of ~10,000 rows was a large part of a short
  // Pollux run's allocations and page faults (issue 19), and errors are raised while reading.
};

/// Measured step times of one application on one GPU type.
struct StepProfile {
  std::string gpu_type;                ///< lower-case hetsim name (t4, a100, v100, ...)
  std::vector<StepSample> placements;  ///< rows of placements*.csv, file order
  std::vector<StepSample> scalability; ///< rows of scalability*.csv, file order
};

/// GPU type name -> file suffix in the Pollux/Sia trace folders ("" = placements.csv, Pollux's
/// T4 on AWS g4dn.12xlarge). Unknown types have no profile.
std::optional<std::vector<std::string>> profile_suffixes(const std::string& gpu_type);

/// Restart cost (s) of an application in Sia's simulator (ncf 15, deepspeech2 25, cifar10 50,
/// yolov3 80, bert 120, imagenet 250); nullopt for other applications.
std::optional<double> sia_restart_cost_s(const std::string& application);

/// One application (cifar10, imagenet, bert, deepspeech2, yolov3, ncf, gpt_pmp).
class PolluxApplication {
 public:
  /// Loads `name` from the first folder in `roots` that has `name/validation-*.csv`; step profiles
  /// are gathered per GPU type from every root (first found wins). Throws InputError naming the
  /// folders when the application has no validation curves or no step profile at all.
  static PolluxApplication load(const std::string& name, const std::vector<std::string>& roots);
  /// The application from profiles already read (load() gathers them from the folders and calls
  /// this): checks there are validation curves and a step profile, and derives the batch ranges
  /// and epochs. `where` says where they came from, for the errors ("looked in DIR, ...").
  static PolluxApplication from_profiles(const std::string& name, std::map<int, ValidationCurve> validation,
                                         std::map<std::string, StepProfile> profiles, const std::string& where);

  const std::string& name() const { return name_; }
  int init_batch_size() const { return init_batch_size_; }  ///< smallest validated batch size
  int max_batch_size() const { return max_batch_size_; }    ///< largest validated batch size
  int min_local_bsz() const { return min_local_bsz_; }      ///< smallest measured per-GPU batch
  int max_local_bsz() const { return max_local_bsz_; }      ///< largest per-GPU batch (yolov3: 8)
  int max_epochs() const { return max_epochs_; }
  const std::map<int, ValidationCurve>& validation() const { return validation_; }

  /// Statistical progress at the end of epoch `epoch` (0 for epoch 0): the minimum over batch sizes.
  double progress_at_epoch(int epoch) const;
  /// Progress at which the job completes: the end of its last epoch (target_metric is unset in the
  /// Pollux simulator, so every job trains max_epochs epochs).
  double total_progress() const { return progress_at_epoch(max_epochs_); }
  /// Epochs completed at `progress` (boundaries <= progress count as crossed).
  int epoch_of(double progress) const;
  /// Gradient (sqr, var) during `epoch`, linearly interpolated between validated batch sizes.
  /// `batch_size` must lie in [init_batch_size, max_batch_size].
  std::pair<double, double> grad_stats(double batch_size, int epoch) const;
  /// Iterations done after `epoch` epochs at `batch_size` (interpolated; used by Optimus).
  double iteration(double batch_size, int epoch) const;
  /// Step profile of a GPU type, or nullptr.
  const StepProfile* profile(const std::string& gpu_type) const;
  const std::map<std::string, StepProfile>& profiles() const { return profiles_; }

 private:
  std::pair<int, int> bracket(double batch_size) const;
  std::string name_;
  std::map<int, ValidationCurve> validation_;
  std::map<std::string, StepProfile> profiles_;
  std::vector<double> epoch_progress_;  // [e] = progress_at_epoch(e), e = 0..max_epochs
  int init_batch_size_ = 0;
  int max_batch_size_ = 0;
  int min_local_bsz_ = 0;
  int max_local_bsz_ = 0;
  int max_epochs_ = 0;
};

/// One validation-<batch_size>.csv over text already in memory (columns progress, iteration,
/// metric, grad_sqr, grad_var by header name); `path` is used in errors only. Throws InputError.
ValidationCurve read_validation_curve(const std::string& path, std::string_view text, int batch_size);

/// The rows of one placements*.csv (`scalability` false) or scalability*.csv (true) over text
/// already in memory; `path` is used in errors only. Throws InputError.
std::vector<StepSample> read_step_samples(const std::string& path, std::string_view text, bool scalability);

/// Global batch size split into per-GPU work: atomic (per-step) batch and gradient-accumulation
/// steps, as the Pollux simulator's Job.update_local_bsz does for a fixed target batch size.
struct LocalBatch {
  int atomic_bsz = 0;
  int accum_steps = 0;
  /// Effective global batch: replicas * atomic * (accum + 1).
  int global(int replicas) const { return replicas * atomic_bsz * (accum_steps + 1); }
};

/// Splits `batch_size` over `replicas` GPUs of `app` (ceil to local batch, accumulate beyond
/// max_local_bsz, at least one accumulation step on one GPU above the initial batch size, atomic
/// batch capped so the global batch stays <= max_batch_size).
LocalBatch split_batch(const PolluxApplication& app, int batch_size, int replicas);

}  // namespace hetsim
