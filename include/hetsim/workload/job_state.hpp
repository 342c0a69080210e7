#pragma once
/// Run-time state of one job. Only sched/JobTable changes it; policies read it through PolicyView.
/// It lives in workload/ so that policy/ and sched/ both use it without including each other.
#include <cstdint>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/engine/sim_time.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Life cycle of a job. Pending and Running are "active"; the last three are final.
enum class JobStatus : std::uint8_t { NotArrived, Pending, Running, Completed, Rejected, Unfinished };

/// Lower-case name as written to jobs.csv ("completed", "rejected", "unfinished", ...).
const char* to_string(JobStatus status);

/// Mutable per-job state. Progress is exact: `remaining_work` is correct as of `updated`, and the
/// job advances at `rate` (work units/s) from max(updated, resume_at) on.
struct JobRuntime {
  const JobSpec* spec = nullptr;
  JobIndex index = 0;
  std::vector<GpuId> gpus;        ///< current allocation (empty unless Running)
  double remaining_work = 0.0;    ///< in spec->unit, as of `updated`
  double work_done = 0.0;         ///< spec->work - remaining_work, kept exactly for progress-dependent rates
  double rate = 0.0;              ///< work units per second on the current allocation
  SimTime updated;                ///< time remaining_work was last brought up to date
  SimTime resume_at;              ///< end of the current restart overhead (no progress before)
  SimTime allocated_since;        ///< when the current allocation began
  double attained_gpu_s = 0.0;    ///< GPU-seconds held so far (as of `updated`)
  std::uint64_t generation = 0;   ///< bumped on every allocation change; stale completions skip
  GpuTypeId gpu_type = -1;        ///< type of the current allocation (-1 when none)
  int batch_size = 0;             ///< global batch size the policy set (0 = the job's own)
  int preemptions = 0;            ///< times the job lost all its GPUs before finishing
  int restarts = 0;               ///< allocation changes that paid the restart overhead
  JobStatus status = JobStatus::NotArrived;
  // Why a job was rejected or left unfinished is in its JobEvent (and the JobRecord), not here:
  // a million jobs would carry a million empty strings.
};

}  // namespace hetsim
