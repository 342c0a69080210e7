#pragma once
/// Trace readers: one per format (one file each under src/trace/), plus detection. Every reader
/// validates every row and sorts jobs by submit time stably (equal times keep file order).
///
/// Two kinds of bad input, kept apart on purpose:
///  - a row that cannot be understood (wrong field count, text where a number belongs, unknown
///    column) throws InputError("file:line: field 'x': ...") and nothing is simulated;
///  - a row that is well-formed but describes a job that cannot run (negative duration, zero GPUs)
///    becomes a JobSpec with `invalid_reason` set; the run rejects it at admission with that
///    reason, so it is counted, never silently dropped.
#include <optional>
#include <string>
#include <string_view>

#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Trace formats hetsim reads natively (see docs/trace-format.md).
enum class TraceFormat { Auto, Native, Gavel, Philly, Heet, Pollux };

/// Parses "auto", "native", "gavel", "philly", "heet", "pollux"; nullopt otherwise.
std::optional<TraceFormat> parse_trace_format(std::string_view name);
/// Lower-case name of a format.
const char* to_string(TraceFormat format);

/// Options some formats need.
struct TraceOptions {
  double heet_round_s = 120.0;  ///< length of one scheduling round in the Heet prototype's trace
};

/// Guesses the format from the file's first non-empty line: a header starting with
/// "timestamp,duration,num_gpus" is philly; a header starting with "name,time,application" is
/// pollux; a header containing "job_id" and "submit_s" is native;
/// a tab-separated line with 7, 10 or 12 fields is gavel; 5 comma-separated fields without a header is heet.
/// Throws InputError naming the file when none fits.
TraceFormat detect_trace_format(const std::string& path, std::string_view text);

/// Reads a trace file in `format` (Auto = detect). Throws InputError on unreadable input.
Workload read_trace(const std::string& path, TraceFormat format, const TraceOptions& options = {});

/// Per-format readers over text already in memory; `path` is used in error messages only.
Workload read_native_trace(const std::string& path, std::string_view text);
Workload read_gavel_trace(const std::string& path, std::string_view text);
Workload read_philly_trace(const std::string& path, std::string_view text);
Workload read_heet_trace(const std::string& path, std::string_view text, const TraceOptions& options);
/// Pollux/Sia workload CSV `name,time,application,num_replicas,batch_size` (columns by header
/// name). Jobs get job_type = application, requested_gpus = num_replicas, global_batch_size =
/// batch_size, unit StatisticalProgress and work 0: their work (the application's total progress)
/// and elastic range are set by attach_goodput_work() once the profiles are loaded.
Workload read_pollux_workload(const std::string& path, std::string_view text);

}  // namespace hetsim
