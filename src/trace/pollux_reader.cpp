// Pollux/Sia workload CSVs (petuum/adaptdl osdi21-artifact simulator/workloads*/, Sia's
// workloads/): `name,time,application,num_replicas,batch_size`, one job per row, in time order.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "reader_common.hpp"

namespace hetsim {

Workload read_pollux_workload(const std::string& path, std::string_view text) {
  const auto source = std::make_shared<const std::string>(path);  // one copy for all its jobs
  using trace_detail::LineCursor;
  LineCursor cursor(text);
  std::vector<std::string> header;
  std::size_t c_name = 0, c_time = 0, c_app = 0, c_gpus = 0, c_bsz = 0;
  std::vector<JobSpec> jobs;
  std::set<std::string> names;
  std::vector<std::string_view> f;
  while (cursor.next()) {
    std::string_view line = cursor.line();
    if (trace_detail::is_blank(line)) continue;
    trace_detail::split_into(line, ',', f);
    if (header.empty()) {
      for (std::string_view h : f) header.emplace_back(trim(h));
      auto col = [&](const char* name) {
        for (std::size_t i = 0; i < header.size(); ++i)
          if (header[i] == name) return i;
        throw InputError(path, cursor.number(), name, "missing column (expected name,time,application,num_replicas,batch_size)");
      };
      c_name = col("name");
      c_time = col("time");
      c_app = col("application");
      c_gpus = col("num_replicas");
      c_bsz = col("batch_size");
      continue;
    }
    const std::size_t ln = cursor.number();
    if (f.size() != header.size())
      throw InputError(path, ln, "", fmt::format("expected {} fields, got {}", header.size(), f.size()));
    JobSpec job;
    job.source_file = source;
    job.source_line = ln;
    job.id = std::string(trim(f[c_name]));
    if (job.id.empty()) throw InputError(path, ln, "name", "empty job name");
    trace_detail::check_job_id(job.id, SourcePos{path, ln, "name"});
    if (!names.insert(job.id).second) throw InputError(path, ln, "name", "duplicate job name '" + job.id + "'");
    double submit_s = parse_double(f[c_time], SourcePos{path, ln, "time"});
    job.job_type = std::string(trim(f[c_app]));
    if (job.job_type.empty()) throw InputError(path, ln, "application", "empty application");
    job.requested_gpus = trace_detail::to_int(parse_int(f[c_gpus], SourcePos{path, ln, "num_replicas"}),
                                              SourcePos{path, ln, "num_replicas"});
    job.min_gpus = 1;
    job.max_gpus = std::max(job.requested_gpus, 1);
    job.global_batch_size = trace_detail::to_int(parse_int(f[c_bsz], SourcePos{path, ln, "batch_size"}),
                                                 SourcePos{path, ln, "batch_size"});
    job.unit = WorkUnit::StatisticalProgress;
    job.work = 0.0;
    trace_detail::check_job(job, submit_s, trace_detail::FieldNames{"application", "num_replicas", "time"});
    if (job.global_batch_size <= 0 && job.invalid_reason.empty())
      job.invalid_reason = trace_detail::describe(path, ln, "batch_size",
                                                  fmt::format("batch size must be positive (got {})", job.global_batch_size));
    jobs.push_back(std::move(job));
  }
  if (header.empty()) throw InputError(path, 0, "", "empty workload (no header)");
  return trace_detail::finish_workload(std::move(jobs), path, TraceFormat::Pollux);
}

}  // namespace hetsim
