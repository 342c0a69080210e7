#include "hetsim/metrics/summary.hpp"

#include <algorithm>
#include <filesystem>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <iterator>
#include <limits>
#include <string_view>
#include <nlohmann/json.hpp>

#include "hetsim/util/csv.hpp"
#include "hetsim/util/stats.hpp"
#include "hetsim/version.hpp"

namespace hetsim {

namespace {

// The observation window of admitted jobs (RunSummary): from the first submission to the last
// completion, or to the run's stop when some were left unfinished.
struct Window {
  double begin_s = std::numeric_limits<double>::infinity();
  double last_finish_s = -std::numeric_limits<double>::infinity();
  bool unfinished = false;
  bool empty() const { return !std::isfinite(begin_s); }
  double end_s(double run_end_s) const { return unfinished ? std::max(run_end_s, last_finish_s) : last_finish_s; }
};

std::optional<double> mean_of(double sum, std::size_t n) {
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

// JCT statistics, makespan and queueing delay from the job records.
Window summarize_jobs(const std::vector<JobRecord>& records, RunSummary& s) {
  Window w;
  std::vector<double> jcts;
  double queue_sum = 0.0;
  std::size_t started = 0;
  for (const JobRecord& r : records) {
    if (r.status == JobStatus::Completed) {
      ++s.completed;
      jcts.push_back(r.jct_s());
      w.last_finish_s = std::max(w.last_finish_s, r.finish_s);
    } else if (r.status == JobStatus::Rejected) {
      ++s.rejected;
      continue;
    } else {
      ++s.unfinished;
      w.unfinished = true;
    }
    w.begin_s = std::min(w.begin_s, r.submit_s);
    if (r.start_s >= 0) {
      ++started;
      queue_sum += r.queueing_s();
    }
    s.preemptions += r.preemptions;
    s.restarts += r.restarts;
    s.restart_s += r.restart_s;
  }
  if (!jcts.empty()) {
    double sum = 0.0;
    for (double j : jcts) sum += j;
    s.jct_mean_s = sum / static_cast<double>(jcts.size());
    s.jct_p50_s = percentile(jcts, 50);
    s.jct_p95_s = percentile(jcts, 95);
    s.jct_p99_s = percentile(jcts, 99);
    s.makespan_s = w.last_finish_s - w.begin_s;
  }
  s.queueing_mean_s = mean_of(queue_sum, started);
  return w;
}

// Finish-time fairness and Jain's index over completed jobs with a known ideal run time.
void summarize_fairness(const std::vector<JobRecord>& records, RunSummary& s) {
  double rho_sum = 0.0, rho_max = 0.0, x_sum = 0.0, x_sq = 0.0;
  std::size_t rho_n = 0, x_n = 0;
  for (const JobRecord& r : records) {
    if (double rho = r.ftf_rho(); rho >= 0.0) {
      rho_max = std::max(rho_max, rho);
      rho_sum += rho;
      ++rho_n;
    }
    if (double x = r.norm_throughput(); x >= 0.0) {
      x_sum += x;
      x_sq += x * x;
      ++x_n;
    }
  }
  if (rho_n > 0) s.ftf_rho_max = rho_max;
  s.ftf_rho_mean = mean_of(rho_sum, rho_n);
  if (x_n > 0 && x_sq > 0.0) s.jain_norm_throughput = x_sum * x_sum / (static_cast<double>(x_n) * x_sq);
}

// Deadlines met and missed over the jobs that have one (see RunSummary).
void summarize_deadlines(const std::vector<JobRecord>& records, RunSummary& s) {
  double late_sum_s = 0.0;
  std::size_t late = 0;
  for (const JobRecord& r : records) {
    if (!r.deadline_s) continue;
    ++s.deadline_jobs;
    if (r.met_deadline()) {
      ++s.deadlines_met;
    } else if (r.status == JobStatus::Completed) {
      late_sum_s += r.finish_s - *r.deadline_s;
      ++late;
    } else {
      ++s.deadlines_missed_unfinished;
    }
  }
  if (s.deadline_jobs > 0)
    s.deadlines_met_fraction = static_cast<double>(s.deadlines_met) / static_cast<double>(s.deadline_jobs);
  s.deadline_miss_s = mean_of(late_sum_s, late);
}

}  // namespace

RunSummary summarize(const RunRecorder& recorder, const Cluster& cluster) {
  RunSummary s;
  const auto& records = recorder.records();
  s.jobs_read = records.size();
  const Window w = summarize_jobs(records, s);
  summarize_fairness(records, s);
  summarize_deadlines(records, s);
  double busy_total = 0.0;
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t)
    s.gpu_hours_by_type[cluster.gpu_types()[t].name] = recorder.busy_gpu_s_by_type()[t] / 3600.0;
  if (w.empty()) return s;
  s.end_s = w.end_s(recorder.end().seconds());
  const double window = *s.end_s - w.begin_s;
  if (!(window > 0)) return s;
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
    const double busy = recorder.busy_gpu_s_by_type()[t];
    busy_total += busy;
    const double avail = window * cluster.gpus_of_type(static_cast<GpuTypeId>(t));
    if (avail > 0) s.utilization_by_type[cluster.gpu_types()[t].name] = busy / avail;
  }
  const double avail_total = window * cluster.total_gpus();
  if (avail_total > 0) s.utilization = busy_total / avail_total;
  const double free_gpu_s = avail_total - busy_total;
  s.stranded_free_gpus_mean = recorder.stranded_free_gpu_s() / window;
  s.fragmentation = free_gpu_s > 0 ? std::min(1.0, recorder.stranded_free_gpu_s() / free_gpu_s) : 0.0;
  return s;
}

namespace {
double round6(double v) { return std::round(v * 1e6) / 1e6; }
// An empty statistic is JSON null (see RunSummary).
nlohmann::ordered_json round6(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(round6(*v)) : nlohmann::ordered_json(nullptr);
}
// The same for the table: "-" in the value's column.
std::string table_cell(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string("-");
}

// One jobs.csv line, cell by cell. Numbers go through std::to_chars (Ryu): the same correctly
// rounded digits as fmt's "{:.6f}", which falls back to its slow exact algorithm for most values
// (a 1M-job jobs.csv is mostly such cells).
class CsvLine {
 public:
  void text(std::string_view v) { cell(); buf_.append(v.data(), v.data() + v.size()); }
  void fixed6(double v) {
    cell();
    char digits[400];  // a double in fixed notation: at most 309 integer digits
    const auto r = std::to_chars(digits, digits + sizeof digits, v, std::chars_format::fixed, 6);
    buf_.append(digits, r.ptr);
  }
  void fixed6_or_empty(double v, bool show) { show ? fixed6(v) : text({}); }
  void integer(long long v) { cell(); fmt::format_to(std::back_inserter(buf_), "{}", v); }
  void end(std::ostream& out) {
    buf_.push_back('\n');
    out.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
    first_ = true;
  }

 private:
  void cell() {
    if (!first_) buf_.push_back(',');
    first_ = false;
  }
  fmt::memory_buffer buf_;
  bool first_ = true;
};
}  // namespace

void write_jobs_csv(std::ostream& out, const std::vector<JobRecord>& records) {
  out << "job_id,submit_s,start_s,finish_s,jct_s,queueing_s,gpus,requested_gpus,gpu_types,preemptions,restarts,"
         "restart_s,gpu_s,status,reason,ideal_s,active_at_arrival,ftf_rho,norm_throughput,deadline_s,"
         "met_deadline\n";
  CsvLine line;
  for (const JobRecord& r : records) {
    const bool done = r.status == JobStatus::Completed;
    line.text(csv_cell(r.job_id));
    // A submit time beyond what SimTime holds (~9.2e12 s) saturated when read: its printed value
    // would not be the trace's, so the cell is empty (the reason quotes the trace's value).
    line.fixed6_or_empty(r.submit_s, !(r.submit_s < 0) && r.submit_s < SimTime::max().seconds());
    line.fixed6_or_empty(r.start_s, !(r.start_s < 0));
    line.fixed6_or_empty(r.finish_s, done && !(r.finish_s < 0));
    line.fixed6_or_empty(r.jct_s(), done && !(r.jct_s() < 0));
    line.fixed6_or_empty(r.queueing_s(), r.start_s >= 0 && !(r.queueing_s() < 0));
    line.integer(r.gpus);
    line.integer(r.requested_gpus);
    line.text(csv_cell(r.gpu_types));
    line.integer(r.preemptions);
    line.integer(r.restarts);
    line.fixed6(r.restart_s);
    line.fixed6(r.gpu_s);
    line.text(to_string(r.status));
    line.text(csv_cell(r.reason));
    line.fixed6_or_empty(r.ideal_s, r.ideal_s <= kMaxSimSeconds && !(r.ideal_s < 0));
    line.integer(r.active_at_arrival);
    line.fixed6_or_empty(r.ftf_rho(), !(r.ftf_rho() < 0));
    line.fixed6_or_empty(r.norm_throughput(), !(r.norm_throughput() < 0));
    line.fixed6_or_empty(r.deadline_s.value_or(0.0), r.deadline_s.has_value());
    if (r.deadline_s)
      line.integer(r.met_deadline() ? 1 : 0);
    else
      line.text({});
    line.end(out);
  }
}

void write_summary_json(std::ostream& out, const RunSummary& s, const RunInfo& info) {
  nlohmann::ordered_json j;
  j["jobs_read"] = s.jobs_read;
  j["completed"] = s.completed;
  j["rejected"] = s.rejected;
  j["unfinished"] = s.unfinished;
  j["jct_mean_s"] = round6(s.jct_mean_s);
  j["jct_p50_s"] = round6(s.jct_p50_s);
  j["jct_p95_s"] = round6(s.jct_p95_s);
  j["jct_p99_s"] = round6(s.jct_p99_s);
  j["queueing_mean_s"] = round6(s.queueing_mean_s);
  if (s.deadline_jobs > 0) {  // only runs with deadlines: the others keep their bytes
    j["deadline_jobs"] = s.deadline_jobs;
    j["deadlines_met"] = s.deadlines_met;
    j["deadlines_met_fraction"] = round6(s.deadlines_met_fraction);
    j["deadline_miss_s"] = round6(s.deadline_miss_s);
    j["deadlines_missed_unfinished"] = s.deadlines_missed_unfinished;
  }
  j["makespan_s"] = round6(s.makespan_s);
  j["utilization"] = round6(s.utilization);
  nlohmann::ordered_json by_type = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.utilization_by_type) by_type[k] = round6(v);
  j["utilization_by_type"] = by_type;
  nlohmann::ordered_json hours = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.gpu_hours_by_type) hours[k] = round6(v);
  j["gpu_hours_by_type"] = hours;  // kept for readers of 0.2.0 outputs; busy_gpu_s_by_type is the seconds twin
  nlohmann::ordered_json seconds = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.gpu_hours_by_type) seconds[k] = round6(v * 3600.0);
  j["busy_gpu_s_by_type"] = seconds;
  j["preemptions"] = s.preemptions;
  j["restarts"] = s.restarts;
  j["restart_s"] = round6(s.restart_s);
  j["end_s"] = round6(s.end_s);
  j["stranded_free_gpus_mean"] = round6(s.stranded_free_gpus_mean);
  j["fragmentation"] = round6(s.fragmentation);
  j["ftf_rho_max"] = round6(s.ftf_rho_max);
  j["ftf_rho_mean"] = round6(s.ftf_rho_mean);
  j["jain_norm_throughput"] = round6(s.jain_norm_throughput);
  j["rounds"] = s.rounds;
  j["allocations"] = s.allocations;
  j["solver_failures"] = s.solver_failures;
  j["solver_node_limits"] = s.solver_node_limits;
  j["solver_time_limits"] = s.solver_time_limits;
  j["cluster"] = info.cluster;
  // The trace's file name, not its path: outputs must not carry the machine's folders (portable
  // results); the stdout table still names the whole path.
  j["trace"] = std::filesystem::path(info.trace).filename().string();
  j["format"] = info.format;
  j["policy"] = info.policy;
  j["placement"] = info.placement;
  j["throughput_model"] = info.throughput_model;
  j["seed"] = info.seed;
  j["mechanism"] = info.mechanism;
  if (info.network != "alone") j["network"] = info.network;
  // What the run was given, as experiment-spec keys: the file alone says how to run it again.
  if (!info.timeline.empty()) j["timeline"] = info.timeline;
  j["settings"] = info.settings;
  // Which binary wrote the file; the same for every run of one build, so determinism holds.
  j["hetsim_version"] = version_text();
  // Only runs whose inputs needed interpretation carry these, so other runs keep their bytes.
  if (s.rows_skipped > 0 || !s.input_notes.empty()) {
    j["rows_skipped"] = s.rows_skipped;
    j["input_notes"] = s.input_notes;
  }
  // A path with bytes that are not UTF-8 (a trace file name) is written with U+FFFD, not refused.
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_summary_table(std::ostream& out, const RunSummary& s, const RunInfo& info) {
  fmt::print(out, "policy {} on cluster {} ({}{}), trace {} [{}]\n", info.policy, info.cluster, info.throughput_model,
             info.network == "alone" ? "" : ", network " + info.network, info.trace, info.format);
  fmt::print(out, "  {:<22}{:>16}\n", "jobs read", s.jobs_read);
  fmt::print(out, "  {:<22}{:>16}\n", "completed", s.completed);
  fmt::print(out, "  {:<22}{:>16}\n", "rejected", s.rejected);
  fmt::print(out, "  {:<22}{:>16}\n", "unfinished", s.unfinished);
  if (s.rows_skipped > 0) fmt::print(out, "  {:<22}{:>16}\n", "rows skipped", s.rows_skipped);
  fmt::print(out, "  {:<22}{:>16}\n", "JCT mean (s)", table_cell(s.jct_mean_s, 3));
  fmt::print(out, "  {:<22}{:>16}\n", "JCT p50 (s)", table_cell(s.jct_p50_s, 3));
  fmt::print(out, "  {:<22}{:>16}\n", "JCT p95 (s)", table_cell(s.jct_p95_s, 3));
  fmt::print(out, "  {:<22}{:>16}\n", "JCT p99 (s)", table_cell(s.jct_p99_s, 3));
  fmt::print(out, "  {:<22}{:>16}\n", "queueing mean (s)", table_cell(s.queueing_mean_s, 3));
  if (s.deadline_jobs > 0) {
    fmt::print(out, "  {:<22}{:>16}\n", "deadlines met",
               fmt::format("{}/{} ({:.1f}%)", s.deadlines_met, s.deadline_jobs, 100.0 * *s.deadlines_met_fraction));
    fmt::print(out, "  {:<22}{:>16}\n", "deadline miss (s)", table_cell(s.deadline_miss_s, 3));
  }
  fmt::print(out, "  {:<22}{:>16}\n", "makespan (s)", table_cell(s.makespan_s, 3));
  fmt::print(out, "  {:<22}{:>16}\n", "utilization", table_cell(s.utilization, 4));
  for (const auto& [k, v] : s.utilization_by_type) fmt::print(out, "    {:<20}{:>16.4f}\n", k, v);
  fmt::print(out, "  {:<22}{:>16}\n", "preemptions", s.preemptions);
  fmt::print(out, "  {:<22}{:>16}\n", "restarts", s.restarts);
  fmt::print(out, "  {:<22}{:>16}\n", "stranded free GPUs", table_cell(s.stranded_free_gpus_mean, 3));
  fmt::print(out, "  {:<22}{:>16}\n", "fragmentation", table_cell(s.fragmentation, 4));
  fmt::print(out, "  {:<22}{:>16}\n", "FTF rho max", table_cell(s.ftf_rho_max, 4));
  fmt::print(out, "  {:<22}{:>16}\n", "FTF rho mean", table_cell(s.ftf_rho_mean, 4));
  fmt::print(out, "  {:<22}{:>16}\n", "Jain (norm. tput)", table_cell(s.jain_norm_throughput, 4));
  if (s.allocations > 0) {
    fmt::print(out, "  {:<22}{:>16}\n", "rounds", s.rounds);
    fmt::print(out, "  {:<22}{:>16}\n", "allocations", s.allocations);
    fmt::print(out, "  {:<22}{:>16}\n", "solver failures", s.solver_failures);
    fmt::print(out, "  {:<22}{:>16}\n", "solver node limits", s.solver_node_limits);
    fmt::print(out, "  {:<22}{:>16}\n", "solver time limits", s.solver_time_limits);
    fmt::print(out, "  {:<22}{:>16.4f}\n", "solver time (s)", s.solver_s_total);
    fmt::print(out, "  {:<22}{:>16.4f}\n", "solver max/round (s)", s.solver_s_max);
  }
}

}  // namespace hetsim
