#pragma once
/// The goodput model of Pollux (Qiao et al., OSDI'21) as its simulator applies it (petuum/adaptdl,
/// branch osdi21-artifact, simulator/simulator.py Job.step): a job's rate is statistical progress
/// per second = statistical efficiency gain / seconds per iteration, where the gain comes from the
/// gradient statistics measured in the current epoch at the job's batch size and the step time
/// from a StepTimeModel. Work is counted in WorkUnit::StatisticalProgress; the rate changes at
/// every epoch boundary, which next_rate_change() reports so the mechanism integrates exactly.
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "hetsim/perf/pollux_app.hpp"
#include "hetsim/perf/step_time.hpp"
#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// Placement (GPUs per node) of an ordered GPU list: a new entry starts whenever the node changes
/// from the previous GPU, as the Pollux simulator derives it from its allocation lists.
Placement placement_of(const Cluster& cluster, std::span<const GpuId> gpus);

/// A placement for `count` GPUs on nodes of `per_node` GPUs, filled node by node ({4,4,2}); the
/// shape Optimus plans with.
Placement packed_placement(int count, int per_node);

/// Goodput throughput model over Pollux/Sia application profiles.
class GoodputModel final : public ThroughputModel {
 public:
  /// `apps` by application name (JobSpec::job_type). `steps` predicts step times. `cluster` must
  /// outlive the model (rate() of a shape looks its GPU type up there).
  GoodputModel(const Cluster& cluster, std::map<std::string, PolluxApplication> apps,
               std::unique_ptr<StepTimeModel> steps);

  std::string name() const override { return "goodput/" + steps_->name(); }
  /// Epoch-0 goodput on a packed placement of the shape (policies' planning estimate).
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  double rate_on(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const override {
    return rate_at(job, cluster, gpus, 0, 0.0);
  }
  /// Goodput at `done`. With whole-second epochs (the default, as the Pollux simulator's clock),
  /// the rate returned for the piece up to the next epoch boundary is the one that reaches the
  /// boundary after the exact time rounded to the nearest whole second (ties to even), measured
  /// from `done`; the mechanism asks at every resume and boundary, so boundaries fall at whole
  /// seconds after each resume, as in the simulator.
  double rate_at(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                 double done) const override;
  /// Whole-second epochs on (default) or off (exact progress, the rate is the goodput itself).
  void set_whole_second_epochs(bool on) { whole_second_epochs_ = on; }
  double next_rate_change(const JobSpec& job, double done) const override;
  double integrate_progress(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                            double done, double seconds) const override;
  double time_to_finish_s(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                          double done) const override;
  /// Unknown application, batch size outside the validated range, or no step profile for any GPU
  /// type of the cluster.
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;

  /// The application of a job type, or nullptr.
  const PolluxApplication* app(const std::string& name) const;
  const std::map<std::string, PolluxApplication>& apps() const { return apps_; }
  const StepTimeModel& steps() const { return *steps_; }
  /// Batch size a job runs with on `replicas` GPUs when the policy gives none: the job's own, or
  /// (no batch in the trace) max(init batch, min local batch * replicas) as in the simulator.
  int default_batch(const JobSpec& job, int replicas) const;
  /// Statistical progress per second of `app` on `gpu_type` with `placement`, global batch
  /// `batch_size` split by split_batch(), during epoch `epoch`; 0 when it cannot run.
  double goodput(const PolluxApplication& app, const std::string& gpu_type, const Placement& placement,
                 int batch_size, int epoch) const;
  /// The part of goodput() that does not depend on the epoch: seconds per iteration and the
  /// effective global batch of `batch_size` split over the placement; nullopt where goodput() is 0
  /// whatever the epoch. goodput() = goodput_at(app, *goodput_step(...), epoch), so a policy that
  /// scans batch sizes for many epochs computes the step times once (same arithmetic).
  struct GoodputStep {
    double iteration_s = 0.0;
    double global_batch = 0.0;
  };
  std::optional<GoodputStep> goodput_step(const PolluxApplication& app, const std::string& gpu_type,
                                          const Placement& placement, int batch_size) const;
  /// Goodput of a step during `epoch`: statistical efficiency at its batch over its seconds.
  double goodput_at(const PolluxApplication& app, const GoodputStep& step, int epoch) const;
  /// Seconds per iteration (with accumulation steps) of the same configuration.
  double iteration_time_s(const PolluxApplication& app, const std::string& gpu_type, const Placement& placement,
                          const LocalBatch& batch) const;

 private:
  const Cluster& cluster_;
  bool whole_second_epochs_ = true;
  std::map<std::string, PolluxApplication> apps_;
  std::unique_ptr<StepTimeModel> steps_;
  // rate_at's goodputs per job and epoch for the job's current GPUs and batch (issue 19: the
  // mechanism asks for every job's progress every round and walks its epochs to its finish time,
  // while a job mostly keeps its GPUs and batch, so recomputing the placement key, the step-time
  // look-ups and the statistical efficiency each time was most of a Pollux-workload run). The
  // epochs are forgotten when the job type, cluster, GPUs or batch argument change; goodput() is a
  // pure function of those and the epoch. A model belongs to one run and one thread
  // (docs/architecture.md), so no lock.
  struct RateMemo {
    std::string job_type;
    const PolluxApplication* app = nullptr;
    const Cluster* cluster = nullptr;
    std::vector<GpuId> gpus;
    int batch_size = 0;
    std::vector<double> by_epoch;  // before rate_at's zero and whole-second rules; NaN = not yet
    // On GPUs of one type, the epoch-independent part of goodput() (goodput_step), once per key.
    bool step_known = false;
    bool one_type = false;
    bool profiled = false;
    std::optional<GoodputStep> step;
    // The statistical-efficiency gains of the step's application and global batch (gains_).
    std::vector<double>* gains = nullptr;
    // The epoch of the last progress asked about and its progress interval [epoch_lo, epoch_hi):
    // a job's progress stays inside one epoch for many look-ups, so epoch_of's search is skipped.
    int epoch = -1;
    double epoch_lo = 0.0, epoch_hi = 0.0;
  };
  static int memo_epoch(RateMemo& memo, const PolluxApplication& a, double done);
  mutable std::unordered_map<const JobSpec*, RateMemo> rate_memo_;
  // rate()'s answers by (application, GPU type, GPU count, GPUs per node, batch): every job of an
  // application asks the same few at the start of a run (ideal runtimes) and in policies' plans.
  mutable std::map<std::tuple<const PolluxApplication*, GpuTypeId, int, int, int>, double> shape_rates_;
  // goodput_at's statistical efficiency per (application, global batch) and epoch (NaN: not yet):
  // it depends on nothing else, while a job's rate memo starts afresh at every start (new GPUs)
  // and the finish-time walk asks it for every remaining epoch (issue 19).
  mutable std::map<std::pair<const PolluxApplication*, double>, std::vector<double>> gains_;
  static double statistical_gain(const PolluxApplication& a, double global_batch, int epoch);
  // The memo asked for last: a finish-time walk asks for one job's rate and next change once per
  // epoch, and the map look-ups were a twentieth of a short run (issue 19). Map nodes never move,
  // so the pointer stays valid.
  mutable const JobSpec* last_job_ = nullptr;
  mutable RateMemo* last_memo_ = nullptr;
  RateMemo& memo_of(const JobSpec& job) const;
  void key_memo(RateMemo& memo, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size) const;
  double rate_in(RateMemo& memo, const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                 int batch_size, double done) const;
  static double next_change_in(RateMemo& memo, double done);
  double memo_rate(RateMemo& memo, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size, int epoch,
                   const JobSpec& job) const;
};

/// Loads every application named by the jobs of `workload` from the profile folders `roots`, with
/// the step-time model `step_model` ("pollux-table" or "pollux-fit"). Throws InputError.
std::unique_ptr<GoodputModel> load_goodput_model(const Cluster& cluster, const Workload& workload,
                                                 const std::vector<std::string>& roots, const std::string& step_model);

/// Prepares the jobs of a Pollux/Sia workload for the goodput model: work = the application's
/// total progress (unit StatisticalProgress); elastic range [1, max(requested, batch / smallest
/// per-GPU batch)] (ncf: its requested count, as the simulator pins ncf); with
/// `sia_restart_costs`, each job's restart overhead = its application's Sia cost. Jobs of unknown
/// applications are left alone (admission rejects them).
void attach_goodput_work(Workload& workload, const GoodputModel& model, bool sia_restart_costs);

/// One warning per (application of the model, GPU type of `cluster`) without a step profile, for an
/// application that has a profile on some other type: its jobs never run on that type (a job with
/// no usable type at all is rejected by check_job, with its reason).
std::vector<std::string> missing_profile_warnings(const GoodputModel& model, const Cluster& cluster);
/// Profile folders for a workload file when none are given: the first ancestor folder of the
/// workload with a `traces/` subfolder, then `pollux/traces` beside that ancestor (Sia reuses
/// Pollux's T4 and validation files without copying them).
std::vector<std::string> default_profile_roots(const std::string& workload_path);

}  // namespace hetsim
