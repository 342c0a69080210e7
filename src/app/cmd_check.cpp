// `hetsim check SPEC --baseline FILE`: the policy-quality regression gate. Runs every point of the
// spec afresh and compares each metric with a committed results table.
#include <filesystem>
#include <fmt/core.h>
#include <iostream>
#include <memory>
#include <random>

#include "commands.hpp"
#include "hetsim/experiment/gate.hpp"
#include "hetsim/experiment/sweep.hpp"
#include "hetsim/util/error.hpp"
#include "log.hpp"
#include "sweep_progress.hpp"
#include "python_host.hpp"
#include "run_options.hpp"

namespace hetsim::app {
namespace {

namespace fs = std::filesystem;

struct CheckOptions {
  std::string spec;
  std::string baseline;
  std::string tolerance = "2%";
  bool update = false;
  bool all = false;
  int threads = 2;
  std::string out;
  bool quiet = false;
  LogLevel log_level = LogLevel::Warning;
  double progress_period_s = -1;
  std::vector<std::string> policy_files;
};

// A fresh private folder under the system temp dir, removed when the check ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / fmt::format("hetsim-check-{:016x}", (std::uint64_t{rd()} << 32) | rd());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

Action add_check_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Regression gate: run an experiment spec and compare every metric with a baseline results table");
  cmd->add_option("spec", opts->spec, "Experiment spec (JSON)")->required();
  cmd->add_option("--baseline", opts->baseline, "Baseline results table (a results.csv)")->required();
  cmd->add_option("--tolerance", opts->tolerance, "Relative change allowed, e.g. 2% or 0.02")->capture_default_str();
  cmd->add_flag("--update-baseline", opts->update, "Write this run's results to the baseline file instead of checking");
  cmd->add_flag("--all", opts->all, "Print every compared value, not only those that moved");
  add_threads_option(cmd, opts->threads);
  add_quiet_flag(cmd, opts->quiet);
  add_log_level_option(cmd, opts->log_level);
  add_progress_period_option(cmd, opts->progress_period_s);
  cmd->add_option("--out", opts->out, "Keep the run's outputs in this folder (default: a temporary folder)");
  add_policy_file_option(cmd, opts->policy_files);
  return [opts, &base_registry = registry]() -> int {
    const double tolerance = parse_tolerance(opts->tolerance);
    const PolicyHost host(base_registry, with_spec_policy_files(opts->spec, opts->policy_files));
    const PolicyRegistry& registry = host.registry();
    const ExperimentSpec spec = load_experiment_spec(opts->spec, registry);
    const auto points = expand_points(spec, registry);
    check_point_inputs(spec, points);
    std::vector<ResultRow> baseline;
    if (!opts->update) {
      baseline = read_results_csv(opts->baseline);  // a missing baseline fails before any run
      if (baseline.empty())
        throw InputError(opts->baseline, 0, "", "the baseline has a header but no rows (write one with --update-baseline)");
    }
    TempDir temp;
    SweepOptions so;
    so.out_dir = opts->out.empty() ? temp.path.string() : opts->out;
    so.threads = opts->threads;
    so.resume = false;  // a gate must measure the code as it is now
    ProgressBar bar(ProgressSettings::for_stderr(opts->quiet, opts->log_level, opts->progress_period_s));
    const Logger log(opts->log_level);
    SweepWarnings warnings;
    attach_sweep_progress(so, bar, log, warnings);
    const SweepCounts c = run_sweep(spec, points, registry, so);
    warnings.report(log);
    const fs::path results = fs::path(so.out_dir) / "results.csv";
    if (c.failed > 0) {
      fmt::print(stderr, "hetsim: {} of {} points failed (errors in {}/failures.csv); exit code {}\n", c.failed,
                 points.size(), so.out_dir, static_cast<int>(kPointsFailed));
      return kPointsFailed;
    }
    if (opts->update) {
      fs::copy_file(results, opts->baseline, fs::copy_options::overwrite_existing);
      if (!opts->quiet) fmt::print("baseline {} updated from {} points\n", opts->baseline, points.size());
      return kOk;
    }
    const GateReport report = check_against_baseline(baseline, read_results_csv(results.string()), tolerance);
    if (!opts->quiet) {
      fmt::print("check {} against {}\n", spec.name, opts->baseline);
      print_gate_report(std::cout, report, tolerance, opts->all);
    }
    if (!report.passed()) {
      fmt::print(stderr, "hetsim: regression against {} (exit code {}); if the change is intended, rerun with "
                         "--update-baseline and commit the baseline\n",
                 opts->baseline, static_cast<int>(kRegression));
      return kRegression;
    }
    return kOk;
  };
}

}  // namespace hetsim::app
