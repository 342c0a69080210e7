// Chrome trace-event output (format: "Trace Event Format", Google, the JSON Object Format with a
// traceEvents array; read by Perfetto and chrome://tracing).
#include "hetsim/metrics/timeline.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "hetsim/util/csv.hpp"

namespace hetsim {
namespace {

// The node is the trace "process", so pids start at 1 (some viewers treat pid 0 specially).
int pid_of(const Cluster& cluster, GpuId gpu) { return cluster.node_of(gpu) + 1; }

}  // namespace

void TimelineRecorder::on_run_start(const Cluster& cluster) { cluster_ = cluster; }

void TimelineRecorder::close(std::size_t job, SimTime at, std::string_view reason) {
  if (job >= open_.size() || !open_[job].active) return;
  Open& o = open_[job];
  o.active = false;
  o.slice.end = at;
  o.slice.end_reason = std::string(reason);
  slices_.push_back(std::move(o.slice));
  o.slice = {};
}

void TimelineRecorder::on_event(const JobEvent& event) {
  const auto j = static_cast<std::size_t>(event.job);
  if (j >= open_.size()) open_.resize(j + 1);
  switch (event.kind) {
    case JobEventKind::Started: {
      close(j, event.time, "reallocated");  // a move without a Stopped event still ends the old slice
      Open& o = open_[j];
      o.active = true;
      o.slice = TimelineSlice{event.spec ? event.spec->id : std::to_string(j), next_allocation_++,
                              std::vector<GpuId>(event.gpus.begin(), event.gpus.end()), event.time, event.time,
                              event.restart, ""};
      break;
    }
    case JobEventKind::Stopped: close(j, event.time, event.reason.empty() ? "stopped" : event.reason); break;
    case JobEventKind::Completed: close(j, event.time, "completed"); break;
    case JobEventKind::Unfinished: close(j, event.time, "unfinished"); break;
    default: break;
  }
}

void TimelineRecorder::on_run_end(SimTime end) {
  for (std::size_t j = 0; j < open_.size(); ++j) close(j, end, "run ended");
}

void TimelineRecorder::write(std::ostream& out) const {
  using nlohmann::ordered_json;
  ordered_json events = ordered_json::array();
  if (cluster_) {
    const Cluster& c = *cluster_;
    for (std::size_t n = 0; n < c.nodes().size(); ++n) {
      const Node& node = c.nodes()[n];
      const int pid = static_cast<int>(n) + 1;
      const std::string type = c.gpu_types()[static_cast<std::size_t>(node.gpu_type)].name;
      events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0},
                        {"args", {{"name", "node " + node.name + " (" + type + ")"}}}});
      events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0},
                        {"args", {{"sort_index", pid}}}});
      for (int g = 0; g < node.gpu_count; ++g) {
        const GpuId gpu = node.first_gpu + g;
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", gpu},
                          {"args", {{"name", "gpu " + std::to_string(g) + " (" + type + ", id " + std::to_string(gpu) + ")"}}}});
      }
    }
    // Slices in allocation order, so the file reads in the order jobs started.
    std::vector<const TimelineSlice*> order;
    for (const TimelineSlice& s : slices_) order.push_back(&s);
    std::sort(order.begin(), order.end(),
              [](const TimelineSlice* a, const TimelineSlice* b) { return a->allocation < b->allocation; });
    std::vector<std::pair<SimTime, int>> deltas;  // busy GPU changes for the counter track
    for (const TimelineSlice* s : order) {
      for (GpuId gpu : s->gpus) {
        events.push_back({{"ph", "X"}, {"name", s->job_id}, {"cat", s->restart ? "job,restart" : "job"},
                          {"pid", pid_of(c, gpu)}, {"tid", gpu}, {"ts", s->start.us()},
                          {"dur", (s->end - s->start).us()},
                          {"args", {{"job", s->job_id}, {"allocation", s->allocation}, {"gpus", s->gpus.size()},
                                    {"restart", s->restart}, {"end", s->end_reason}}}});
      }
      if (s->restart && !s->gpus.empty())
        events.push_back({{"ph", "i"}, {"s", "t"}, {"name", "restart " + s->job_id}, {"cat", "restart"},
                          {"pid", pid_of(c, s->gpus.front())}, {"tid", s->gpus.front()}, {"ts", s->start.us()},
                          {"args", {{"job", s->job_id}, {"allocation", s->allocation}}}});
      deltas.emplace_back(s->start, static_cast<int>(s->gpus.size()));
      deltas.emplace_back(s->end, -static_cast<int>(s->gpus.size()));
    }
    std::stable_sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int busy = 0;
    for (std::size_t i = 0; i < deltas.size(); ++i) {
      busy += deltas[i].second;
      if (i + 1 < deltas.size() && deltas[i + 1].first == deltas[i].first) continue;
      events.push_back({{"ph", "C"}, {"name", "busy GPUs"}, {"pid", 0}, {"tid", 0}, {"ts", deltas[i].first.us()},
                        {"args", {{"busy", busy}}}});
    }
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"tid", 0},
                      {"args", {{"name", "cluster " + c.name()}}}});
  }
  ordered_json root;
  root["traceEvents"] = std::move(events);
  root["displayTimeUnit"] = "ms";
  root["otherData"] = {{"generator", "hetsim"}, {"time_unit", "1 us of trace time = 1 us of simulated time"}};
  out << root.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void UtilizationRecorder::on_run_start(const Cluster& cluster) {
  cluster_ = cluster;
  busy_by_type_.assign(cluster.gpu_types().size(), 0);
}

void UtilizationRecorder::record(SimTime at) {
  if (!rows_.empty() && rows_.back().time == at) {
    rows_.back().busy_by_type = busy_by_type_;
  } else {
    rows_.push_back(Row{at, busy_by_type_});
  }
}

void UtilizationRecorder::on_event(const JobEvent& event) {
  if (!cluster_) return;
  const auto j = static_cast<std::size_t>(event.job);
  if (j >= held_.size()) held_.resize(j + 1);
  auto release = [&] {
    for (GpuId g : held_[j]) --busy_by_type_[static_cast<std::size_t>(cluster_->type_of(g))];
    held_[j].clear();
  };
  switch (event.kind) {
    case JobEventKind::Started:
      release();
      held_[j].assign(event.gpus.begin(), event.gpus.end());
      for (GpuId g : held_[j]) ++busy_by_type_[static_cast<std::size_t>(cluster_->type_of(g))];
      break;
    case JobEventKind::Stopped:
    case JobEventKind::Completed:
    case JobEventKind::Unfinished: release(); break;
    default: break;
  }
  record(event.time);
}

void UtilizationRecorder::on_run_end(SimTime end) {
  if (cluster_) record(end);
}

void UtilizationRecorder::write_csv(std::ostream& out) const {
  out << "time_s,busy_gpus,total_gpus,utilization";
  if (cluster_)
    for (const GpuType& t : cluster_->gpu_types()) out << ',' << csv_cell("busy_" + t.name);
  out << '\n';
  if (!cluster_) return;
  const int total = cluster_->total_gpus();
  int last_busy = -1;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    int busy = 0;
    for (int b : r.busy_by_type) busy += b;
    // Keep the first and last rows, and rows where something changed.
    if (i != 0 && i + 1 != rows_.size() && busy == last_busy && r.busy_by_type == rows_[i - 1].busy_by_type) continue;
    last_busy = busy;
    // Integer microseconds print exactly as seconds with six decimals.
    const std::int64_t us = r.time.us();
    out << fmt::format("{}{}.{:06d},{},{},{:.6f}", us < 0 ? "-" : "", std::abs(us) / 1000000, std::abs(us) % 1000000, busy,
                       total, total > 0 ? static_cast<double>(busy) / total : 0.0);
    for (int b : r.busy_by_type) out << ',' << b;
    out << '\n';
  }
}

}  // namespace hetsim
