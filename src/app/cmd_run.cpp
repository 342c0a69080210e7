// `hetsim run`: one simulation, summary on stdout, jobs.csv + summary.json with --out, a Chrome
// trace-event timeline and a utilisation CSV with --timeline.
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "hetsim/metrics/timeline.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "log.hpp"
#include "progress.hpp"
#include "python_host.hpp"
#include "run_options.hpp"

namespace hetsim::app {
namespace {

struct RunCommandOptions {
  RunOptions run;
  std::string out;
  std::string timeline;
  bool quiet = false;
  LogLevel log_level = LogLevel::Warning;
  double progress_period_s = -1;  // < 0: the defaults (1 s before the first line, then every 5 s)
};

// FILE.json -> FILE.utilization.csv (FILE -> FILE.utilization.csv without an extension).
std::string utilization_path(const std::string& timeline) {
  std::filesystem::path p(timeline);
  if (p.extension() == ".json") p.replace_extension();
  return p.string() + ".utilization.csv";
}

}  // namespace

Action add_run_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Replay a trace on a cluster under one policy. With no options: the built-in default "
             "(cluster 'default', a seeded synthetic workload, policy fifo).");
  add_run_spec_options(cmd, opts->run);
  cmd->add_option("--out", opts->out, "Write DIR/jobs.csv and DIR/summary.json");
  cmd->add_option("--timeline", opts->timeline,
                  "Write the run as Chrome trace-event JSON to FILE (open in Perfetto or chrome://tracing), and "
                  "busy GPUs over time to FILE's stem + .utilization.csv");
  add_quiet_flag(cmd, opts->quiet);
  add_log_level_option(cmd, opts->log_level);
  add_progress_period_option(cmd, opts->progress_period_s);

  return [opts, &registry]() -> int {
    RunSpec spec = to_run_spec(opts->run);
    const PolicyHost host(registry, opts->run.policy_files);
    if (!host.names().empty() && opts->run.policy_option->count() == 0) spec.policy = host.names().front();
    // Where the results go is checked before they are computed.
    if (!opts->out.empty()) check_output_folder(opts->out, "--out");
    if (!opts->timeline.empty()) {
      check_output_file(opts->timeline, "--timeline");
      check_output_file(utilization_path(opts->timeline), "--timeline");
    }
    TimelineRecorder timeline;
    UtilizationRecorder utilization;
    std::vector<JobEventSink*> sinks;
    if (!opts->timeline.empty()) sinks = {&timeline, &utilization};
    RunProgressSink progress(ProgressSettings::for_stderr(opts->quiet, opts->progress_period_s));
    if (!opts->quiet) sinks.push_back(&progress);
    const Logger log(opts->log_level);
    auto t0 = std::chrono::steady_clock::now();
    RunOutput out = run_simulation(spec, host.registry(), sinks);
    double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The table first: should a write still fail (the disk fills meanwhile), the results are shown.
    if (!opts->quiet) {
      print_summary_table(std::cout, out.summary, out.info);
      fmt::print("  {:<22}{:>16.3f}\n", "wall time (s)", wall_s);
      std::cout.flush();
    }
    if (!opts->out.empty()) write_run_outputs(opts->out, out);
    if (!opts->timeline.empty()) {
      write_file_checked(opts->timeline, "--timeline", [&](std::ostream& out) { timeline.write(out); });
      write_file_checked(utilization_path(opts->timeline), "--timeline",
                         [&](std::ostream& out) { utilization.write_csv(out); });
    }
    if (!opts->quiet) {
      if (!opts->out.empty()) fmt::print("outputs: {}/jobs.csv, {}/summary.json\n", opts->out, opts->out);
      if (!opts->timeline.empty())
        fmt::print("timeline: {} (Perfetto / chrome://tracing), {}\n", opts->timeline, utilization_path(opts->timeline));
    }
    for (const std::string& n : out.model_notes) log.note(n);
    for (const std::string& w : out.stats.warnings) log.warning(w);
    if (out.summary.solver_time_limits > 0)
      log.warning(fmt::format("{} solver searches stopped at the wall-time safety net; their answers, and so "
                              "this run's results, depend on machine speed and load (solver_time_limits in summary.json)",
                              out.summary.solver_time_limits));
    if (out.stats.refused_requests > out.stats.warnings.size())
      log.warning(fmt::format("{} more refused policy requests", out.stats.refused_requests - out.stats.warnings.size()));
    if (out.summary.unfinished > 0 && !spec.mechanism.until_s) {
      // Without --until every job should finish; say so on stderr, not only in jobs.csv.
      std::size_t shown = 0;
      for (const JobRecord& r : out.records)
        if (r.status == JobStatus::Unfinished && shown++ < 3) log.note(fmt::format("unfinished: {}: {}", r.job_id, r.reason));
      log.warning(fmt::format("{} of {} jobs did not finish without an --until horizon (reasons in jobs.csv)",
                              out.summary.unfinished, out.summary.jobs_read));
    }
    if (out.summary.rejected > 0) {
      std::size_t shown = 0;
      for (const JobRecord& r : out.records) {
        if (r.status != JobStatus::Rejected) continue;
        if (shown++ < 10) fmt::print(stderr, "hetsim: rejected: {}\n", r.reason);
      }
      fmt::print(stderr, "hetsim: {} of {} jobs rejected (reasons in jobs.csv); exit code {}\n", out.summary.rejected,
                 out.summary.jobs_read, static_cast<int>(kJobsRejected));
      return kJobsRejected;
    }
    return kOk;
  };
}

}  // namespace hetsim::app
