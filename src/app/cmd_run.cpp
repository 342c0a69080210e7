// `hetsim run`: one simulation, summary on stdout, jobs.csv + summary.json with --out; with
// --timeline, a Chrome trace-event timeline, its allocations as CSV and a utilisation CSV, all
// streamed while the run goes.
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hetsim/metrics/timeline.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/util/temporary_files.hpp"
#include "log.hpp"
#include "progress.hpp"
#include "python_host.hpp"
#include "run_options.hpp"
#include "run_warnings.hpp"

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

// FILE.json -> FILE.<what>.csv (FILE -> FILE.<what>.csv without an extension).
std::string sibling_csv(const std::string& timeline, const char* what) {
  std::filesystem::path p(timeline);
  if (p.extension() == ".json") p.replace_extension();
  return p.string() + "." + what + ".csv";
}

// One file a run will write and the option that named it.
struct PlannedOutput {
  std::string option;  // "--out", "--timeline"
  std::string path;    // as the user would recognise it
};

// Every file of this run: --out's two and --timeline's three.
std::vector<PlannedOutput> planned_outputs(const RunCommandOptions& o) {
  std::vector<PlannedOutput> files;
  if (!o.out.empty())
    for (const char* name : {"jobs.csv", "summary.json"}) files.push_back({"--out", (std::filesystem::path(o.out) / name).string()});
  if (!o.timeline.empty()) {
    files.push_back({"--timeline", o.timeline});
    for (const char* what : {"allocations", "utilization"}) files.push_back({"--timeline", sibling_csv(o.timeline, what)});
  }
  return files;
}

// The files this run reads that an output could be mistaken for: trace, workload, throughput
// table, cluster JSON, Python policy files, a policy's input file (--param samples_csv); folders such
// as --profiles cannot be an output file.
std::vector<PlannedOutput> input_files(const RunCommandOptions& o, const PolicyParams& params) {
  RunSpec spec = o.run.spec;
  spec.params = params;
  std::vector<PlannedOutput> files;
  for (const auto& [option, path] : run_input_files(spec)) files.push_back({option, path});
  for (const std::string& f : o.run.policy_files) files.push_back({"--policy-file", f.substr(0, f.rfind(':'))});
  return files;
}

// A path as the file system resolves it: `OUT/./x`, `OUT/x` and its absolute path are one file.
std::filesystem::path resolved_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  return ec ? std::filesystem::absolute(path).lexically_normal() : p;
}

// FILE as a path from FOLDER, both resolved as above, so summary.json names the timeline without
// the machine's folders: "t.json" beside jobs.csv, "../t.json" one folder up.
std::string path_from_folder(const std::string& file, const std::string& folder) {
  return resolved_path(file).lexically_relative(resolved_path(folder)).generic_string();
}

// Two outputs on one path would overwrite each other after the run (the last rename wins), and an
// output on an input file would replace the user's data; both are refused before the run.
void check_outputs_distinct(const std::vector<PlannedOutput>& files, const std::vector<PlannedOutput>& inputs) {
  std::vector<std::filesystem::path> resolved, resolved_inputs;
  for (const PlannedOutput& f : files) resolved.push_back(resolved_path(f.path));
  for (const PlannedOutput& in : inputs) resolved_inputs.push_back(resolved_path(in.path));
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (resolved[i] == resolved[j])
        throw InputError(files[i].path, 0, files[i].option,
                         fmt::format("{} would write the same file as {} ({}); give {} another path", files[i].option,
                                     files[j].option, files[j].path, files[i].option));
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (resolved[i] == resolved_inputs[k])
        throw InputError(files[i].path, 0, files[i].option,
                         fmt::format("{} would overwrite the file {} reads ({}); give {} another path", files[i].option,
                                     inputs[k].option, inputs[k].path, files[i].option));
  }
}

// The three files of --timeline, open (as hidden temporaries) from before the run to its end.
struct TimelineFiles {
  StreamedOutputFile trace, allocations, utilization;
  TimelineRecorder timeline{trace.stream(), &allocations.stream()};
  UtilizationRecorder busy{utilization.stream()};
  explicit TimelineFiles(const std::string& path)
      : trace(path, "--timeline"),
        allocations(sibling_csv(path, "allocations"), "--timeline"),
        utilization(sibling_csv(path, "utilization"), "--timeline") {}
  // All three written and closed before any is renamed: a write that fails leaves none of them.
  void commit() {
    for (StreamedOutputFile* f : {&trace, &allocations, &utilization}) f->finish();
    trace.commit();
    allocations.commit();
    utilization.commit();
  }
};

}  // namespace

Action add_run_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Replay a trace on a cluster under one policy. With no options: the built-in default "
             "(cluster 'default', a seeded synthetic workload, policy fifo).");
  add_run_spec_options(cmd, opts->run);
  cmd->add_option("--out", opts->out, "Write DIR/jobs.csv and DIR/summary.json");
  cmd->add_option("--timeline", opts->timeline,
                  "Write the run as Chrome trace-event JSON to FILE (open it in ui.perfetto.dev), its allocations "
                  "to FILE.allocations.csv and busy GPUs and queued jobs over time to FILE.utilization.csv (FILE "
                  "without a .json ending: t.json -> t.allocations.csv), streamed while the run goes (hetsim report draws them)");
  add_quiet_flag(cmd, opts->quiet);
  add_log_level_option(cmd, opts->log_level);
  add_progress_period_option(cmd, opts->progress_period_s);

  return [opts, &registry]() -> int {
    RunSpec spec = to_run_spec(opts->run);
    const PolicyHost host(registry, opts->run.policy_files);
    if (!host.names().empty() && opts->run.policy_option->count() == 0) spec.policy = host.names().front();
    // Where the results go is checked before they are computed.
    check_outputs_distinct(planned_outputs(*opts), input_files(*opts, spec.params));
    if (!opts->out.empty()) check_output_folder(opts->out, "--out");
    std::optional<TimelineFiles> timeline;
    std::vector<JobEventSink*> sinks;
    if (!opts->timeline.empty()) {
      check_output_file(opts->timeline, "--timeline");
      for (const char* what : {"allocations", "utilization"}) check_output_file(sibling_csv(opts->timeline, what), "--timeline");
      timeline.emplace(opts->timeline);
      sinks = {&timeline->timeline, &timeline->busy};
    }
    RunProgressSink progress(ProgressSettings::for_stderr(opts->quiet, opts->log_level, opts->progress_period_s));
    if (progress.enabled()) sinks.push_back(&progress);
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
    if (!opts->out.empty() && !opts->timeline.empty()) out.info.timeline = path_from_folder(opts->timeline, opts->out);
    {
      // A kill between two renames would mix this run's files with an earlier run's.
      const DeferTerminationSignals whole_outputs;
      if (!opts->out.empty()) write_run_outputs(opts->out, out);
      if (timeline) timeline->commit();
    }
    if (!opts->quiet) {
      if (!opts->out.empty()) fmt::print("outputs: {}/jobs.csv, {}/summary.json\n", opts->out, opts->out);
      if (!opts->timeline.empty())
        fmt::print("timeline: {} (ui.perfetto.dev), {}, {} (hetsim report DIR draws them)\n", opts->timeline,
                   sibling_csv(opts->timeline, "allocations"), sibling_csv(opts->timeline, "utilization"));
    }
    log_run_warnings(log, out, spec.mechanism.until_s.has_value());
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
