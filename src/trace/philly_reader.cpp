// The Microsoft Philly job log as flattened by the Pollux authors (pollux/traces/philly.csv):
// `timestamp,duration,num_gpus,gpu_time,cluster`, one row per job, rows not in time order.
// Speed matters here (82k rows): the text is scanned in place, fields are views into it, and the
// split buffer is reused, so a row costs no allocation beyond its JobSpec.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

namespace {

using trace_detail::LineCursor;

/// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. Counts in 400-year eras
/// starting each March 1st, so the leap day falls at the end of a year and needs no special case.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);                 // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(std::int64_t y, unsigned m) {
  constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/// Reads exactly `n` decimal digits at `text[at]`; false if any is not a digit.
bool digits(std::string_view text, std::size_t at, std::size_t n, unsigned& out) {
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return true;
}

/// Seconds since 1970-01-01 00:00:00 of a wall-clock "YYYY-MM-DD HH:MM:SS". No time zone is
/// applied: only differences between timestamps of one file are used.
std::int64_t parse_timestamp(std::string_view raw, const std::string& path, std::size_t line_no) {
  std::string_view t = trim(raw);
  auto bad = [&](std::string_view why) {
    return InputError(path, line_no, "timestamp",
                      fmt::format("{} in '{}' (expected YYYY-MM-DD HH:MM:SS)", why, t));
  };
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' ||
      t[16] != ':' || !digits(t, 0, 4, year) || !digits(t, 5, 2, month) || !digits(t, 8, 2, day) ||
      !digits(t, 11, 2, hour) || !digits(t, 14, 2, minute) || !digits(t, 17, 2, second)) {
    throw bad("malformed timestamp");
  }
  if (month < 1 || month > 12) throw bad(fmt::format("month {} out of range", month));
  if (day < 1 || day > days_in_month(year, month)) {
    throw bad(fmt::format("day {} out of range for the month", day));
  }
  if (hour > 23) throw bad(fmt::format("hour {} out of range", hour));
  if (minute > 59) throw bad(fmt::format("minute {} out of range", minute));
  if (second > 59) throw bad(fmt::format("second {} out of range", second));
  return days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
}

}  // namespace

Workload read_philly_trace(const std::string& path, std::string_view text) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  LineCursor cursor(text);
  std::vector<std::string_view> fields;
  // Header: columns are found by name, so a copy with reordered or extra columns still reads;
  // gpu_time and cluster are not needed (gpu_time is duration * num_gpus).
  if (!trace_detail::read_header(cursor, ',', fields)) throw InputError(path, 0, "", "no header line");
  const std::size_t count = fields.size();
  const auto at = trace_detail::header_columns(fields, {"timestamp", "duration", "num_gpus"}, path, cursor.number());
  const std::size_t timestamp_col = at[0], duration_col = at[1], gpus_col = at[2];
  trace_detail::require_column(timestamp_col, "timestamp", path, cursor.number());
  trace_detail::require_column(duration_col, "duration", path, cursor.number());
  trace_detail::require_column(gpus_col, "num_gpus", path, cursor.number());

  std::vector<JobSpec> jobs;
  // Rows of the published file average 42 bytes; reserving for rows of 40 avoids moving 80k
  // JobSpecs each time the vector grows, at the price of a little slack.
  jobs.reserve(text.size() / 40);
  std::vector<std::int64_t> wall_s;  // absolute wall-clock seconds, parallel to `jobs`
  wall_s.reserve(jobs.capacity());

  while (trace_detail::next_csv_row(cursor, fields, count, path)) {
    const std::size_t line_no = cursor.number();
    JobSpec job;
    job.id = fmt::format("philly-{}", line_no);
    job.source_file = source;
    job.source_line = line_no;
    job.unit = WorkUnit::ReferenceSeconds;
    job.work = parse_double(fields[duration_col], SourcePos{path, line_no, "duration"});
    const SourcePos gpus_pos{path, line_no, "num_gpus"};
    job.requested_gpus = trace_detail::to_int(parse_int(fields[gpus_col], gpus_pos), gpus_pos);
    job.min_gpus = job.requested_gpus;
    job.max_gpus = job.requested_gpus;
    wall_s.push_back(parse_timestamp(fields[timestamp_col], path, line_no));
    jobs.push_back(std::move(job));
  }

  // Submit times are relative to the earliest submission, which may be anywhere in the file.
  if (!jobs.empty()) {
    const std::int64_t start = *std::min_element(wall_s.begin(), wall_s.end());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      trace_detail::check_job(jobs[i], static_cast<double>(wall_s[i] - start),
                              {.work = "duration", .gpus = "num_gpus", .submit = "timestamp"});
    }
  }
  return trace_detail::finish_workload(std::move(jobs), path, TraceFormat::Philly);
}

}  // namespace hetsim
