#pragma once
/// A run as Chrome trace-event JSON (the "JSON Object Format" of the Trace Event Format, which
/// Perfetto and chrome://tracing open): one process per node, one thread (track) per GPU, one
/// complete ("X") slice per job allocation on every GPU it holds, restarts as instant events, and a
/// counter track of busy GPUs.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hetsim/metrics/job_event.hpp"

namespace hetsim {

/// One allocation interval of one job, as the timeline records it.
struct TimelineSlice {
  std::string job_id;
  std::size_t allocation = 0;  ///< 0-based allocation number in the run (order of Started events)
  std::vector<GpuId> gpus;
  SimTime start;
  SimTime end;
  bool restart = false;  ///< the allocation began by paying the restart overhead
  std::string end_reason;  ///< "completed", "unfinished", or the Stopped reason
};

/// Records allocations from job events and writes the trace. Attach it to one run (extra sink of
/// run_simulation); write() after the run.
class TimelineRecorder final : public JobEventSink {
 public:
  void on_run_start(const Cluster& cluster) override;
  void on_event(const JobEvent& event) override;
  void on_run_end(SimTime end) override;

  /// Every closed allocation, in the order they ended (ties: allocation order).
  const std::vector<TimelineSlice>& slices() const { return slices_; }
  /// Writes the trace-event JSON: times in microseconds of simulated time (1 simulated second =
  /// 1 s on the viewer's axis). Deterministic: equal runs give equal bytes.
  void write(std::ostream& out) const;

 private:
  void close(std::size_t job, SimTime at, std::string_view reason);

  // A copy: write() runs after run_simulation has dropped its cluster.
  std::optional<Cluster> cluster_;
  struct Open {
    bool active = false;
    TimelineSlice slice;
  };
  std::vector<Open> open_;  // by job index
  std::vector<TimelineSlice> slices_;
  std::size_t next_allocation_ = 0;
};

/// Busy GPUs over time from job events: a step function sampled at every instant where the busy
/// count changes (the value after all events of that instant).
class UtilizationRecorder final : public JobEventSink {
 public:
  void on_run_start(const Cluster& cluster) override;
  void on_event(const JobEvent& event) override;
  void on_run_end(SimTime end) override;

  /// Writes CSV with header time_s,busy_gpus,total_gpus,utilization,busy_<type>... (one column per
  /// GPU type in cluster order): one row per change, the first at the first event, the last at the
  /// end of the run. Times in seconds with six decimals.
  void write_csv(std::ostream& out) const;

 private:
  struct Row {
    SimTime time;
    std::vector<int> busy_by_type;
  };
  void record(SimTime at);

  std::optional<Cluster> cluster_;  // a copy, as above
  std::vector<std::vector<GpuId>> held_;  // by job index
  std::vector<int> busy_by_type_;
  std::vector<Row> rows_;
};

}  // namespace hetsim
