#include "hetsim/trace/trace_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <utility>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

namespace trace_detail {

LineCursor::LineCursor(std::string_view text) : rest_(strip_utf8_bom(text)) {}

bool LineCursor::next() {
  // A final line without '\n' still counts; the empty tail after a final '\n' does not.
  if (done_ || rest_.empty()) {
    done_ = true;
    return false;
  }
  std::size_t end = rest_.find('\n');
  if (end == std::string_view::npos) {
    line_ = rest_;
    rest_ = {};
  } else {
    line_ = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
  }
  if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
  ++number_;
  return true;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

bool is_comment(std::string_view line) {
  std::size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '#';
}

void split_into(std::string_view line, char sep, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    std::size_t pos = line.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(line.substr(start));
      return;
    }
    out.push_back(line.substr(start, pos - start));
    start = pos + 1;
  }
}

int to_int(long long value, const SourcePos& pos) {
  if (value < INT_MIN || value > INT_MAX) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     fmt::format("value {} is out of range [{}, {}]", value, INT_MIN, INT_MAX));
  }
  return static_cast<int>(value);
}

std::optional<double> parse_deadline(std::string_view cell, double submit_s, const SourcePos& pos) {
  if (trim(cell).empty()) return std::nullopt;
  const double deadline_s = parse_double(cell, pos);  // refuses NaN and infinities
  auto fail = [&](std::string message) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field), std::move(message));
  };
  if (deadline_s < 0.0) fail(fmt::format("a deadline must not be negative (got {} s)", deadline_s));
  if (deadline_s < submit_s)
    fail(fmt::format("deadline {} s is before the job's submit time {} s", deadline_s, submit_s));
  return deadline_s;
}

std::string describe(const std::string& file, std::size_t line, std::string_view field,
                     std::string_view message) {
  return fmt::format("{}:{}: field '{}': {}", file, line, field, message);
}

namespace {

std::string_view negative_work_message(WorkUnit unit) {
  switch (unit) {
    case WorkUnit::Iterations: return "negative number of iterations";
    case WorkUnit::Epochs: return "negative number of epochs";
    case WorkUnit::ReferenceSeconds: return "negative duration";
    case WorkUnit::StatisticalProgress: return "negative progress";
  }
  return "negative work";
}

}  // namespace

void check_job(JobSpec& job, double submit_s, const FieldNames& names) {
  auto reject = [&](std::string_view field, std::string message) {
    // Keep the first problem only: one clear reason reads better in a rejection log than a list.
    if (job.invalid_reason.empty()) {
      job.invalid_reason = describe(job.source_file ? *job.source_file : std::string(), job.source_line, field, message);
    }
  };
  if (job.work < 0.0) {
    reject(names.work, fmt::format("{} ({})", negative_work_message(job.unit), job.work));
  }
  if (job.requested_gpus <= 0) {
    reject(names.gpus, fmt::format("a job needs at least one GPU (got {})", job.requested_gpus));
  }
  if (job.min_gpus < 1) {
    reject(names.min_gpus,
           fmt::format("{} must be at least 1 (got {})", names.min_gpus, job.min_gpus));
  }
  if (job.min_gpus > job.requested_gpus) {
    reject(names.min_gpus, fmt::format("{} ({}) exceeds {} ({})", names.min_gpus, job.min_gpus,
                                       names.gpus, job.requested_gpus));
  }
  if (job.max_gpus < job.requested_gpus) {
    reject(names.max_gpus, fmt::format("{} ({}) is below {} ({})", names.max_gpus, job.max_gpus,
                                       names.gpus, job.requested_gpus));
  }
  if (job.priority_weight <= 0.0) {
    reject(names.priority,
           fmt::format("priority weight must be positive (got {})", job.priority_weight));
  }
  if (submit_s < 0.0) {
    reject(names.submit, fmt::format("negative submit time ({} s); submit set to 0", submit_s));
    submit_s = 0.0;
  }
  if (submit_s > kMaxSimSeconds) {
    // Name the value as written: the clock saturates at the horizon, so admission would only see that.
    reject(names.submit, fmt::format("submit time {:.10g} s is beyond the simulation horizon of {:.0e} s", submit_s,
                                     kMaxSimSeconds));
  }
  job.submit = SimTime::from_seconds(submit_s);
}

bool read_header(LineCursor& cursor, char sep, std::vector<std::string_view>& header) {
  while (cursor.next()) {
    if (is_blank(cursor.line())) continue;
    split_into(cursor.line(), sep, header);
    return true;
  }
  return false;
}

bool next_csv_row(LineCursor& cursor, std::vector<std::string_view>& fields, std::size_t count,
                  const std::string& path) {
  while (cursor.next()) {
    if (is_blank(cursor.line())) continue;
    split_into(cursor.line(), ',', fields);
    if (fields.size() != count)
      throw InputError(path, cursor.number(), "",
                       fmt::format("expected {} comma-separated fields as in the header, got {}", count, fields.size()));
    return true;
  }
  return false;
}

std::vector<std::size_t> header_columns(const std::vector<std::string_view>& header,
                                        const std::vector<std::string_view>& names, const std::string& path,
                                        std::size_t line_no) {
  std::vector<std::size_t> at(names.size(), kAbsentColumn);
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string_view h = trim(header[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (trim(header[j]) == h) throw InputError(path, line_no, std::string(h), "column named twice in the header");
    for (std::size_t n = 0; n < names.size(); ++n)
      if (h == names[n]) at[n] = i;
  }
  return at;
}

void require_column(std::size_t column, const char* name, const std::string& path, std::size_t line_no,
                    std::string_view why) {
  if (column != kAbsentColumn) return;
  throw InputError(path, line_no, name,
                   why.empty() ? std::string("required column is missing from the header")
                               : fmt::format("required column is missing from the header ({})", why));
}

Workload finish_workload(std::vector<JobSpec> jobs, const std::string& path, TraceFormat format) {
  // Most traces are written in submit order; checking first spares the sort's buffer of a second
  // copy of every job (hundreds of MB for a million jobs).
  const auto by_submit = [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; };
  if (!std::is_sorted(jobs.begin(), jobs.end(), by_submit)) std::stable_sort(jobs.begin(), jobs.end(), by_submit);
  Workload w;
  w.jobs = std::move(jobs);
  w.source = path;
  w.format = to_string(format);
  return w;
}

}  // namespace trace_detail

namespace {

bool is_integer(std::string_view text) {
  text = trim(text);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

// True when the comma-separated line has columns named `a` and `b` (header columns by name).
bool has_columns(std::string_view line, std::string_view a, std::string_view b) {
  bool has_a = false, has_b = false;
  for (std::string_view f : split(line, ',')) {
    has_a = has_a || trim(f) == a;
    has_b = has_b || trim(f) == b;
  }
  return has_a && has_b;
}

std::function<bool(std::string_view)> header_prefix(std::string_view prefix) {
  return [prefix](std::string_view line) { return trim(line).starts_with(prefix); };
}

std::function<bool(std::string_view)> header_with(std::string_view a, std::string_view b) {
  return [a, b](std::string_view line) { return has_columns(line, a, b); };
}

bool is_gavel_row(std::string_view line) {
  // Gavel's simulator traces have 7 fields; its physical-cluster and Shockwave's traces, read by
  // the same reader, have 10 and 12.
  const std::size_t tabs = split(line, '\t').size();
  return tabs == 7 || tabs == 10 || tabs == 12;
}

bool is_heet_row(std::string_view line) {
  // The Heet trace has no header: a numeric first field tells a data row from a header row.
  const std::vector<std::string_view> fields = split(line, ',');
  return fields.size() == 5 && is_integer(fields[0]) && is_integer(fields[3]);
}

Workload read_itp_by_duration(const std::string& path, std::string_view text, const TraceOptions&) {
  return read_itp_trace(path, text, false);
}

Workload read_itp_by_iterations(const std::string& path, std::string_view text, const TraceOptions&) {
  return read_itp_trace(path, text, true);
}

// Adapts a reader that needs no options to the registry's reader signature.
template <Workload (*Read)(const std::string&, std::string_view)>
Workload without_options(const std::string& path, std::string_view text, const TraceOptions&) {
  return Read(path, text);
}

}  // namespace

FormatRegistry make_default_format_registry() {
  using F = TraceFormat;
  FormatRegistry r("trace format");
  r.add({"philly", "Philly jobs as flattened by the Pollux authors (philly.csv)", "Microsoft Philly via Pollux", {},
         F::Philly, without_options<read_philly_trace>, header_prefix("timestamp,duration,num_gpus"),
         "a header starting timestamp,duration,num_gpus"});
  r.add({"pollux", "Pollux/Sia workload CSV (name,time,application,num_replicas,batch_size)", "Pollux (OSDI 2021), Sia",
         {}, F::Pollux, without_options<read_pollux_workload>, header_prefix("name,time,application"),
         "a header starting name,time,application"});
  r.add({"alibaba-openb", "Alibaba OpenB pod list (openb_pod_list_*.csv); CPU-only pods skipped and counted",
         "Alibaba clusterdata cluster-trace-gpu-v2023", {}, F::AlibabaOpenb,
         without_options<read_alibaba_openb_trace>, header_prefix("name,cpu_milli,memory_mib,num_gpu"),
         "a header starting name,cpu_milli,memory_mib,num_gpu"});
  r.add({"native", "hetsim's CSV with a header (docs/trace-format.md)", "hetsim", {}, F::Native,
         without_options<read_native_trace>, header_with("job_id", "submit_s"),
         "a CSV header with columns job_id and submit_s"});
  r.add({"itp", "Microsoft ITP trace (raw or ElasticFlow's), work = duration", "Microsoft ITP via ElasticFlow", {},
         F::Itp, read_itp_by_duration, header_with("job_id", "submission_time"),
         "a CSV header with columns job_id and submission_time"});
  r.add({"itp-ef", "ElasticFlow's ITP trace, work = num_iteration (with --throughputs elasticflow-profiles)",
         "ElasticFlow (ASPLOS 2023)", {}, F::ItpEf, read_itp_by_iterations, nullptr,
         "never detected (an itp-ef file is detected as itp)"});
  r.add({"gavel", "Gavel .trace files (7, 10 or 12 tab-separated fields)", "Gavel (OSDI 2020), Shockwave", {},
         F::Gavel, without_options<read_gavel_trace>, is_gavel_row, "a row of 7, 10 or 12 tab-separated fields"});
  r.add({"heet", "Heet prototype trace.dat (arrival round, model, epochs, GPUs, batch)", "Heet prototype",
         {{"--heet-round", "120", "seconds per arrival round (> 0)"}}, F::Heet, read_heet_trace,
         is_heet_row, "a headerless row of 5 comma-separated fields, the 1st and 4th whole numbers"});
  return r;
}

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names{"auto"};
  for (const std::string& n : make_default_format_registry().names()) names.push_back(n);
  return names;
}

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  const std::string n = to_lower(trim(name));
  if (n == "auto") return TraceFormat::Auto;
  const FormatRegistry registry = make_default_format_registry();
  if (const FormatInfo* info = registry.find(n)) return info->format;
  return std::nullopt;
}

std::string to_string(TraceFormat format) {
  if (format == TraceFormat::Auto) return "auto";
  const FormatRegistry registry = make_default_format_registry();
  for (const FormatInfo& info : registry.all())
    if (info.format == format) return info.name;
  return "unknown";
}

namespace {

// The detection error: every registered format with what detection looks for.
std::string detection_help(const FormatRegistry& registry) {
  std::string rules;
  for (const FormatInfo& info : registry.all())
    rules += fmt::format("{}{}: {}", rules.empty() ? "" : "; ", info.name, info.detect_rule);
  return "cannot detect the trace format from this line (" + rules + "); pass the format explicitly";
}

}  // namespace

TraceFormat detect_trace_format(const std::string& path, std::string_view text) {
  using trace_detail::LineCursor;
  const FormatRegistry registry = make_default_format_registry();
  LineCursor cursor(text);
  // Comment lines are skipped too: a native trace may open with '#' notes before its header, and
  // no foreign format starts a line with '#'.
  while (cursor.next()) {
    std::string_view line = cursor.line();
    if (trace_detail::is_blank(line) || trace_detail::is_comment(line)) continue;
    for (const FormatInfo& info : registry.all())
      if (info.detect && info.detect(line)) return info.format;
    throw InputError(path, cursor.number(), "", detection_help(registry));
  }
  throw InputError(path, 0, "", "cannot detect the trace format: the file has no data");
}

Workload read_trace(const std::string& path, TraceFormat format, const TraceOptions& options) {
  std::string text = read_file(path);
  if (format == TraceFormat::Auto) format = detect_trace_format(path, text);
  // Each reader sorts (stably) before returning, so the result is already in submit order.
  const FormatRegistry registry = make_default_format_registry();
  for (const FormatInfo& info : registry.all()) {
    if (info.format != format) continue;
    Workload workload = info.read(path, text, options);
    // A trace without jobs is a wrong file (an empty export, a header only), not a run to report
    // as 0 jobs and exit 0.
    if (workload.jobs.empty())
      throw InputError(path, 0, "", fmt::format("the trace holds no jobs (read as format '{}')", info.name));
    return workload;
  }
  throw InputError(path, 0, "", "unknown trace format");
}

}  // namespace hetsim
