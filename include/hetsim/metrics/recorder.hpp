#pragma once
/// The standard sink: builds one row per job and the utilisation counters from job events.
#include <optional>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/metrics/job_event.hpp"
#include "hetsim/workload/job_state.hpp"

namespace hetsim {

/// One row of jobs.csv. Times are seconds since the trace start; -1 = never happened.
struct JobRecord {
  std::string job_id;
  double submit_s = 0.0;
  double start_s = -1.0;   ///< first time it held GPUs (= finish for zero-work jobs)
  double finish_s = -1.0;
  int requested_gpus = 0;
  int gpus = 0;            ///< GPUs of its last allocation
  std::string gpu_types;   ///< every GPU type it ran on, in cluster order, joined by '|'
  int preemptions = 0;
  int restarts = 0;        ///< starts that paid the restart overhead
  double restart_s = 0.0;  ///< seconds spent paying restart overhead
  double gpu_s = 0.0;      ///< GPU-seconds held
  std::string reason;      ///< why rejected or unfinished
  /// Ideal run time: work over the job's best rate at its requested GPU count (fastest type, the
  /// job alone); -1 when unknown. Set by the run from the throughput model.
  double ideal_s = -1.0;
  /// N: admitted, unfinished jobs just after the instant the job was admitted (itself and every job
  /// admitted at the same instant included).
  int active_at_arrival = 0;
  /// The job's deadline (JobSpec::deadline_s, absolute s); none when it has none.
  std::optional<double> deadline_s;
  /// Completed, Rejected or Unfinished (written as to_string(status)); NotArrived until the run ends.
  JobStatus status = JobStatus::NotArrived;
  /// JCT = finish - submit, for completed jobs.
  double jct_s() const { return finish_s - submit_s; }
  /// Queueing delay = first start - submit, for jobs that started.
  double queueing_s() const { return start_s - submit_s; }
  /// Finish-time fairness rho = JCT / (N * ideal_s): JCT over the JCT with an isolated 1/N share of
  /// the cluster, N = active_at_arrival (Themis, NSDI'20, with the share fixed at arrival). -1 when
  /// not completed or ideal_s unknown/zero.
  double ftf_rho() const;
  /// Normalised throughput = ideal_s / JCT (fraction of its best isolated speed the job got over
  /// its life); -1 when undefined.
  double norm_throughput() const;
  /// True when the job has a deadline and completed at or before it; a job that never finished
  /// (rejected, or unfinished at the end of the run) missed it. Meaningless without a deadline.
  bool met_deadline() const { return deadline_s && status == JobStatus::Completed && finish_s <= *deadline_s; }
};

/// Collects JobRecords and busy GPU-seconds per GPU type.
class RunRecorder final : public JobEventSink {
 public:
  /// `jobs` is the number of jobs read. Restart time is taken from each Started event.
  RunRecorder(const Cluster& cluster, std::size_t jobs);
  void on_event(const JobEvent& event) override;
  void on_run_end(SimTime end) override;
  /// Ideal run times per job (trace order), see JobRecord::ideal_s.
  void set_ideal_runtimes(const std::vector<double>& ideal_s);

  /// One record per job (trace order). Built on first call, after the run: during it the recorder
  /// keeps a compact row per job (a million-job run would otherwise hold its records next to the
  /// mechanism's job state).
  const std::vector<JobRecord>& records() const;
  /// The records, moved out (the recorder is done): a million-job run keeps one copy, not two.
  std::vector<JobRecord> take_records();
  /// Busy (allocated) GPU-seconds per GPU type; a job holding a fraction of a GPU (JobSpec::gpu_milli)
  /// counts that fraction.
  const std::vector<double>& busy_gpu_s_by_type() const { return busy_by_type_; }
  /// Time of the last event handled.
  SimTime end() const { return end_; }
  /// Integral over time of the free GPUs stranded on partly used nodes (GPU-seconds): a free GPU
  /// counts while at least one other GPU of its node is allocated.
  double stranded_free_gpu_s() const { return stranded_gpu_s_; }

 private:
  // What the run knows of a job: a JobRecord without its strings (id and submit time come from
  // the spec, the GPU types from types_used_, reasons from reasons_).
  struct Row {
    const JobSpec* spec = nullptr;
    double start_s = -1.0, finish_s = -1.0, restart_s = 0.0, gpu_s = 0.0, ideal_s = -1.0;
    double alloc_since_s = 0.0;  // start of the current allocation
    double restart_len_s = 0.0;  // restart overhead of the current allocation
    int gpus = 0, preemptions = 0, restarts = 0, active_at_arrival = 0;
    JobStatus status = JobStatus::NotArrived;
    bool arrived = false;
  };
  void build_records() const;
  const Cluster& cluster_;
  std::vector<Row> rows_;
  std::vector<std::pair<std::size_t, std::string>> reasons_;  // (job, why rejected or unfinished)
  mutable std::vector<JobRecord> records_;
  mutable bool built_ = false;
  std::vector<char> types_used_;  // [job * types + type]: the job ran on that type
  std::vector<double> busy_by_type_;
  int active_ = 0;
  void close_group();
  std::vector<std::size_t> group_;  // jobs admitted at group_time_, not yet given their count
  int group_active_ = 0;            // active jobs after the group's last admission
  SimTime group_time_;
  SimTime end_;
  // Fragmentation bookkeeping: allocated GPUs per node, the current stranded count, its integral.
  void integrate_to(double now_s);
  void change_used(std::span<const GpuId> gpus, int delta);
  std::vector<int> used_on_node_;
  // A GPU shared by fractional jobs is used once, by its first share: jobs on it, per GPU (sized
  // at the first share).
  std::vector<int> shares_on_gpu_;
  void change_shared_use(GpuId gpu, int delta);
  int stranded_now_ = 0;
  double stranded_gpu_s_ = 0.0;
  double stranded_since_s_ = 0.0;
};

}  // namespace hetsim
