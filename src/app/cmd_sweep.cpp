// `hetsim sweep SPEC`: every point of an experiment spec on a thread pool, resumable (finished
// points are skipped), optionally one deterministic shard of the points.
#include <chrono>
#include <fmt/core.h>
#include <memory>

#include "commands.hpp"
#include "hetsim/experiment/sweep.hpp"
#include "log.hpp"
#include "sweep_progress.hpp"
#include "python_host.hpp"
#include "run_options.hpp"

namespace hetsim::app {
namespace {

struct SweepCommandOptions {
  std::string spec;
  std::string out;
  int threads = 2;
  std::string shard;
  bool fresh = false;
  bool dry_run = false;
  bool quiet = false;
  LogLevel log_level = LogLevel::Warning;
  double progress_period_s = -1;
  bool check_invariants = false;
  std::vector<std::string> policy_files;
};

}  // namespace

Action add_sweep_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<SweepCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run every point of an experiment spec (docs/experiment-spec.md) on a thread pool; resumes after an "
               "interruption; writes results.csv (one row per point and metric) and per-run outputs");
  cmd->add_option("spec", opts->spec, "Experiment spec (JSON)")->required();
  cmd->add_option("--out", opts->out, "Output folder (default: out/<spec name>)");
  add_threads_option(cmd, opts->threads);
  add_quiet_flag(cmd, opts->quiet);
  add_log_level_option(cmd, opts->log_level);
  add_progress_period_option(cmd, opts->progress_period_s);
  cmd->add_option("--shard", opts->shard, "Run only share I of N (0-based I/N: points with index mod N == I)");
  cmd->add_flag("--fresh", opts->fresh, "Re-run points that are already done");
  cmd->add_flag("--dry-run", opts->dry_run, "Check the spec and list its points without running anything");
  add_check_invariants_flag(cmd, opts->check_invariants);
  add_policy_file_option(cmd, opts->policy_files);
  return [opts, &base_registry = registry]() -> int {
    const PolicyHost host(base_registry, with_spec_policy_files(opts->spec, opts->policy_files));
    const PolicyRegistry& registry = host.registry();
    const ExperimentSpec spec = load_experiment_spec(opts->spec, registry);
    const auto points = expand_points(spec, registry);
    check_point_inputs(spec, points);
    if (opts->dry_run) {
      for (const ExperimentPoint& p : points) fmt::print("{:>5}  {}\n", p.index, p.id);
      fmt::print("spec {} is valid: {} points\n", spec.name, points.size());
      return kOk;
    }
    SweepOptions so;
    so.out_dir = opts->out.empty() ? "out/" + spec.name : opts->out;
    so.threads = opts->threads;
    if (!opts->shard.empty()) so.shard = parse_shard(opts->shard);
    so.resume = !opts->fresh;
    so.check_invariants = opts->check_invariants;
    ProgressBar bar(ProgressSettings::for_stderr(opts->quiet, opts->log_level, opts->progress_period_s));
    const Logger log(opts->log_level);
    SweepWarnings warnings;
    attach_sweep_progress(so, bar, log, warnings);
    const auto t0 = std::chrono::steady_clock::now();
    const SweepCounts c = run_sweep(spec, points, registry, so);
    warnings.report(log);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string suffix = so.shard.count > 1 ? fmt::format(".shard-{}-of-{}", so.shard.index, so.shard.count) : "";
    if (!opts->quiet) {
      fmt::print("sweep {}: {} points{}, {} already done, {} run now, {} done, {} failed, {:.1f} s wall on {} threads\n",
               spec.name, c.in_shard,
               opts->shard.empty() ? "" : fmt::format(" in shard {} (of {} in all)", opts->shard, points.size()),
               c.skipped, c.ran, c.done, c.failed, wall_s, so.threads);
      fmt::print("results: {0}/results{1}.csv, failures: {0}/failures{1}.csv, runs: {0}/points/<point>/\n", so.out_dir,
                 suffix);
      if (so.shard.count > 1) fmt::print("join the shards with: hetsim merge {} --out DIR SHARD_DIRS...\n", opts->spec);
    }
    if (c.failed > 0) {
      fmt::print(stderr, "hetsim: {} points failed (errors in {}/failures.csv); exit code {}\n", c.failed, so.out_dir,
                 static_cast<int>(kPointsFailed));
      return kPointsFailed;
    }
    return kOk;
  };
}

}  // namespace hetsim::app
