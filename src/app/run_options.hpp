#pragma once
// The options that define one run (cluster, trace, throughputs, policy, mechanism, seed), shared by
// `run` and `compare` so both accept the same flags.
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "hetsim/run.hpp"

namespace hetsim::app {

/// Flag values before conversion to a RunSpec.
struct RunOptions {
  RunSpec spec;
  std::string format = "auto";
  std::vector<std::string> params;
  std::vector<std::string> policy_files;  ///< --policy-file FILE[:ClassName] (python_host.hpp)
  CLI::Option* policy_option = nullptr;    ///< to tell an explicit --policy from the default
  std::vector<std::string> model_params;
  double until_s = -1.0;
  int generate_jobs = 0;
  double jobs_per_hour = 4.0;
  bool single_gpu = false;
  std::string reference_gpu = GavelWorkloadConfig{}.reference_gpu;
  CLI::Option* restart_option = nullptr;  ///< to tell "not given" from an explicit value
  CLI::Option* until_option = nullptr;
  CLI::Option* generate_option = nullptr;
  CLI::Option* jobs_per_hour_option = nullptr;
  CLI::Option* single_gpu_option = nullptr;
  CLI::Option* reference_gpu_option = nullptr;
  CLI::Option* step_model_option = nullptr;  ///< an explicit --step-model needs --workload, even the default
  /// --profiled-fraction, --profiling-run-s, --profiling-runs: only meaningful with --profiling cf.
  std::vector<CLI::Option*> cf_options;
};

/// Adds every run-defining option to `cmd`, storing into `opts` (which must outlive parsing).
/// `with_policy` = false leaves out --policy (compare takes --policies instead).
void add_run_spec_options(CLI::App* cmd, RunOptions& opts, bool with_policy = true);

/// Converts parsed flags into a RunSpec and checks its values (find_run_spec_problem; the policy is
/// the caller's to check, as compare runs several) before any file is read. Throws InputError
/// naming the flag.
RunSpec to_run_spec(const RunOptions& opts);

/// Validator of --seed options: CLI11 reads "-1" into an unsigned seed as 2^64-1 and clamps values
/// above 2^64-1 to it, so a sign and an out-of-range value are refused with a message giving the
/// range.
CLI::Validator seed_validator();

/// Adds `--check-invariants` (include/hetsim/sched/invariants.hpp) to `cmd`, setting `check`; run and
/// compare get it with the run options, sweep on its own.
void add_check_invariants_flag(CLI::App* cmd, bool& check);

/// Adds `-j,--jobs` (runs in parallel) to `cmd`, accepting only counts >= 1.
void add_threads_option(CLI::App* cmd, int& threads);

/// Adds `-q,--quiet` to `cmd`: nothing on stdout, no progress (errors and warnings still go to stderr). The same
/// flag on run, compare, sweep and check.
void add_quiet_flag(CLI::App* cmd, bool& quiet);

/// Type name of a path option whose empty value is meaningful (e.g. "skip this data set").
inline constexpr const char* kEmptyAllowedType = "PATH|''";
/// Exempts `opt` from refuse_empty_numbers: `--opt ''` reaches the command as an empty string.
void allow_empty_value(CLI::Option* opt);

/// Refuses an empty value for every numeric option of every subcommand of `app` (call once all
/// subcommands are added).
void refuse_empty_numbers(CLI::App& app);

/// Parses repeated key=value options. Throws InputError naming `option`.
std::map<std::string, std::string> parse_params(const std::vector<std::string>& items, const char* option = "--param");

}  // namespace hetsim::app
