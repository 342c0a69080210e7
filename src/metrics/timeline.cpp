// Timelines streamed during the run. Trace format: "Trace Event Format", Google (JSON Object Format
// with a traceEvents array; opened by ui.perfetto.dev). Memory stays at the open allocations: a
// 300k-job run held every slice until the end before (2.76 GB against 290 MB without a timeline).
#include "hetsim/metrics/timeline.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetsim/util/csv.hpp"

namespace hetsim {
namespace {

// A JSON string literal; invalid UTF-8 in a job id becomes U+FFFD rather than an invalid file.
std::string json_string(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Busy GPUs from thousandths: a whole number as before, three decimals when GPUs are shared.
std::string gpus_text(long long milli) {
  return milli % 1000 == 0 ? fmt::format("{}", milli / 1000) : fmt::format("{:.3f}", static_cast<double>(milli) / 1000.0);
}

// Integer microseconds print exactly as seconds with six decimals.
std::string seconds_text(SimTime t) {
  const std::int64_t us = t.us();
  return fmt::format("{}{}.{:06d}", us < 0 ? "-" : "", std::abs(us) / 1000000, std::abs(us) % 1000000);
}

// The node is the trace "process", so pids start at 1 (some viewers treat pid 0 specially); the
// jobs process comes after the last node.
int pid_of(const Cluster& cluster, GpuId gpu) { return cluster.node_of(gpu) + 1; }
int jobs_pid(const Cluster& cluster) { return static_cast<int>(cluster.nodes().size()) + 1; }

std::string type_label(const Cluster& cluster, const std::vector<GpuId>& gpus) {
  std::vector<bool> seen(cluster.gpu_types().size(), false);
  for (GpuId g : gpus) seen[static_cast<std::size_t>(cluster.type_of(g))] = true;
  std::string label;
  for (std::size_t t = 0; t < seen.size(); ++t)
    if (seen[t]) label += (label.empty() ? "" : "+") + cluster.gpu_types()[t].name;
  return label;
}

}  // namespace

void JobStateCounter::on_event(const JobEvent& event) {
  const auto j = static_cast<std::size_t>(event.job);
  if (j >= state_.size()) state_.resize(j + 1, State::None);
  auto set = [&](State next) {
    State& s = state_[j];
    queued_ -= s == State::Queued;
    running_ -= s == State::Running;
    s = next;
    queued_ += s == State::Queued;
    running_ += s == State::Running;
  };
  switch (event.kind) {
    case JobEventKind::Arrived: set(State::Queued); break;
    case JobEventKind::Started: set(State::Running); break;
    // A preempted job waits again; a moved or resized one restarts at once (its Started follows at
    // the same instant), and the end of the run ends it.
    case JobEventKind::Stopped: set(event.stop_reason == StopReason::Preempted ? State::Queued : State::None); break;
    case JobEventKind::Rejected:  // at admission: it was never queued, so no count changes
    case JobEventKind::Completed:
    case JobEventKind::Unfinished: set(State::None); break;
  }
}

TimelineRecorder::TimelineRecorder(std::ostream& trace_json, std::ostream* allocations_csv)
    : trace_(trace_json), csv_(allocations_csv) {}

void TimelineRecorder::write_event(const std::string& json) {
  trace_ << (first_event_ ? "\n" : ",\n") << json;
  first_event_ = false;
}

void TimelineRecorder::on_run_start(const Cluster& c) {
  cluster_ = &c;
  busy_by_type_.assign(c.gpu_types().size(), 0);
  for (const GpuType& t : c.gpu_types()) type_names_.push_back(json_string(t.name));
  trace_ << R"({"displayTimeUnit":"ms","otherData":{"generator":"hetsim","time_unit":"1 us of trace time = 1 us of simulated time"},"traceEvents":[)";
  write_event(fmt::format(R"({{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{{"name":{}}}}})",
                          json_string("cluster " + c.name())));
  for (std::size_t n = 0; n < c.nodes().size(); ++n) {
    const Node& node = c.nodes()[n];
    const int pid = static_cast<int>(n) + 1;
    const std::string& type = c.gpu_types()[static_cast<std::size_t>(node.gpu_type)].name;
    write_event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})", pid,
                            json_string("node " + node.name + " (" + type + ")")));
    write_event(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})",
                            pid, pid));
    for (int g = 0; g < node.gpu_count; ++g)
      write_event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", pid,
                              node.first_gpu + g,
                              json_string(fmt::format("gpu {} ({}, id {})", g, type, node.first_gpu + g))));
  }
  const int jp = jobs_pid(c);
  write_event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":"jobs"}}}})", jp));
  write_event(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})",
                          jp, jp));
  if (csv_) *csv_ << "job_id,allocation,start_s,end_s,gpus,gpu_type,restart,end_reason\n";
}

void TimelineRecorder::close(std::size_t job, SimTime at, std::string_view reason) {
  if (job >= open_.size() || !open_[job].active) return;
  Open& o = open_[job];
  o.active = false;
  const Cluster& c = *cluster_;
  const std::int64_t dur = (at - o.start).us();
  const std::string id = json_string(o.id);
  const std::string end = json_string(reason);
  const std::string args = fmt::format(R"({{"job":{},"allocation":{},"gpus":{},"restart":{},"end":{}}})", id,
                                       o.allocation, o.gpus.size(), o.restart, end);
  const char* cat = o.restart ? "job,restart" : "job";
  for (GpuId gpu : o.gpus)
    write_event(fmt::format(R"({{"ph":"X","name":{},"cat":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{}}})", id,
                            cat, pid_of(c, gpu), gpu, o.start.us(), dur, args));
  const std::string types = type_label(c, o.gpus);
  // The job's own track: one slice per allocation, named by what it held.
  write_event(fmt::format(R"({{"ph":"X","name":{},"cat":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{}}})",
                          json_string(fmt::format("{} x {}", o.gpus.size(), types)), cat, jobs_pid(c), job + 1,
                          o.start.us(), dur, args));
  if (o.restart && !o.gpus.empty())
    write_event(fmt::format(R"({{"ph":"i","s":"t","name":{},"cat":"restart","pid":{},"tid":{},"ts":{},"args":{{"job":{},"allocation":{}}}}})",
                            json_string("restart"), pid_of(c, o.gpus.front()), o.gpus.front(), o.start.us(), id,
                            o.allocation));
  if (csv_) {
    *csv_ << csv_cell(o.id) << ',' << o.allocation << ',' << seconds_text(o.start) << ','
          << seconds_text(at) << ',' << o.gpus.size() << ',' << csv_cell(types) << ',' << (o.restart ? 1 : 0) << ','
          << csv_cell(std::string(reason)) << '\n';
  }
  ++slices_written_;
  for (GpuId g : o.gpus) busy_by_type_[static_cast<std::size_t>(c.type_of(g))] -= o.milli;
  o.gpus.clear();
  o.gpus.shrink_to_fit();
  o.id.clear();
  o.id.shrink_to_fit();
}

void TimelineRecorder::flush_counters() {
  if (!counters_pending_) return;
  counters_pending_ = false;
  const std::int64_t ts = counter_time_.us();
  if (busy_by_type_ != last_busy_by_type_) {
    std::string args;
    for (std::size_t t = 0; t < busy_by_type_.size(); ++t)
      args += fmt::format("{}{}:{}", t ? "," : "", type_names_[t], gpus_text(busy_by_type_[t]));
    write_event(fmt::format(R"({{"ph":"C","name":"busy GPUs","pid":0,"tid":0,"ts":{},"args":{{{}}}}})", ts, args));
    last_busy_by_type_ = busy_by_type_;
  }
  if (jobs_.queued() != last_queued_ || jobs_.running() != last_running_) {
    write_event(fmt::format(R"({{"ph":"C","name":"jobs","pid":0,"tid":0,"ts":{},"args":{{"queued":{},"running":{}}}}})",
                            ts, jobs_.queued(), jobs_.running()));
    last_queued_ = jobs_.queued();
    last_running_ = jobs_.running();
  }
}

void TimelineRecorder::on_event(const JobEvent& event) {
  // A rejected job never queued or held a GPU, and its arrival may lie past the end of the run (the
  // 1e12 s horizon): its time must not become a counter's instant.
  if (!cluster_ || event.kind == JobEventKind::Rejected) return;
  if (counters_pending_ && event.time != counter_time_) flush_counters();
  const auto j = static_cast<std::size_t>(event.job);
  if (j >= open_.size()) open_.resize(j + 1);
  jobs_.on_event(event);
  switch (event.kind) {
    case JobEventKind::Started: {
      close(j, event.time, "reallocated");  // a move without a Stopped event still ends the old slice
      Open& o = open_[j];
      o.id = event.spec ? event.spec->id : std::to_string(j);
      if (!o.named) {
        write_event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})",
                                jobs_pid(*cluster_), j + 1, json_string(o.id)));
        o.named = true;
      }
      o.active = true;
      o.allocation = next_allocation_++;
      o.gpus.assign(event.gpus.begin(), event.gpus.end());
      o.start = event.time;
      o.restart = event.restart;
      o.milli = event.spec && shares_gpu(*event.spec) ? event.spec->gpu_milli : 1000;
      for (GpuId g : o.gpus) busy_by_type_[static_cast<std::size_t>(cluster_->type_of(g))] += o.milli;
      break;
    }
    case JobEventKind::Stopped: close(j, event.time, event.reason.empty() ? "stopped" : event.reason); break;
    case JobEventKind::Completed: close(j, event.time, "completed"); break;
    case JobEventKind::Unfinished: close(j, event.time, "unfinished"); break;
    default: break;
  }
  counters_pending_ = true;
  counter_time_ = event.time;
}

void TimelineRecorder::on_run_end(SimTime end) {
  if (!cluster_) return;
  if (counters_pending_ && end != counter_time_) flush_counters();
  for (std::size_t j = 0; j < open_.size(); ++j) close(j, end, "run ended");
  counters_pending_ = true;
  counter_time_ = end;
  flush_counters();
  trace_ << "\n]}\n";
  cluster_ = nullptr;
}

void UtilizationRecorder::on_run_start(const Cluster& cluster) {
  cluster_ = &cluster;
  total_gpus_ = cluster.total_gpus();
  pending_.busy_by_type.assign(cluster.gpu_types().size(), 0);
  out_ << "time_s,busy_gpus,total_gpus,utilization,queued_jobs,running_jobs";
  for (const GpuType& t : cluster.gpu_types()) out_ << ',' << csv_cell("busy_" + t.name);
  out_ << '\n';
}

void UtilizationRecorder::write(const Row& r) {
  long long busy_milli = 0;
  for (int b : r.busy_by_type) busy_milli += b;
  const double busy = static_cast<double>(busy_milli) / 1000.0;
  out_ << seconds_text(r.time) << ',' << gpus_text(busy_milli) << ',' << total_gpus_ << ','
       << fmt::format("{:.6f}", total_gpus_ > 0 ? busy / total_gpus_ : 0.0) << ',' << r.queued << ',' << r.running;
  for (int b : r.busy_by_type) out_ << ',' << gpus_text(b);
  out_ << '\n';
  last_written_ = r;
  written_any_ = true;
}

void UtilizationRecorder::on_event(const JobEvent& event) {
  // As in TimelineRecorder: a rejection changes nothing, and its time may be past the run's end.
  if (!cluster_ || event.kind == JobEventKind::Rejected) return;
  // The previous instant is complete: keep it when it is the first or something changed.
  if (has_pending_ && pending_.time != event.time && (!written_any_ || !(pending_ == last_written_))) write(pending_);
  const auto j = static_cast<std::size_t>(event.job);
  if (j >= held_.size()) held_.resize(j + 1);
  // Busy GPUs are counted in thousandths: a share of one GPU (JobSpec::gpu_milli) adds its fraction.
  const int milli = event.spec && shares_gpu(*event.spec) ? event.spec->gpu_milli : 1000;
  auto release = [&] {
    for (GpuId g : held_[j]) pending_.busy_by_type[static_cast<std::size_t>(cluster_->type_of(g))] -= milli;
    held_[j].clear();
    held_[j].shrink_to_fit();
  };
  switch (event.kind) {
    case JobEventKind::Started:
      release();
      held_[j].assign(event.gpus.begin(), event.gpus.end());
      for (GpuId g : held_[j]) pending_.busy_by_type[static_cast<std::size_t>(cluster_->type_of(g))] += milli;
      break;
    case JobEventKind::Stopped:
    case JobEventKind::Completed:
    case JobEventKind::Unfinished: release(); break;
    default: break;
  }
  jobs_.on_event(event);
  pending_.queued = jobs_.queued();
  pending_.running = jobs_.running();
  pending_.time = event.time;
  has_pending_ = true;
}

void UtilizationRecorder::on_run_end(SimTime end) {
  if (!cluster_) return;
  if (has_pending_ && pending_.time != end && (!written_any_ || !(pending_ == last_written_))) write(pending_);
  pending_.time = end;
  write(pending_);  // the last row, always
  cluster_ = nullptr;
}

}  // namespace hetsim
