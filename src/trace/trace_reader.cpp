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
      job.invalid_reason = describe(job.source_file, job.source_line, field, message);
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
    reject(names.submit, fmt::format("submit time {:g} s is beyond the simulation horizon of {:.0e} s", submit_s,
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
constexpr TraceFormat kAllFormats[] = {TraceFormat::Auto,   TraceFormat::Native,       TraceFormat::Gavel,
                                       TraceFormat::Philly, TraceFormat::Heet,         TraceFormat::Pollux,
                                       TraceFormat::AlibabaOpenb, TraceFormat::Itp,    TraceFormat::ItpEf};
}  // namespace

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  for (TraceFormat f : kAllFormats) names.emplace_back(to_string(f));
  return names;
}

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  const std::string n = to_lower(trim(name));
  for (TraceFormat f : kAllFormats)
    if (n == to_string(f)) return f;
  return std::nullopt;
}

const char* to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::Auto: return "auto";
    case TraceFormat::Native: return "native";
    case TraceFormat::Gavel: return "gavel";
    case TraceFormat::Philly: return "philly";
    case TraceFormat::Heet: return "heet";
    case TraceFormat::Pollux: return "pollux";
    case TraceFormat::AlibabaOpenb: return "alibaba-openb";
    case TraceFormat::Itp: return "itp";
    case TraceFormat::ItpEf: return "itp-ef";
  }
  return "unknown";
}

namespace {

bool is_integer(std::string_view text) {
  text = trim(text);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

TraceFormat detect_trace_format(const std::string& path, std::string_view text) {
  using trace_detail::LineCursor;
  LineCursor cursor(text);
  // Comment lines are skipped too: a native trace may open with '#' notes before its header, and
  // no foreign format starts a line with '#'.
  while (cursor.next()) {
    std::string_view line = cursor.line();
    if (trace_detail::is_blank(line) || trace_detail::is_comment(line)) continue;

    if (trim(line).starts_with("timestamp,duration,num_gpus")) return TraceFormat::Philly;
    if (trim(line).starts_with("name,time,application")) return TraceFormat::Pollux;
    if (trim(line).starts_with("name,cpu_milli,memory_mib,num_gpu")) return TraceFormat::AlibabaOpenb;

    std::vector<std::string_view> fields = split(line, ',');
    bool has_job_id = false;
    bool has_submit = false;
    for (std::string_view f : fields) {
      has_job_id = has_job_id || trim(f) == "job_id";
      has_submit = has_submit || trim(f) == "submit_s";
    }
    if (has_job_id && has_submit) return TraceFormat::Native;
    // ITP traces (raw and ElasticFlow's): duration-based unless the user asks for itp-ef.
    bool has_submission = false;
    for (std::string_view f : fields) has_submission = has_submission || trim(f) == "submission_time";
    if (has_job_id && has_submission) return TraceFormat::Itp;

    // Gavel's simulator traces have 7 fields; its physical-cluster and Shockwave's traces, read by
    // the same reader, have 10 and 12.
    std::size_t tabs = split(line, '\t').size();
    if (tabs == 7 || tabs == 10 || tabs == 12) return TraceFormat::Gavel;

    // The Heet trace has no header: a numeric first field tells a data row from a header row.
    if (fields.size() == 5 && is_integer(fields[0]) && is_integer(fields[3])) {
      return TraceFormat::Heet;
    }
    throw InputError(path, cursor.number(), "",
                     "cannot detect the trace format from this line (expected a philly or native "
                     "CSV header, a tab-separated gavel row, or a 5-field heet row); pass the "
                     "format explicitly");
  }
  throw InputError(path, 0, "", "cannot detect the trace format: the file has no data");
}

Workload read_trace(const std::string& path, TraceFormat format, const TraceOptions& options) {
  std::string text = read_file(path);
  if (format == TraceFormat::Auto) format = detect_trace_format(path, text);
  // Each reader sorts (stably) before returning, so the result is already in submit order.
  switch (format) {
    case TraceFormat::Native: return read_native_trace(path, text);
    case TraceFormat::Gavel: return read_gavel_trace(path, text);
    case TraceFormat::Philly: return read_philly_trace(path, text);
    case TraceFormat::Heet: return read_heet_trace(path, text, options);
    case TraceFormat::Pollux: return read_pollux_workload(path, text);
    case TraceFormat::AlibabaOpenb: return read_alibaba_openb_trace(path, text);
    case TraceFormat::Itp: return read_itp_trace(path, text, false);
    case TraceFormat::ItpEf: return read_itp_trace(path, text, true);
    case TraceFormat::Auto: break;
  }
  throw InputError(path, 0, "", "unknown trace format");
}

}  // namespace hetsim
