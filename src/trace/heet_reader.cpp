// The trace of the Heet prototype (mozizhao/elastic, trace.dat): headerless CSV
// `arrival_round,model,epochs,requested_gpus,global_batch_size`, arrivals counted in scheduling
// rounds rather than seconds.
#include <fmt/format.h>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

Workload read_heet_trace(const std::string& path, std::string_view text,
                         const TraceOptions& options) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  if (!(options.heet_round_s > 0.0)) {
    throw InputError(path, 0, "heet_round_s",
                     fmt::format("round length must be positive (got {})", options.heet_round_s));
  }
  trace_detail::LineCursor cursor(text);
  std::vector<JobSpec> jobs;
  std::vector<std::string_view> fields;

  while (cursor.next()) {
    std::string_view line = cursor.line();
    if (trace_detail::is_blank(line)) continue;
    const std::size_t line_no = cursor.number();
    trace_detail::split_into(line, ',', fields);
    if (fields.size() != 5) {
      throw InputError(path, line_no, "",
                       fmt::format("expected 5 comma-separated fields (arrival_round, model, "
                                   "epochs, requested_gpus, global_batch_size), got {}",
                                   fields.size()));
    }
    auto pos = [&](std::string_view name) { return SourcePos{path, line_no, name}; };

    JobSpec job;
    job.id = fmt::format("heet-{}", line_no);
    job.source_file = source;
    job.source_line = line_no;
    // Rounds are whole numbers in the prototype; a fraction would mean a misread column.
    const long long round = parse_int(fields[0], pos("arrival_round"));
    job.job_type = std::string(trim(fields[1]));
    if (job.job_type.empty()) throw InputError(path, line_no, "model", "empty model name");
    job.work = parse_double(fields[2], pos("epochs"));
    job.unit = WorkUnit::Epochs;
    job.requested_gpus =
        trace_detail::to_int(parse_int(fields[3], pos("requested_gpus")), pos("requested_gpus"));
    // The prototype resizes jobs itself; the trace only states the request, so hetsim reads the
    // job as rigid and leaves elasticity to the policy.
    job.min_gpus = job.requested_gpus;
    job.max_gpus = job.requested_gpus;
    job.global_batch_size = trace_detail::to_int(parse_int(fields[4], pos("global_batch_size")),
                                                 pos("global_batch_size"));

    trace_detail::check_job(
        job, static_cast<double>(round) * options.heet_round_s,
        {.work = "epochs", .gpus = "requested_gpus", .submit = "arrival_round"});
    if (job.global_batch_size < 0 && job.invalid_reason.empty()) {
      job.invalid_reason =
          trace_detail::describe(path, line_no, "global_batch_size",
                                 fmt::format("negative batch size ({})", job.global_batch_size));
    }
    jobs.push_back(std::move(job));
  }
  return trace_detail::finish_workload(std::move(jobs), path, TraceFormat::Heet);
}

}  // namespace hetsim
