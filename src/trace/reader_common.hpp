#pragma once
/// Pieces shared by the trace readers (private to src/trace/): line iteration, allocation-free
/// field splitting, the checks that turn a well-formed but unrunnable row into an invalid JobSpec,
/// and the final stable sort.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/parse.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim::trace_detail {

/// Walks a text line by line without copying. Line numbers are 1-based and count every line, blank
/// or not, so they match what an editor shows. A trailing '\r' (CRLF files) and a leading UTF-8
/// byte-order mark are dropped, because spreadsheet tools add both.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text);

  /// Moves to the next line; false at the end of the text.
  bool next();
  /// The current line, without its terminator.
  std::string_view line() const { return line_; }
  /// 1-based number of the current line.
  std::size_t number() const { return number_; }

 private:
  std::string_view rest_;
  std::string_view line_;
  std::size_t number_ = 0;
  bool done_ = false;
};

/// True for lines every reader skips: blank (only spaces, tabs) lines.
bool is_blank(std::string_view line);
/// True for native-format comment lines: first non-blank character is '#'.
bool is_comment(std::string_view line);

/// Splits `line` on `sep` into `out`, reusing its storage: after the first row a reader splits
/// every further row without allocating.
void split_into(std::string_view line, char sep, std::vector<std::string_view>& out);

/// Narrows a parsed integer to int, or throws InputError at `pos` when it does not fit.
int to_int(long long value, const SourcePos& pos);

/// Column names a format uses for the values the shared checks look at, so that an invalid
/// reason names the column the user wrote.
struct FieldNames {
  std::string_view work;
  std::string_view gpus;
  std::string_view submit;
  std::string_view min_gpus = "min_gpus";
  std::string_view max_gpus = "max_gpus";
  std::string_view priority = "priority_weight";
};

/// Sets job.submit from `submit_s` and records in job.invalid_reason the first reason the job can
/// never run (negative work, no GPUs, an elastic range that excludes the requested count, a
/// non-positive priority, a negative submit time). A negative submit time is clamped to 0 so the
/// rejection happens at the start of the run. Expects source_file/source_line to be set.
void check_job(JobSpec& job, double submit_s, const FieldNames& names);

/// A job's deadline from `cell` (absolute seconds, the trace's time base): nullopt for an empty
/// cell. Throws InputError at `pos` for a value that is not a finite number, is negative, or lies
/// before the job's submit time `submit_s`: a deadline the job has missed before it arrives is a
/// damaged row, not a job to simulate.
std::optional<double> parse_deadline(std::string_view cell, double submit_s, const SourcePos& pos);

/// Throws InputError at `pos` for a job id that is empty, holds a control character or is not
/// valid UTF-8: ids are written into jobs.csv, summary.json and HTML reports as they are.
void check_job_id(std::string_view id, const SourcePos& pos);

/// "file:line: field 'name': message", the same shape as an InputError message.
std::string describe(const std::string& file, std::size_t line, std::string_view field,
                     std::string_view message);

/// Moves `cursor` to the first non-blank line and splits it on `sep` into `header`; false when the
/// text has no such line.
bool read_header(LineCursor& cursor, char sep, std::vector<std::string_view>& header);

/// Moves `cursor` to the next non-blank line and splits it on ',' into `fields`; false at the end.
/// Throws InputError (path, line) when the row does not have `count` fields, as its header.
bool next_csv_row(LineCursor& cursor, std::vector<std::string_view>& fields, std::size_t count,
                  const std::string& path);

/// Position of a column the header does not name.
inline constexpr std::size_t kAbsentColumn = static_cast<std::size_t>(-1);

/// Positions of `names` in a header row (kAbsentColumn for a name it lacks), in the order given.
/// Throws InputError (path, line, column) when the header names a column twice.
std::vector<std::size_t> header_columns(const std::vector<std::string_view>& header,
                                        const std::vector<std::string_view>& names, const std::string& path,
                                        std::size_t line_no);

/// Throws InputError (path, line, `name`) "required column is missing from the header", followed
/// by `why` when given, if `column` is kAbsentColumn.
void require_column(std::size_t column, const char* name, const std::string& path, std::size_t line_no,
                    std::string_view why = {});

/// Stable-sorts jobs by submit time and fills in the workload's source and format.
Workload finish_workload(std::vector<JobSpec> jobs, const std::string& path, TraceFormat format);

}  // namespace hetsim::trace_detail
