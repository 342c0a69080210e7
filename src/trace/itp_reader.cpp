// Microsoft ITP job traces as published with ElasticFlow (Gu et al., "ElasticFlow: An Elastic
// Serverless Training Platform for Distributed Deep Learning", ASPLOS'23; github.com/microsoft/
// elasticflow-traces): raw `job_id,submission_time,duration,num_gpu` per cluster, and the
// ElasticFlow variant that adds randomly drawn `num_iteration,model_name,deadline,batch_size`.
// Columns are found by name, so one reader serves both.
#include <fmt/format.h>

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

struct Columns {
  // Positions in the header, kAbsentColumn when it lacks the column.
  std::size_t id, submit, duration, gpus, iterations, model, deadline, batch;
};

Columns find_columns(const std::vector<std::string_view>& header, const std::string& path, std::size_t line_no,
                     bool iterations_as_work) {
  const auto at = trace_detail::header_columns(header, {"job_id", "submission_time", "duration", "num_gpu",
                                                        "num_iteration", "model_name", "deadline", "batch_size"},
                                               path, line_no);
  const Columns c{at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7]};
  require_column(c.id, "job_id", path, line_no);
  require_column(c.submit, "submission_time", path, line_no);
  require_column(c.gpus, "num_gpu", path, line_no);
  if (!iterations_as_work) {
    require_column(c.duration, "duration", path, line_no);
  } else {
    // Iterations only mean something with the model that runs them.
    constexpr std::string_view why = "format itp-ef reads ElasticFlow's extended traces; use format itp for the raw ones";
    require_column(c.iterations, "num_iteration", path, line_no, why);
    require_column(c.model, "model_name", path, line_no, why);
  }
  return c;
}

}  // namespace

Workload read_itp_trace(const std::string& path, std::string_view text, bool iterations_as_work) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  trace_detail::LineCursor cursor(text);
  std::vector<std::string_view> f;
  if (!trace_detail::read_header(cursor, ',', f)) throw InputError(path, 0, "", "no header line");
  const std::size_t count = f.size();
  const Columns c = find_columns(f, path, cursor.number(), iterations_as_work);

  std::vector<JobSpec> jobs;
  std::set<std::string, std::less<>> ids;
  std::size_t with_deadline = 0;
  while (trace_detail::next_csv_row(cursor, f, count, path)) {
    const std::size_t ln = cursor.number();
    JobSpec job;
    job.id = std::string(trim(f[c.id]));
    trace_detail::check_job_id(job.id, SourcePos{path, ln, "job_id"});
    if (!ids.emplace(job.id).second) throw InputError(path, ln, "job_id", fmt::format("duplicate job id '{}'", job.id));
    job.source_file = source;
    job.source_line = ln;
    const double submit_s = parse_double(f[c.submit], SourcePos{path, ln, "submission_time"});
    const SourcePos gpus_pos{path, ln, "num_gpu"};
    job.requested_gpus = trace_detail::to_int(parse_int(f[c.gpus], gpus_pos), gpus_pos);
    job.min_gpus = job.requested_gpus;
    job.max_gpus = job.requested_gpus;
    // Every present column is checked, used or not, so a damaged cell never passes unnoticed.
    double duration_s = 0.0, iterations = 0.0;
    if (c.duration != kAbsentColumn) duration_s = parse_double(f[c.duration], SourcePos{path, ln, "duration"});
    if (c.iterations != kAbsentColumn) {
      const SourcePos pos{path, ln, "num_iteration"};
      iterations = static_cast<double>(parse_int(f[c.iterations], pos));
    }
    if (c.model != kAbsentColumn) {
      job.job_type = std::string(trim(f[c.model]));
      if (job.job_type.empty() && iterations_as_work) throw InputError(path, ln, "model_name", "empty model name");
    }
    if (c.batch != kAbsentColumn) {
      const SourcePos pos{path, ln, "batch_size"};
      job.global_batch_size = trace_detail::to_int(parse_int(f[c.batch], pos), pos);
    }
    if (c.deadline != kAbsentColumn) {
      job.deadline_s = trace_detail::parse_deadline(f[c.deadline], submit_s, SourcePos{path, ln, "deadline"});
      if (job.deadline_s) ++with_deadline;
    }
    if (iterations_as_work) {
      job.unit = WorkUnit::Iterations;
      job.work = iterations;
    } else {
      job.unit = WorkUnit::ReferenceSeconds;
      job.work = duration_s;
    }
    trace_detail::check_job(job, submit_s,
                            {.work = iterations_as_work ? "num_iteration" : "duration", .gpus = "num_gpu",
                             .submit = "submission_time"});
    if (c.batch != kAbsentColumn && job.global_batch_size <= 0 && job.invalid_reason.empty())
      job.invalid_reason = trace_detail::describe(path, ln, "batch_size",
                                                  fmt::format("batch size must be positive (got {})", job.global_batch_size));
    jobs.push_back(std::move(job));
  }
  const TraceFormat format = iterations_as_work ? TraceFormat::ItpEf : TraceFormat::Itp;
  Workload w = trace_detail::finish_workload(std::move(jobs), path, format);
  // Said once, so that a run under a deadline-blind policy does not look as if it ignored them.
  if (with_deadline > 0)
    w.notes.push_back(fmt::format("{}: deadlines of {} jobs read (reported in jobs.csv and summary.json; only the "
                                  "edf and elasticflow policies schedule by them)",
                                  to_string(format), with_deadline));
  return w;
}

}  // namespace hetsim
