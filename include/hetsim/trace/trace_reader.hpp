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
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsim/util/registry.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Trace formats hetsim reads natively (see docs/trace-format.md).
enum class TraceFormat { Auto, Native, Gavel, Philly, Heet, Pollux, AlibabaOpenb, Itp, ItpEf };

/// Options some formats need.
struct TraceOptions {
  double heet_round_s = 120.0;  ///< length of one scheduling round in the Heet prototype's trace
};

/// Everything needed to list, detect and read one trace format (the shared registry shape).
struct FormatInfo {
  std::string name;     ///< as given to --format
  std::string summary;  ///< one line: what the file looks like
  std::string source;   ///< who publishes such traces
  std::vector<ParamInfo> params;  ///< options the reader takes (as their --flags)
  TraceFormat format = TraceFormat::Native;
  std::function<Workload(const std::string& path, std::string_view text, const TraceOptions&)> read;
  /// True when the first non-blank, non-comment line is of this format; empty when the format
  /// cannot be told from its first line (ask for it with --format).
  std::function<bool(std::string_view line)> detect;
  std::string detect_rule;  ///< what detect() looks for, for the detection error and docs
};
using FormatRegistry = Registry<FormatInfo>;

/// The registry with every built-in format. Detection tries them in this order (the first match
/// wins), which is why philly, pollux and alibaba-openb (fixed header prefixes) come first.
FormatRegistry make_default_format_registry();

/// Parses "auto" or a registered format name (case-insensitive); nullopt otherwise.
std::optional<TraceFormat> parse_trace_format(std::string_view name);
/// Every name parse_trace_format() accepts: "auto", then the registry's (for help texts, errors, docs checks).
std::vector<std::string> trace_format_names();
/// Lower-case name of a format, from the registry.
std::string to_string(TraceFormat format);

/// Guesses the format from the file's first non-blank, non-comment line with the registry's
/// detection rules, in registration order (FormatInfo::detect_rule says what each looks for).
/// Throws InputError naming the file and line, and every format with its rule, when none fits.
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
/// Alibaba OpenB pod list (clusterdata cluster-trace-gpu-v2023, `openb_pod_list_*.csv`): one job
/// per pod with num_gpu > 0; CPU-only pods are counted in Workload::rows_skipped and a note. Work
/// = deletion_time - scheduled_time (creation_time when unscheduled) in reference seconds;
/// GPU-sharing pods (gpu_milli < 1000) get one whole GPU; gpu_spec fills allowed_gpu_types.
/// Rules and errors: docs/trace-format.md "alibaba-openb".
Workload read_alibaba_openb_trace(const std::string& path, std::string_view text);
/// Microsoft ITP traces as published with ElasticFlow: the raw `job_id,submission_time,duration,
/// num_gpu` files and ElasticFlow's extended ones (plus num_iteration, model_name, deadline,
/// batch_size), columns by header name. With `iterations_as_work` false (format "itp") the work
/// is `duration` in reference seconds; true (format "itp-ef") the work is `num_iteration`
/// iterations, for a per-model throughput table. model_name and batch_size are carried when
/// present; deadline (absolute seconds, the submission_time base) becomes JobSpec::deadline_s,
/// an empty cell none; one before the submit time, negative or not finite is an InputError.
Workload read_itp_trace(const std::string& path, std::string_view text, bool iterations_as_work);

}  // namespace hetsim
