#pragma once
/// Run-time invariants of one simulation, checked on every run of a debug or sanitizer build and
/// under `--check-invariants` in Release. The JobTable owns one InvariantChecker when checks are on
/// and feeds it every JobEvent as it is emitted and, through JobTable::end_pass(), the state after
/// every scheduling pass of either mechanism. The checker keeps its own books from the event stream
/// (who holds each GPU, each job's final event, each job's work as the integral of its rate), so a
/// rule compares two independent accounts and can fail. A violation throws InvariantViolation, an
/// internal error (exit code 1) naming the rule, the simulated time and the job.
///
/// Rules (docs/architecture.md lists them with their tolerances):
///   "no GPU held twice"              a Started event never names a GPU another job holds
///   "GPUs held = sum of allocations" after a pass: the cluster's used GPUs (in all and per type),
///                                    the running jobs' allocations and the GPUs the events gave
///                                    out agree; a job releases only GPUs it holds
///   "work done = integral of rate"   at completion: the checker's integral of the job's rate over
///                                    its productive time equals its work (event mechanism); under
///                                    Gavel's whole steps it covers the work and exceeds it by at
///                                    most one step per round held
///   "no leftover at completion"      event mechanism: the mechanism's remaining work when the
///                                    completion fires is within the same tolerance of zero
///   "no job finished twice"          a job has no event after its final one
///   "every job accounted for"        at the end each job read has exactly one final event, and
///                                    the summary's completed / rejected / unfinished counts are
///                                    the counts of those events
///   "utilisation in [0,1]"           the summary's utilisation, in all and per GPU type
#include <span>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/metrics/job_event.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/workload/job_state.hpp"

namespace hetsim {

struct RunSummary;
class JobTable;

/// Whether runs check their invariants when nobody says otherwise: on in debug builds (NDEBUG not
/// defined) and sanitizer builds (HETSIM_SANITIZE, a compile definition of the sanitize preset),
/// off in Release, where `--check-invariants` turns them on.
#if !defined(NDEBUG) || defined(HETSIM_SANITIZE)
inline constexpr bool kCheckInvariantsByDefault = true;
#else
inline constexpr bool kCheckInvariantsByDefault = false;
#endif

/// Tolerance of the work rules: relative to the job's work, plus the work of one microsecond (the
/// clock's resolution: completion times are rounded to it) at the job's rate, per allocation.
inline constexpr double kWorkRelativeTolerance = 1e-6;
inline constexpr double kWorkClockSlackS = 1e-6;
/// Slack of "utilisation in [0,1]" for the rounding of busy / available GPU-seconds.
inline constexpr double kUtilisationSlack = 1e-9;

/// A broken invariant: a bug in hetsim (or in a policy the mechanism failed to stop), never bad
/// input. what() = "invariant 'RULE' violated at t=T s: DETAIL".
class InvariantViolation : public std::logic_error {
 public:
  InvariantViolation(const std::string& rule, SimTime at, const std::string& detail);
  const std::string& rule() const { return rule_; }
  SimTime at() const { return at_; }

 private:
  std::string rule_;
  SimTime at_;
};

/// How a mechanism turns time on GPUs into work.
enum class ProgressKind : std::uint8_t {
  Exact,       ///< event mechanism: rate x productive time, integrated exactly
  WholeSteps,  ///< Gavel's rounds: whole steps per round, the rest of the round idle
  /// event mechanism under `--network shared`: the job's own rate (set by the link sharing, which
  /// the checker cannot recompute alone) x productive time, exactly
  SharedRates,
};

/// Final events counted from the stream (what "every job accounted for" compares the summary with).
struct FinalEventCounts {
  std::size_t completed = 0, rejected = 0, unfinished = 0;
};

class InvariantChecker {
 public:
  /// `jobs` = jobs read; `profiling_s` = the profiling time every job pays at its first start.
  InvariantChecker(const Cluster& cluster, const ThroughputModel& model, std::size_t jobs, ProgressKind progress,
                   double profiling_s);

  /// Every JobEvent, as emitted; `job` is the job's state at that moment.
  void on_event(const JobEvent& event, const JobRuntime& job);
  /// Just before job j is marked completed (its remaining work still the mechanism's).
  void before_completion(const JobRuntime& job, SimTime now) const;
  /// A running job's rate changed at `now` without an allocation change (a new batch size, or a
  /// new share of the network).
  void on_rate_change(const JobRuntime& job, SimTime now);
  /// After a scheduling pass at `now`: the allocations of the jobs changed since the last pass
  /// against the cluster state and the events, and the totals (O(changed jobs + GPU types)).
  void after_pass(SimTime now, const JobTable& table);
  /// At the end of the run: one final event per job read.
  void at_run_end(SimTime end) const;
  const FinalEventCounts& final_counts() const { return counts_; }

  /// "GPU n0/g3": node name and the GPU's index on its node.
  std::string gpu_name(GpuId gpu) const;
  /// The checker's integral of job j's rate so far (work units), for tests.
  double integrated_work(JobIndex j) const { return books_[static_cast<std::size_t>(j)].work; }

 private:
  // What the checker knows of one job, from its events alone.
  struct Books {
    const JobSpec* spec = nullptr;
    double work = 0.0;          // integral of the rate over productive time, closed segments
    SimTime productive_from;    // current allocation: progress from here (after the restart)
    double rate = 0.0;          // current allocation's rate (whole steps: as the mechanism set it)
    double max_rate = 0.0;      // fastest rate seen (for the clock slack)
    int batch_size = 0;         // current allocation's batch size
    std::uint32_t segments = 0;  // allocations (and batch changes) so far
    std::uint64_t rounds_held = 0;  // passes after which it was running, closed allocations
    std::uint64_t started_after_pass = 0;  // passes done when the current allocation started
    int counted_gpus = 0;        // its allocation as the last after_pass counted it from the table
    bool counted_sharing = false;  // the last after_pass counted it running on another job's GPUs
    JobIndex shares_with = -1;   // current allocation: the job whose GPUs it shares (space sharing)
    bool paired = false;         // current allocation is shared (as sharer or as host of a sharer)
    bool ended_paired = false;   // the allocation closed last was shared
    int counted_milli = 0;       // the same for a share of one GPU (JobSpec::gpu_milli), else 0
    bool started_once = false;
    bool dirty = false;          // an event since the last after_pass (listed in dirty_)
    JobEventKind final_kind = JobEventKind::Arrived;  // Arrived = no final event yet
    SimTime final_at;
  };
  void on_started(const JobEvent& event, const JobRuntime& job);
  void on_released(const JobEvent& event, const JobRuntime& job);
  void on_final(const JobEvent& event);
  void mark_dirty(JobIndex j);
  void open_segment(Books& books, const JobRuntime& job, const JobSpec& spec, std::span<const GpuId> gpus) const;
  void close_segment(Books& books, const JobRuntime& job, SimTime now) const;
  double work_tolerance(const Books& books, const JobSpec& spec) const;
  // One function per rule.
  void check_no_gpu_held_twice(const JobEvent& event) const;
  void check_share_fits(const JobEvent& event) const;
  void check_share_allocation(SimTime now, const JobRuntime& job, const JobTable& table) const;
  void check_shares_held(SimTime now, const JobTable& table) const;
  void on_share_started(const JobEvent& event);
  void on_share_released(const JobEvent& event);
  void check_release_of_held(const JobEvent& event) const;
  void check_host_holds(const JobEvent& event) const;
  void check_shared_allocation(SimTime now, const JobRuntime& job, JobIndex host, const JobTable& table) const;
  void check_allocation(SimTime now, const JobRuntime& job, const JobTable& table) const;
  void check_gpus_held(SimTime now, const JobTable& table);
  void check_work_done(const JobEvent& event, const Books& books) const;
  void check_not_finished_twice(const JobEvent& event, const Books& books) const;

  const Cluster& cluster_;
  const ThroughputModel& model_;
  ProgressKind progress_;
  double profiling_s_;
  std::vector<Books> books_;
  std::vector<std::int64_t> holder_;  // [gpu] job holding it per the events, or ClusterState::kFree
  std::int64_t held_ = 0;             // GPUs held per the events
  std::vector<int> held_by_type_;     // the same per GPU type (a shared GPU once)
  std::vector<int> share_milli_;      // [gpu] thousandths held by fractional jobs per the events
  std::vector<int> share_jobs_;       // [gpu] fractional jobs on it per the events
  std::int64_t shared_gpus_ = 0;      // GPUs with at least one share per the events
  std::int64_t share_milli_held_ = 0;  // thousandths held by fractional jobs per the events
  std::int64_t share_milli_allocated_ = 0;  // the same from the table's running jobs (after_pass)
  std::int64_t allocated_ = 0;        // sum of the allocations after_pass counted from the table
  std::size_t running_counted_ = 0;   // jobs after_pass counted as running
  std::vector<JobIndex> dirty_;       // jobs with an event since the last after_pass
  std::uint64_t passes_ = 0;
  FinalEventCounts counts_;
};

/// "utilisation in [0,1]" and the summary's half of "every job accounted for": the summary's counts
/// against the final events, its utilisation (in all and per type) in [0, 1]. `end` names the time.
void check_summary_invariants(const RunSummary& summary, const FinalEventCounts& finals, SimTime end);

}  // namespace hetsim
