#include "run_warnings.hpp"

#include <fmt/format.h>

namespace hetsim::app {

void log_run_warnings(const Logger& log, const RunOutput& out, bool has_horizon, const std::string& prefix) {
  for (const std::string& n : out.model_notes) log.note(prefix + n);
  log_run_warnings_only(log, out, has_horizon, prefix);
}

void log_run_warnings_only(const Logger& log, const RunOutput& out, bool has_horizon, const std::string& prefix) {
  for (const std::string& w : out.stats.warnings) log.warning(prefix + w);
  if (out.summary.solver_time_limits > 0)
    log.warning(fmt::format("{}{} solver searches stopped at the wall-time safety net; their answers, and so "
                            "this run's results, depend on machine speed and load (solver_time_limits in summary.json)",
                            prefix, out.summary.solver_time_limits));
  if (out.stats.refused_requests > out.stats.warnings.size())
    log.warning(fmt::format("{}{} more refused policy requests", prefix,
                            out.stats.refused_requests - out.stats.warnings.size()));
  if (out.summary.unfinished > 0 && !has_horizon) {
    // Without --until every job should finish; say so on stderr, not only in jobs.csv.
    std::size_t shown = 0;
    for (const JobRecord& r : out.records)
      if (r.status == JobStatus::Unfinished && shown++ < 3) log.note(fmt::format("{}unfinished: {}: {}", prefix, r.job_id, r.reason));
    log.warning(fmt::format("{}{} of {} jobs did not finish without an --until horizon (reasons in jobs.csv)", prefix,
                            out.summary.unfinished, out.summary.jobs_read));
  }
  log.info(fmt::format("{}{} events, {} scheduling passes", prefix, out.stats.events, out.stats.scheduling_passes));
}

}  // namespace hetsim::app
