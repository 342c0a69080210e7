// Alibaba's OpenB pod lists (github.com/alibaba/clusterdata, cluster-trace-gpu-v2023; Weng et al.,
// "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
// Descent", USENIX ATC'23): `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
// creation_time,deletion_time,scheduled_time`, one pod per row, times in seconds from the start.
// The trace records pods, not training jobs, so the mapping to jobs is a set of rules; each rule
// that changes or skips something is counted in a Workload note so a run never hides it.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

namespace {

using trace_detail::kAbsentColumn;
using trace_detail::require_column;

// One milli-GPU unit: gpu_milli = 1000 is a whole GPU.
constexpr long long kWholeGpuMilli = 1000;

struct Columns {
  // Positions in the header, kAbsentColumn when it lacks the column.
  std::size_t name, num_gpu, gpu_milli, gpu_spec, pod_phase, creation, deletion, scheduled;
};

Columns find_columns(const std::vector<std::string_view>& header, const std::string& path, std::size_t line_no) {
  const auto at = trace_detail::header_columns(header, {"name", "num_gpu", "gpu_milli", "gpu_spec", "pod_phase",
                                                        "creation_time", "deletion_time", "scheduled_time"},
                                               path, line_no);
  const Columns c{at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7]};
  require_column(c.name, "name", path, line_no);
  require_column(c.num_gpu, "num_gpu", path, line_no);
  require_column(c.gpu_milli, "gpu_milli", path, line_no);
  // The multigpu50 resample of the published trace has no times at all: it feeds a static
  // bin-packing experiment, so there is nothing to replay over time.
  constexpr std::string_view no_times =
      "a pod list without creation/deletion/scheduled times, like openb_pod_list_multigpu50.csv, has no arrivals or "
      "durations to simulate";
  require_column(c.creation, "creation_time", path, line_no, no_times);
  require_column(c.deletion, "deletion_time", path, line_no, no_times);
  require_column(c.scheduled, "scheduled_time", path, line_no, no_times);
  return c;
}

// "A|b| a" -> {"a", "b"}: lower-case, trimmed, first occurrence kept (the published file repeats
// V100M32 in some specs).
std::vector<std::string> parse_gpu_spec(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view part : split(text, '|')) {
    std::string name = to_lower(trim(part));
    if (name.empty()) continue;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

Workload read_alibaba_openb_trace(const std::string& path, std::string_view text) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  trace_detail::LineCursor cursor(text);
  std::vector<std::string_view> f;
  if (!trace_detail::read_header(cursor, ',', f)) throw InputError(path, 0, "", "no header line");
  const std::size_t count = f.size();
  const Columns c = find_columns(f, path, cursor.number());

  std::vector<JobSpec> jobs;
  std::set<std::string, std::less<>> names;
  std::size_t cpu_only = 0, sharing = 0, sharing_multi = 0, zero_milli = 0, unscheduled = 0, running = 0, constrained = 0;
  while (trace_detail::next_csv_row(cursor, f, count, path)) {
    const std::size_t ln = cursor.number();
    const std::string_view name = trim(f[c.name]);
    if (name.empty()) throw InputError(path, ln, "name", "empty pod name");
    trace_detail::check_job_id(name, SourcePos{path, ln, "name"});
    if (!names.emplace(name).second) throw InputError(path, ln, "name", fmt::format("duplicate pod name '{}'", name));

    const SourcePos gpus_pos{path, ln, "num_gpu"};
    const int num_gpu = trace_detail::to_int(parse_int(f[c.num_gpu], gpus_pos), gpus_pos);
    const SourcePos milli_pos{path, ln, "gpu_milli"};
    const long long milli = parse_int(f[c.gpu_milli], milli_pos);
    if (milli < 0 || milli > kWholeGpuMilli)
      throw InputError(path, ln, "gpu_milli", fmt::format("must be between 0 and 1000 (thousandths of one GPU), got {}", milli));
    // Times are parsed for every row, CPU-only pods too, so a damaged row is reported wherever it is.
    const double created_s = parse_double(f[c.creation], SourcePos{path, ln, "creation_time"});
    if (trim(f[c.deletion]).empty())
      throw InputError(path, ln, "deletion_time", "empty (every pod of the published trace has one)");
    const double deleted_s = parse_double(f[c.deletion], SourcePos{path, ln, "deletion_time"});
    const bool scheduled = !trim(f[c.scheduled]).empty();
    const double started_s = scheduled ? parse_double(f[c.scheduled], SourcePos{path, ln, "scheduled_time"}) : created_s;

    if (num_gpu == 0) {
      ++cpu_only;
      continue;
    }
    JobSpec job;
    job.id = std::string(name);
    job.source_file = source;
    job.source_line = ln;
    job.unit = WorkUnit::ReferenceSeconds;
    job.work = deleted_s - started_s;
    job.requested_gpus = num_gpu;
    job.min_gpus = num_gpu;
    job.max_gpus = num_gpu;
    // A GPU-sharing pod (num_gpu = 1, 0 < gpu_milli < 1000) holds that fraction of one GPU and
    // shares it with other such pods (Weng et al., ATC'23). A fraction on several GPUs (not in the
    // published files) and gpu_milli = 0 on a GPU pod run on whole GPUs, each counted in a note.
    if (num_gpu == 1 && milli > 0 && milli < kWholeGpuMilli) {
      job.gpu_milli = static_cast<int>(milli);
      ++sharing;
    } else if (num_gpu > 0 && milli < kWholeGpuMilli) {
      ++(num_gpu == 1 ? zero_milli : sharing_multi);
    }
    if (!scheduled) ++unscheduled;
    if (c.pod_phase != kAbsentColumn && trim(f[c.pod_phase]) == "Running") ++running;
    if (c.gpu_spec != kAbsentColumn) {
      job.allowed_gpu_types = parse_gpu_spec(f[c.gpu_spec]);
      if (!job.allowed_gpu_types.empty()) ++constrained;
    }
    trace_detail::check_job(job, created_s,
                            {.work = "deletion_time", .gpus = "num_gpu", .submit = "creation_time"});
    jobs.push_back(std::move(job));
  }

  Workload w = trace_detail::finish_workload(std::move(jobs), path, TraceFormat::AlibabaOpenb);
  w.rows_skipped = cpu_only;
  const std::string tag = "alibaba-openb";
  w.notes.push_back(fmt::format("{}: {} GPU pods read as jobs; {} CPU-only pods (num_gpu = 0) skipped: not GPU jobs",
                                tag, w.jobs.size(), cpu_only));
  if (sharing > 0)
    w.notes.push_back(fmt::format("{}: {} GPU-sharing pods (num_gpu = 1, gpu_milli < 1000) hold their fraction of one "
                                  "GPU, shared with other such pods (whole GPUs under policies that cannot share)",
                                  tag, sharing));
  if (zero_milli > 0)
    w.notes.push_back(fmt::format("{}: {} pods with num_gpu = 1 and gpu_milli = 0 run on 1 whole GPU", tag, zero_milli));
  if (unscheduled > 0)
    w.notes.push_back(fmt::format("{}: {} pods were never scheduled (empty scheduled_time): duration counted from "
                                  "creation_time",
                                  tag, unscheduled));
  if (running > 0)
    w.notes.push_back(fmt::format("{}: {} pods were still Running at the end of the collection: duration ends at "
                                  "their recorded deletion_time (a lower bound)",
                                  tag, running));
  if (sharing_multi > 0)
    w.notes.push_back(fmt::format("{}: {} pods with gpu_milli < 1000 on num_gpu > 1 run on num_gpu whole GPUs", tag,
                                  sharing_multi));
  if (constrained > 0)
    w.notes.push_back(fmt::format("{}: {} pods restricted to GPU types by gpu_spec", tag, constrained));
  return w;
}

}  // namespace hetsim
