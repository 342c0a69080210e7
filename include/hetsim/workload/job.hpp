#pragma once
/// A job as read from a trace: immutable for the whole run. Run-time state lives in the mechanism.
#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "hetsim/engine/sim_time.hpp"

namespace hetsim {

using JobIndex = std::int64_t;  ///< Position of a job in the run's job list (0-based, submit order).

/// What a job's work is counted in. The throughput model gives a rate in the same unit.
enum class WorkUnit : std::uint8_t {
  Iterations,        ///< training steps (Gavel traces, native traces with `iterations`)
  Epochs,            ///< passes over the data set (Heet prototype traces)
  ReferenceSeconds,  ///< seconds of run time at the requested GPU count on a speed-1.0 GPU (duration-only traces)
  /// Pollux statistical progress: iterations at the application's initial batch size, weighted by
  /// statistical efficiency (Pollux/Sia workloads, the goodput model)
  StatisticalProgress,
};

/// Name of a work unit as written in outputs and docs ("iterations", "epochs", "reference_seconds").
const char* to_string(WorkUnit unit);

/// One training job from a trace.
struct JobSpec {
  std::string id;                  ///< unique within the run (trace id, or "<format>-<line>")
  SimTime submit;                  ///< arrival time, relative to the trace start
  std::string job_type;            ///< model/job key understood by the throughput model ("" = none)
  int requested_gpus = 1;          ///< GPUs the user asked for (the scale factor)
  int min_gpus = 0;                ///< elastic range; rigid jobs have min = max = requested
  int max_gpus = 0;
  double work = 0.0;               ///< total work in `unit`; 0 = completes on arrival
  WorkUnit unit = WorkUnit::ReferenceSeconds;
  /// Thousandths of one GPU the job needs: 1000 = whole GPUs (the default); 1 .. 999 = a fraction
  /// of one GPU (then requested = min = max = 1 GPU), shared with other fractional jobs up to a
  /// whole GPU by the event mechanism (Alibaba OpenB's `gpu_milli`; Weng et al., "Beware of
  /// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", ATC'23).
  int gpu_milli = 1000;
  int global_batch_size = 0;       ///< 0 = unknown / not used
  double priority_weight = 1.0;
  /// Absolute simulated time (s, the trace's time base, like `submit`) by which the job should
  /// finish; none = no deadline. Read from the native `deadline_s` column and ElasticFlow's
  /// `deadline`; reported per job (met or not) and used by deadline-aware policies (edf, elasticflow).
  std::optional<double> deadline_s;
  /// Seconds without progress at every start, rescale or migration of this job; < 0 = the run's
  /// --restart-overhead. Sia's per-application costs are set here.
  double restart_overhead_s = -1.0;
  /// GPU types the job may run on (lower-case names, matched case-insensitively against the
  /// cluster's types); empty = any. Set by traces that record placement constraints (Alibaba
  /// OpenB `gpu_spec`); enforced by wrapping the run's throughput model (TypeConstrainedModel).
  std::vector<std::string> allowed_gpu_types;
  /// Where the job was read (for error messages); shared by the jobs of one file (one copy, not
  /// one per job: a million-job trace). Null = not read from a file.
  std::shared_ptr<const std::string> source_file;
  std::size_t source_line = 0;     ///< 1-based line in source_file
  /// A reason this job must be rejected at admission, found while reading (for example a negative
  /// duration). Empty = valid. The run rejects it with this reason instead of dropping it.
  std::string invalid_reason;
};

/// Whether `job` asks for a fraction of one GPU (JobSpec::gpu_milli below 1000).
inline bool shares_gpu(const JobSpec& job) { return job.gpu_milli < 1000; }

/// The jobs of one trace, sorted by submit time (stable: equal times keep file order).
struct Workload {
  std::vector<JobSpec> jobs;
  std::string source;  ///< file the jobs came from
  std::string format;  ///< reader that produced them
  /// Rows of the file that are not jobs of this simulation and were skipped on purpose (Alibaba
  /// OpenB CPU-only pods), counted so that nothing disappears silently.
  std::size_t rows_skipped = 0;
  /// One-line notes from the reader on how it interpreted the file (skipped rows, rules applied
  /// such as "GPU-sharing pods run on one whole GPU"); printed on stderr and in summary.json.
  std::vector<std::string> notes;
};

}  // namespace hetsim
