// hetsim's own trace format: a CSV with a header naming its columns (docs/trace-format.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

namespace {

using trace_detail::LineCursor;

/// Every column the format knows; the index into NativeColumns::index.
enum Column : std::size_t {
  JobId,
  SubmitS,
  NumGpus,
  DurationS,
  Iterations,
  Epochs,
  JobType,
  BatchSize,
  PriorityWeight,
  MinGpus,
  MaxGpus,
  DeadlineS,
  GpuMilli,
  ColumnCount
};

constexpr std::array<std::string_view, ColumnCount> column_names = {
    "job_id",   "submit_s",   "num_gpus",        "duration_s", "iterations", "epochs",
    "job_type", "batch_size", "priority_weight", "min_gpus",   "max_gpus",   "deadline_s", "gpu_milli"};

constexpr std::size_t absent = static_cast<std::size_t>(-1);

/// Where each known column sits in a row, from the header.
struct NativeColumns {
  std::array<std::size_t, ColumnCount> index{};
  std::size_t count = 0;    ///< fields per row
  Column work = DurationS;  ///< the one work column present
  bool has(Column c) const { return index[c] != absent; }
};

NativeColumns parse_header(const std::string& path, std::size_t line_no, std::string_view line) {
  NativeColumns cols;
  cols.index.fill(absent);
  std::vector<std::string_view> names = split(line, ',');
  cols.count = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string_view name = trim(names[i]);
    if (name.empty()) {
      throw InputError(path, line_no, "",
                       fmt::format("column {} of the header has no name", i + 1));
    }
    std::size_t c = 0;
    while (c < ColumnCount && column_names[c] != name) ++c;
    if (c == ColumnCount) {
      throw InputError(path, line_no, std::string(name),
                       "unknown column (known: job_id, submit_s, num_gpus, duration_s, "
                       "iterations, epochs, job_type, batch_size, priority_weight, min_gpus, "
                       "max_gpus, deadline_s, gpu_milli)");
    }
    if (cols.index[c] != absent) {
      throw InputError(path, line_no, std::string(name), "column appears twice in the header");
    }
    cols.index[c] = i;
  }
  for (Column required : {JobId, SubmitS, NumGpus}) {
    if (!cols.has(required)) {
      throw InputError(path, line_no, std::string(column_names[required]),
                       "required column is missing from the header");
    }
  }
  int work_columns = 0;
  for (Column w : {DurationS, Iterations, Epochs}) {
    if (cols.has(w)) {
      ++work_columns;
      cols.work = w;
    }
  }
  if (work_columns != 1) {
    throw InputError(path, line_no, "",
                     fmt::format("the header must have exactly one work column among duration_s, "
                                 "iterations, epochs (found {})",
                                 work_columns));
  }
  return cols;
}

// `gpu_milli`: thousandths of one GPU, 1 .. 1000 (1000 = whole GPUs); a fraction needs one GPU.
int parse_gpu_milli(std::string_view cell, const JobSpec& job, const SourcePos& pos) {
  const long long milli = parse_int(cell, pos);
  if (milli < 1 || milli > ClusterState::kWholeMilli)
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     fmt::format("must be between 1 and 1000 (thousandths of one GPU; 1000 = whole GPUs), got {}", milli));
  if (milli < ClusterState::kWholeMilli && (job.requested_gpus != 1 || job.min_gpus != 1 || job.max_gpus != 1))
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     fmt::format("a fraction of a GPU ({} thousandths) needs num_gpus = min_gpus = max_gpus = 1, got "
                                 "{} ({} .. {})",
                                 milli, job.requested_gpus, job.min_gpus, job.max_gpus));
  return static_cast<int>(milli);
}

WorkUnit unit_of(Column work) {
  switch (work) {
    case Iterations: return WorkUnit::Iterations;
    case Epochs: return WorkUnit::Epochs;
    default: return WorkUnit::ReferenceSeconds;
  }
}

}  // namespace

Workload read_native_trace(const std::string& path, std::string_view text) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  LineCursor cursor(text);
  std::optional<NativeColumns> cols;
  std::vector<JobSpec> jobs;
  std::vector<std::string_view> fields;
  // Ids point into `text`, which outlives this function's use of them.
  std::unordered_map<std::string_view, std::size_t> first_line_of_id;
  // One job per line at most: reserving spares the regrowth copies (and their transient second
  // copy of every job) on large traces.
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  jobs.reserve(lines);
  first_line_of_id.reserve(lines);

  while (cursor.next()) {
    std::string_view line = cursor.line();
    if (trace_detail::is_blank(line) || trace_detail::is_comment(line)) continue;
    const std::size_t line_no = cursor.number();
    if (!cols) {
      cols = parse_header(path, line_no, line);
      continue;
    }

    trace_detail::split_into(line, ',', fields);
    if (fields.size() != cols->count) {
      throw InputError(path, line_no, "",
                       fmt::format("expected {} comma-separated fields as in the header, got {}",
                                   cols->count, fields.size()));
    }
    auto field = [&](Column c) { return trim(fields[cols->index[c]]); };
    auto pos = [&](Column c) { return SourcePos{path, line_no, column_names[c]}; };
    // Optional columns may be left empty in a row to take their default.
    auto given = [&](Column c) { return cols->has(c) && !field(c).empty(); };

    JobSpec job;
    job.source_file = source;
    job.source_line = line_no;

    std::string_view id = field(JobId);
    trace_detail::check_job_id(id, SourcePos{path, line_no, "job_id"});
    auto [it, inserted] = first_line_of_id.emplace(id, line_no);
    if (!inserted) {
      throw InputError(
          path, line_no, "job_id",
          fmt::format("duplicate job id '{}' (first used on line {})", id, it->second));
    }
    job.id = std::string(id);

    double submit_s = parse_double(field(SubmitS), pos(SubmitS));
    job.requested_gpus =
        trace_detail::to_int(parse_int(field(NumGpus), pos(NumGpus)), pos(NumGpus));
    job.work = parse_double(field(cols->work), pos(cols->work));
    job.unit = unit_of(cols->work);
    if (cols->has(JobType)) job.job_type = std::string(field(JobType));
    if (given(BatchSize)) {
      job.global_batch_size =
          trace_detail::to_int(parse_int(field(BatchSize), pos(BatchSize)), pos(BatchSize));
    }
    if (given(PriorityWeight)) {
      job.priority_weight = parse_double(field(PriorityWeight), pos(PriorityWeight));
    }
    job.min_gpus = given(MinGpus)
                       ? trace_detail::to_int(parse_int(field(MinGpus), pos(MinGpus)), pos(MinGpus))
                       : job.requested_gpus;
    job.max_gpus = given(MaxGpus)
                       ? trace_detail::to_int(parse_int(field(MaxGpus), pos(MaxGpus)), pos(MaxGpus))
                       : job.requested_gpus;
    if (given(GpuMilli)) job.gpu_milli = parse_gpu_milli(field(GpuMilli), job, pos(GpuMilli));
    if (cols->has(DeadlineS)) job.deadline_s = trace_detail::parse_deadline(field(DeadlineS), submit_s, pos(DeadlineS));

    trace_detail::check_job(
        job, submit_s,
        {.work = column_names[cols->work], .gpus = "num_gpus", .submit = "submit_s"});
    if (job.global_batch_size < 0 && job.invalid_reason.empty()) {
      job.invalid_reason =
          trace_detail::describe(path, line_no, "batch_size",
                                 fmt::format("negative batch size ({})", job.global_batch_size));
    }
    jobs.push_back(std::move(job));
  }
  if (!cols) {
    throw InputError(path, 0, "", "no header line (a native trace starts with its column names)");
  }
  return trace_detail::finish_workload(std::move(jobs), path, TraceFormat::Native);
}

}  // namespace hetsim
