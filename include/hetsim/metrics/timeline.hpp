#pragma once
/// A run's timeline, streamed while the run goes (memory: the open allocations only, not the run):
///  - TimelineRecorder: Chrome trace-event JSON (the "JSON Object Format" of the Trace Event
///    Format, which ui.perfetto.dev opens offline-capable in the browser): one process per node
///    and one thread (track) per GPU with one complete ("X") slice per allocation on every GPU it
///    holds, a "jobs" process with one track per job (its allocations), restarts as instant
///    events, and counter tracks of busy GPUs per GPU type and of queued and running jobs; and,
///    optionally, the same allocations as CSV (one row each) for tools that draw their own.
///  - UtilizationRecorder: busy GPUs per type and queued/running jobs over time as CSV.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hetsim/metrics/job_event.hpp"

namespace hetsim {

/// Queued and running jobs from job events, shared by the recorders below. A job is queued from
/// arrival (or preemption) to its start, running from a start to its stop, completion or the end.
class JobStateCounter {
 public:
  void on_event(const JobEvent& event);
  int queued() const { return queued_; }
  int running() const { return running_; }

 private:
  enum class State : std::uint8_t { None, Queued, Running };
  std::vector<State> state_;  // by job index
  int queued_ = 0;
  int running_ = 0;
};

/// Writes the trace-event JSON (and the allocations CSV) as the run goes: header and track names
/// at the start, each allocation when it ends, counters when simulated time moves on, the closing
/// bracket at the end. Times in microseconds of simulated time. Compact (no indentation). Equal
/// runs give equal bytes. The streams must outlive the run; nothing is written after on_run_end.
class TimelineRecorder final : public JobEventSink {
 public:
  /// `allocations_csv` may be null. CSV header:
  /// job_id,allocation,start_s,end_s,gpus,gpu_type,restart,end_reason (gpu_type: the type's name,
  /// or the names joined by '+' in cluster order when an allocation mixes types).
  explicit TimelineRecorder(std::ostream& trace_json, std::ostream* allocations_csv = nullptr);

  void on_run_start(const Cluster& cluster) override;
  void on_event(const JobEvent& event) override;
  void on_run_end(SimTime end) override;

  /// Allocations written so far (a count, so tests can check without parsing).
  std::size_t slices_written() const { return slices_written_; }

 private:
  struct Open {
    bool active = false;
    bool named = false;  // the job's track name is written
    std::size_t allocation = 0;
    std::string id;  // the job's id, kept while the allocation is open
    std::vector<GpuId> gpus;
    SimTime start;
    bool restart = false;
    int milli = 1000;  // thousandths of each GPU held (a share of one GPU: JobSpec::gpu_milli)
  };
  void close(std::size_t job, SimTime at, std::string_view reason);
  void write_event(const std::string& json);
  void flush_counters();  // the counters of the last instant, when time moves past it

  std::ostream& trace_;
  std::ostream* csv_;
  const Cluster* cluster_ = nullptr;  // valid from on_run_start to on_run_end
  std::vector<std::string> type_names_;
  std::vector<Open> open_;  // by job index
  std::vector<int> busy_by_type_;  // thousandths of a GPU (1000 = one whole GPU)
  JobStateCounter jobs_;
  std::size_t next_allocation_ = 0;
  std::size_t slices_written_ = 0;
  bool first_event_ = true;
  bool counters_pending_ = false;
  SimTime counter_time_;
  std::vector<int> last_busy_by_type_;
  int last_queued_ = -1, last_running_ = -1;
};

/// Busy GPUs over time: a step function with one CSV row per instant where something changed (the
/// values after all events of that instant), streamed. Header
/// time_s,busy_gpus,total_gpus,utilization,queued_jobs,running_jobs,busy_<type>... (one column per
/// GPU type in cluster order); the first row at the first event, the last at the end of the run.
/// Times in seconds with six decimals.
class UtilizationRecorder final : public JobEventSink {
 public:
  explicit UtilizationRecorder(std::ostream& csv) : out_(csv) {}
  void on_run_start(const Cluster& cluster) override;
  void on_event(const JobEvent& event) override;
  void on_run_end(SimTime end) override;

 private:
  struct Row {
    SimTime time;
    std::vector<int> busy_by_type;  // thousandths of a GPU (1000 = one whole GPU)
    int queued = 0;
    int running = 0;
    bool operator==(const Row& o) const {
      return busy_by_type == o.busy_by_type && queued == o.queued && running == o.running;
    }
  };
  void write(const Row& row);

  std::ostream& out_;
  const Cluster* cluster_ = nullptr;
  int total_gpus_ = 0;
  std::vector<std::vector<GpuId>> held_;  // by job index
  JobStateCounter jobs_;
  Row pending_;  // the state at the latest instant, not yet written
  bool has_pending_ = false;
  bool written_any_ = false;
  Row last_written_;
};

}  // namespace hetsim
