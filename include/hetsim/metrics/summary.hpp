#pragma once
/// Run-level statistics and the output files whose names and columns are a contract for scripts
/// and CI: jobs.csv and summary.json (docs/outputs.md).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/metrics/recorder.hpp"

namespace hetsim {

/// Statistics of one run. JCT statistics cover completed jobs only; percentiles interpolate
/// linearly between order statistics (numpy's default), so p50 of {1,2,3,4} is 2.5.
///
/// A statistic with nothing to measure is empty (nullopt; `null` in summary.json, "-" in tables),
/// never 0: a run that completed no job has no JCT, and 0 would read as the best possible value
/// to a sweep or the regression gate.
///
/// The observation window is [first submission, end_s] over admitted jobs: rejected jobs never
/// held a GPU, so their arrivals neither open nor extend it (a rejected job arriving last would
/// otherwise stretch the window and lower the utilisation, cloudsimplus #51, Ciw #125).
struct RunSummary {
  std::size_t jobs_read = 0;
  std::size_t completed = 0;
  std::size_t rejected = 0;
  std::size_t unfinished = 0;
  std::optional<double> jct_mean_s;
  std::optional<double> jct_p50_s;
  std::optional<double> jct_p95_s;
  std::optional<double> jct_p99_s;
  std::optional<double> queueing_mean_s;  ///< over jobs that started
  /// Deadlines, over the jobs that have one (JobSpec::deadline_s); summary.json carries them only
  /// when some job has one, so other runs keep their bytes. A job that never finished (rejected,
  /// unfinished) missed its deadline.
  std::size_t deadline_jobs = 0;                 ///< jobs with a deadline
  std::size_t deadlines_met = 0;                 ///< ... that completed at or before it
  std::optional<double> deadlines_met_fraction;  ///< deadlines_met / deadline_jobs
  /// Mean lateness (finish - deadline, s) over the jobs that completed after their deadline; jobs
  /// that never finished have no lateness and are counted in deadlines_missed_unfinished instead.
  /// Empty when no job completed late.
  std::optional<double> deadline_miss_s;
  std::size_t deadlines_missed_unfinished = 0;   ///< jobs with a deadline that never finished
  /// Last completion minus first submit over admitted jobs (empty when nothing completed).
  std::optional<double> makespan_s;
  /// Busy GPU-seconds over available GPU-seconds in the window (empty when the window is empty).
  std::optional<double> utilization;
  std::map<std::string, double> utilization_by_type;  ///< same, per GPU type name (empty window: none)
  std::map<std::string, double> gpu_hours_by_type;    ///< busy GPU-hours per GPU type name
  long long preemptions = 0;
  long long restarts = 0;
  double restart_s = 0.0;  ///< seconds jobs spent paying restart overhead, summed over jobs
  /// End of the window: the last completion of an admitted job, or the time the run stopped when
  /// admitted jobs were left unfinished (--until); empty when no job was admitted.
  std::optional<double> end_s;
  /// Time-averaged free GPUs stranded on partly used nodes, over the window.
  std::optional<double> stranded_free_gpus_mean;
  /// Share of the free GPU-time that was stranded on partly used nodes (0 = free GPUs always sat on
  /// wholly free nodes; 1 = every free GPU shared its node with a running job); 0 when no GPU-time
  /// was free, empty when the window is.
  std::optional<double> fragmentation;
  std::optional<double> ftf_rho_max;   ///< largest finish-time fairness rho over completed jobs (JobRecord::ftf_rho)
  std::optional<double> ftf_rho_mean;  ///< mean rho over completed jobs with a defined rho
  /// Jain's index (sum x)^2 / (n sum x^2) of the normalised throughputs x = ideal_s / JCT of
  /// completed jobs (1 = all jobs got the same fraction of their best speed).
  std::optional<double> jain_norm_throughput;
  // Filled by the gavel mechanism (0 otherwise).
  long long rounds = 0;
  long long allocations = 0;       ///< allocation computations
  long long solver_failures = 0;   ///< computations that fell back to the isolated allocation
  long long solver_node_limits = 0;  ///< MIP solves stopped at their node limit (deterministic)
  /// MIP solves stopped at the wall-time safety net: when > 0 the run is not reproducible.
  long long solver_time_limits = 0;
  double solver_s_total = 0.0;     ///< wall time in the LP/ILP solver
  double solver_s_max = 0.0;       ///< largest solver wall time of one computation
  /// Trace rows skipped on purpose (Workload::rows_skipped; not jobs, so not in jobs_read).
  std::size_t rows_skipped = 0;
  /// Notes of the trace reader and the cluster importer (Workload::notes); written to summary.json
  /// as "input_notes" (with "rows_skipped") only when there are any, so other runs keep their bytes.
  std::vector<std::string> input_notes;
};

/// Computes the summary from the recorder of a finished run.
RunSummary summarize(const RunRecorder& recorder, const Cluster& cluster);

/// Writes jobs.csv: one row per job read, in trace order. Columns: job_id, submit_s, start_s,
/// finish_s, jct_s, queueing_s, gpus, requested_gpus, gpu_types, preemptions, restarts,
/// restart_s, gpu_s, status, reason, ideal_s, active_at_arrival, ftf_rho, norm_throughput, deadline_s,
/// met_deadline (1 or 0). Empty cells where a value does not exist.
void write_jobs_csv(std::ostream& out, const std::vector<JobRecord>& records);

/// Metadata written beside the statistics in summary.json.
struct RunInfo {
  std::string cluster;
  std::string trace;
  std::string format;
  std::string policy;
  std::string placement;
  std::string throughput_model;
  std::uint64_t seed = 0;
  std::string mechanism;  ///< "event", "rounds" or "gavel"
  /// "alone" or "shared" (`--network`); summary.json names it only when shared, so runs that do
  /// not share keep their bytes.
  std::string network = "alone";
  /// Every setting of the run as experiment-spec keys (run_settings.hpp); empty for runs built
  /// in code (simulate()). Written as summary.json's `settings`.
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  /// The run's --timeline file, relative to its --out folder (empty without either): tells
  /// scripts/report.py and plot.py which of a folder's timelines is this run's.
  std::string timeline = {};
};

/// Writes summary.json (keys in a fixed order, so equal runs give equal bytes).
void write_summary_json(std::ostream& out, const RunSummary& summary, const RunInfo& info);

/// Human-readable table of the summary for stdout.
void print_summary_table(std::ostream& out, const RunSummary& summary, const RunInfo& info);

}  // namespace hetsim
