#pragma once
/// What the mechanism emits (OMNeT++-style signals): sinks turn these into tables and statistics.
#include <cstdint>
#include <span>
#include <string_view>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/engine/sim_time.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Kinds of job events, in the order they can happen to one job.
enum class JobEventKind : std::uint8_t {
  Arrived,     ///< submitted and admitted
  Rejected,    ///< refused at admission (`reason` says why)
  Started,     ///< began running on `gpus` (first start, resume, move or resize)
  Stopped,     ///< lost the allocation in `gpus` (preempted, moved or resized: `reason`)
  Completed,   ///< finished all its work; its GPUs (`gpus`) are free again
  Unfinished,  ///< still pending or running when the run ended (`reason`)
};

/// Why a job lost its GPUs (JobEvent::stop_reason of a Stopped event). Only Preempted counts as a
/// preemption; the others are moves, resizes and the end of the run.
enum class StopReason : std::uint8_t {
  None,       ///< not a Stopped event
  Preempted,  ///< the policy took all its GPUs; it waits again
  Moved,      ///< it restarts at once on other GPUs
  Resized,    ///< it restarts at once on another number of GPUs of the same type
  Horizon,    ///< the --until horizon ended the run
  RunEnded,   ///< no event was left while it ran (it would finish beyond the simulation horizon)
};

/// Lower-case name, as written in timelines and reasons ("preempted", "moved", ...).
const char* to_string(StopReason reason);

/// One event. `gpus` and `reason` are views valid only during the callback.
struct JobEvent {
  SimTime time;
  JobEventKind kind = JobEventKind::Arrived;
  JobIndex job = 0;
  const JobSpec* spec = nullptr;
  std::span<const GpuId> gpus;
  std::string_view reason;
  StopReason stop_reason = StopReason::None;  ///< Stopped: why (reason holds the same as text)
  bool restart = false;  ///< Started: the restart overhead is paid before progress resumes
  double restart_s = 0.0;  ///< Started: length of that restart overhead (s)
  /// Space sharing: the job whose GPUs these are (it owns them; this job shares them), -1 = none.
  JobIndex shares_with = -1;
};

/// Receives job events in simulation order.
class JobEventSink {
 public:
  virtual ~JobEventSink() = default;
  /// Called once before the first event with the run's cluster (valid for the whole run), so
  /// sinks created before the cluster was loaded (timelines) can size their tables.
  virtual void on_run_start(const Cluster& cluster) { (void)cluster; }
  virtual void on_event(const JobEvent& event) = 0;
  /// Called once when the run ends at `end` (the time of the last event handled).
  virtual void on_run_end(SimTime end) { (void)end; }
};

}  // namespace hetsim
