// Gavel's tab-separated job traces (stanford-futuredata/gavel) and Shockwave's extension of them.
// Three layouts share the reader, told apart by their field count:
//   7  (simulation traces):  job_type, command, num_steps_arg, needs_data_dir, total_steps,
//                            arrival_time, scale_factor
//   10 (physical cluster):   job_type, command, working_directory, num_steps_arg, needs_data_dir,
//                            total_steps, scale_factor, priority_weight, SLO, arrival_time
//   12 (Shockwave):          job_type, command, working_directory, num_steps_arg, needs_data_dir,
//                            total_steps, scale_factor, mode, priority_weight, SLO, duration,
//                            arrival_time
#include <fmt/format.h>

#include <charconv>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

namespace {

using trace_detail::LineCursor;

constexpr std::size_t absent = static_cast<std::size_t>(-1);

/// 0-based positions of the fields hetsim uses in one layout.
struct GavelLayout {
  std::size_t total_steps;
  std::size_t scale_factor;
  std::size_t arrival_time;
  std::size_t priority_weight;  ///< `absent` in the 7-field layout (weight 1)
};

std::optional<GavelLayout> layout_for(std::size_t field_count) {
  switch (field_count) {
    case 7: return GavelLayout{4, 6, 5, absent};
    case 10: return GavelLayout{5, 6, 9, 7};
    case 12: return GavelLayout{5, 6, 11, 8};
    default: return std::nullopt;
  }
}

/// The N of "(batch size N)" in a Gavel job type, 0 when the job type does not carry one (A3C,
/// CycleGAN).
int batch_size_of(std::string_view job_type) {
  constexpr std::string_view marker = "(batch size ";
  std::size_t at = job_type.find(marker);
  if (at == std::string_view::npos) return 0;
  std::string_view rest = job_type.substr(at + marker.size());
  int value = 0;
  auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (ec != std::errc() || ptr == rest.data() + rest.size() || *ptr != ')' || value < 0) return 0;
  return value;
}

}  // namespace

Workload read_gavel_trace(const std::string& path, std::string_view text) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  LineCursor cursor(text);
  std::vector<JobSpec> jobs;
  std::vector<std::string_view> fields;
  std::optional<GavelLayout> layout;
  std::size_t layout_count = 0;
  std::size_t layout_line = 0;

  while (cursor.next()) {
    std::string_view line = cursor.line();
    if (trace_detail::is_blank(line)) continue;
    const std::size_t line_no = cursor.number();

    trace_detail::split_into(line, '\t', fields);
    if (!layout) {
      layout = layout_for(fields.size());
      if (!layout) {
        throw InputError(
            path, line_no, "",
            fmt::format("expected 7, 10 or 12 tab-separated fields, got {}", fields.size()));
      }
      layout_count = fields.size();
      layout_line = line_no;
    } else if (fields.size() != layout_count) {
      // Mixed layouts in one file would mean guessing which column is which.
      throw InputError(path, line_no, "",
                       fmt::format("expected {} tab-separated fields like line {}, got {}",
                                   layout_count, layout_line, fields.size()));
    }
    auto pos = [&](std::string_view name) { return SourcePos{path, line_no, name}; };

    JobSpec job;
    job.id = fmt::format("gavel-{}", line_no);
    job.source_file = source;
    job.source_line = line_no;
    job.job_type = std::string(fields[0]);
    if (trim(job.job_type).empty()) throw InputError(path, line_no, "job_type", "empty job type");
    job.global_batch_size = batch_size_of(job.job_type);
    job.unit = WorkUnit::Iterations;
    job.work = static_cast<double>(parse_int(fields[layout->total_steps], pos("total_steps")));
    job.requested_gpus = trace_detail::to_int(
        parse_int(fields[layout->scale_factor], pos("scale_factor")), pos("scale_factor"));
    job.min_gpus = job.requested_gpus;
    job.max_gpus = job.requested_gpus;
    if (layout->priority_weight != absent) {
      job.priority_weight = parse_double(fields[layout->priority_weight], pos("priority_weight"));
    }
    double submit_s = parse_double(fields[layout->arrival_time], pos("arrival_time"));

    trace_detail::check_job(
        job, submit_s, {.work = "total_steps", .gpus = "scale_factor", .submit = "arrival_time"});
    jobs.push_back(std::move(job));
  }
  return trace_detail::finish_workload(std::move(jobs), path, TraceFormat::Gavel);
}

}  // namespace hetsim
