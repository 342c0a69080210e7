#pragma once
/// The one owner of job state. Both mechanisms (event-driven and Gavel's rounds) change a job only
/// through this table: arrive (admission), start (charging the restart overhead), stop, finish,
/// end at the horizon; it keeps the cluster's GPU ownership, the pending/running sets, the list of
/// jobs changed since the last pass, the refused-request warnings, and emits the JobEvents that
/// sinks see. Progress (how much work a running job did) stays with each mechanism: the event
/// mechanism integrates rates, the round mechanism counts Gavel's whole steps.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/metrics/job_event.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/sched/invariants.hpp"
#include "hetsim/workload/job_index_set.hpp"
#include "hetsim/workload/job_state.hpp"

namespace hetsim {

/// Lifecycle settings shared by both mechanisms.
/// Most scheduling rounds a run may take (both mechanisms count the rounds they run; idle time
/// between arrivals takes none): far above any documented experiment (Gavel's MSR trace at 360 s
/// rounds is ~1e5), low enough that `--interval 0.001` on a long job fails instead of running for
/// days.
inline constexpr double kMaxRounds = 1e8;

/// Throws InputError naming --interval when a mechanism starts round number `rounds` (1-based) and
/// that exceeds `max_rounds`; the message says when, and what to do.
void check_round_limit(std::uint64_t rounds, double max_rounds, double round_s, SimTime now);

struct LifecycleConfig {
  /// Seconds without progress paid at every start of an allocation (first start, resume, move,
  /// resize) unless the job has its own JobSpec::restart_overhead_s. 0 = free restarts.
  double restart_overhead_s = 0.0;
  /// Seconds without progress paid once, at a job's first start (Heet's profiling runs).
  double profiling_s = 0.0;
  /// Check the run's invariants (sched/invariants.hpp) at every event and after every pass.
  bool check_invariants = kCheckInvariantsByDefault;
  /// How the mechanism turns time into work (what the work rule compares with).
  ProgressKind progress = ProgressKind::Exact;
};

/// Counters of one run that are not per job.
struct MechanismStats {
  std::uint64_t events = 0;
  std::uint64_t scheduling_passes = 0;
  std::uint64_t refused_requests = 0;  ///< policy requests the mechanism refused (see warnings)
  std::vector<std::string> warnings;   ///< first few refused requests, for the user
  SimTime end;                         ///< time of the last event handled
  /// With invariant checks on: the final events counted from the stream (for the summary's check).
  std::optional<FinalEventCounts> checked_final_events;
};

/// What admission made of an arriving job.
enum class Admission : std::uint8_t { Rejected, CompletedAtArrival, Pending };

/// Why the jobs still active are ended, and the texts their Unfinished events carry.
struct EndOfRun {
  StopReason stop = StopReason::Horizon;  ///< Stopped reason of jobs still running
  std::string running_reason;             ///< Unfinished reason of a job that was running
  std::string pending_reason;             ///< ... that was waiting
  std::string not_arrived_reason = "arrives after the --until horizon";
};

class JobTable {
 public:
  /// All references must outlive the table. `model` is the true model (admission).
  JobTable(const Cluster& cluster, const Workload& workload, const ThroughputModel& model, LifecycleConfig config,
           std::vector<JobEventSink*> sinks);

  /// A policy's own admission test (SchedulingPolicy::reject_at_arrival): a reason rejects the job.
  using PolicyAdmission = std::function<std::optional<std::string>(const JobSpec&)>;
  /// Admission of job j at `now`: rejected (with a reason: the run's checks, then `policy_admission`
  /// when given), completed at once (no work), or pending.
  Admission arrive(JobIndex j, SimTime now, const PolicyAdmission& policy_admission = {});
  /// Starts job j on `gpus` (free, checked by the caller) at `rate` work units/s; a job asking for a
  /// fraction of a GPU (shares_gpu()) gets that share of its one GPU, free or shared with room. Charges the restart
  /// overhead (the job's own value, else the run's) and, at the first start, the profiling time:
  /// no progress before `resume_at`. The Started event reports the overhead as charged. `gpus` is
  /// copied into the job's own list, whose memory a round mechanism's restarts reuse.
  void start(JobIndex j, const std::vector<GpuId>& gpus, double rate, SimTime now);
  /// Takes job j's GPUs away (progress must be up to date); it waits again (Pending).
  void stop(JobIndex j, SimTime now, StopReason why);
  /// Running job j keeps its GPUs with a new global batch size and so a new `rate` from `now` on
  /// (progress must be up to date); its pending completion becomes stale.
  void change_batch(JobIndex j, int batch_size, double rate, SimTime now);
  /// Running job j keeps its GPUs and batch size at a new `rate` from `now` on (its share of the
  /// network changed; progress must be up to date); its pending completion becomes stale.
  void change_rate(JobIndex j, double rate, SimTime now);
  /// Job j finished all its work at `now`.
  void finish(JobIndex j, SimTime now);
  /// Space sharing (Gavel's packed policies, job_table_shared.cpp): pending job j starts on the GPUs
  /// of running job `host` without owning them (the cluster state keeps `host` as their owner), at
  /// `rate`; restart overhead as start(). Its events carry `shares_with = host`.
  void start_shared(JobIndex j, JobIndex host, double rate, SimTime now);
  /// Stops or finishes a job started by start_shared() (its host's GPUs stay with the host).
  void stop_shared(JobIndex j, JobIndex host, SimTime now, StopReason why);
  void finish_shared(JobIndex j, JobIndex host, SimTime now);
  /// Ends every job that is not final: running ones are stopped (after `bring_up_to_date`), then
  /// all become Unfinished with the reasons of `end`, in job order.
  void end_unfinished(SimTime now, const EndOfRun& end, const std::function<void(JobRuntime&)>& bring_up_to_date);
  /// Counts a refused policy request and keeps its message among the first few warnings.
  void refuse(std::string message);
  /// Keeps a warning that is not a refused request (e.g. a policy's note on its inputs).
  void warn(std::string message);
  /// Both mechanisms call this after every scheduling pass: the invariant checks of sched/invariants.hpp
  /// run here when they are on (the one hook; nothing happens otherwise).
  void end_pass(SimTime now) {
    if (checker_) checker_->after_pass(now, *this);
  }
  /// Both mechanisms call this for every engine event but an arrival: the clock moved for the run.
  void settle(SimTime now) { settled_ = now; }
  /// Tells the sinks the run ended at `end` (and checks that every job had its final event). Arrivals
  /// rejected after the last other event do not extend the run: the end is then that event's time
  /// (a job arriving past the 1e12 s horizon would otherwise end the run at its arrival).
  void end_run(SimTime end);

  /// Restart overhead charged when job j starts (the job's own value, else the run's).
  double restart_overhead_of(const JobRuntime& job) const;
  /// Jobs changed since the last clear_changed() (admitted, started, stopped, finished), each once.
  std::span<const JobIndex> changed() const { return changed_; }
  void clear_changed();

  JobRuntime& job(JobIndex j) { return jobs_[static_cast<std::size_t>(j)]; }
  const JobRuntime& job(JobIndex j) const { return jobs_[static_cast<std::size_t>(j)]; }
  const std::vector<JobRuntime>& jobs() const { return jobs_; }
  std::size_t size() const { return jobs_.size(); }
  bool valid(JobIndex j) const { return j >= 0 && static_cast<std::size_t>(j) < jobs_.size(); }
  const ClusterState& state() const { return state_; }
  /// Admitted jobs waiting for GPUs, in arrival order.
  const JobIndexSet& pending() const { return pending_; }
  /// Jobs holding GPUs, in arrival order.
  const JobIndexSet& running() const { return running_; }
  bool all_final() const { return final_jobs_ == jobs_.size(); }
  /// The invariant checker, or nullptr when checks are off.
  const InvariantChecker* invariants() const { return checker_.get(); }
  MechanismStats& stats() { return stats_; }
  const MechanismStats& stats() const { return stats_; }

 private:
  void mark_changed(JobIndex j);
  // Gives back a job's GPUs in the cluster state: whole, or its share of one (JobSpec::gpu_milli).
  void release_gpus(const JobRuntime& job);
  double open_allocation(JobRuntime& job, double rate, SimTime now);
  void back_to_pending(JobRuntime& job, StopReason why);
  void emit(SimTime now, JobEventKind kind, const JobRuntime& job, std::span<const GpuId> gpus,
            std::string_view reason = {}, StopReason stop = StopReason::None, double restart_s = 0.0);
  void emit_event(const JobEvent& event, const JobRuntime& job);

  const Cluster& cluster_;
  const ThroughputModel& model_;
  LifecycleConfig config_;
  std::vector<JobEventSink*> sinks_;
  ClusterState state_;
  std::vector<JobRuntime> jobs_;
  JobIndexSet pending_;  // flat bitmaps: a start or stop is two bit flips (issue 19)
  JobIndexSet running_;
  std::vector<JobIndex> changed_;
  std::vector<char> changed_flag_;  // per job: listed in changed_
  std::size_t final_jobs_ = 0;      // completed + rejected + unfinished
  SimTime settled_;                 // time of the last event other than a rejected arrival
  MechanismStats stats_;
  std::unique_ptr<InvariantChecker> checker_;  // null when checks are off
};

}  // namespace hetsim
