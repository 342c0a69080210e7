#pragma once
// The hetsim CLI's subcommands. Each file src/app/cmd_*.cpp adds one subcommand to the CLI11 app
// and returns the action to run when it was chosen; main.cpp owns the error handling and exit codes.
#include <CLI/CLI.hpp>
#include <functional>

#include "hetsim/policy/registry.hpp"

namespace hetsim::app {

/// Exit codes shared by every command (documented in the README).
enum ExitCode : int {
  kOk = 0,
  kInternalError = 1,  ///< a bug in hetsim: please report it
  kInputError = 2,     ///< bad input: file, line and field are named; nothing was simulated
  kJobsRejected = 3,   ///< the run finished and wrote its outputs, but some jobs were rejected
  kPointsFailed = 4,   ///< sweep/compare/merge: some runs failed (errors in failures.csv); the rest completed
  kRegression = 5,     ///< check: a metric moved the wrong way beyond the tolerance (table on stdout)
};

/// Action of a chosen subcommand: returns the exit code.
using Action = std::function<int()>;

/// Adds `run` (one simulation).
Action add_run_command(CLI::App& app, const PolicyRegistry& registry);
/// Adds `predict-check` (accuracy of the collaborative-filtering profile completion).
Action add_predict_check_command(CLI::App& app);
/// Adds `topology` (network summary, DOT output, communication times of a GPU set).
Action add_topology_command(CLI::App& app);
/// Adds `list` (policies, presets, formats, placements).
Action add_list_command(CLI::App& app, const PolicyRegistry& registry);
/// Adds `compare` (several policies on the same inputs, in parallel, one table).
Action add_compare_command(CLI::App& app, const PolicyRegistry& registry);
/// Adds `sweep` (an experiment spec's points on a thread pool, resumable, shardable).
Action add_sweep_command(CLI::App& app, const PolicyRegistry& registry);
/// Adds `merge` (joins the output folders of sweep shards).
Action add_merge_command(CLI::App& app, const PolicyRegistry& registry);
/// Adds `check` (the regression gate against a baseline results table).
Action add_check_command(CLI::App& app, const PolicyRegistry& registry);
/// Adds `model` (model checks: `model fit-check`).
Action add_model_command(CLI::App& app);
/// Adds `scaling` (the ISORC'24 experiment: speed-up against nodes per synchronisation scheme).
Action add_scaling_command(CLI::App& app);
/// Adds `report` (a self-contained HTML page of a run, compare or sweep folder; scripts/report.py).
Action add_report_command(CLI::App& app);

}  // namespace hetsim::app
