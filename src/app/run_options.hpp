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
  std::vector<std::string> model_params;
  double until_s = -1.0;
  int generate_jobs = 0;
  double jobs_per_hour = 4.0;
  bool single_gpu = false;
  CLI::Option* restart_option = nullptr;  ///< to tell "not given" from an explicit value
  CLI::Option* until_option = nullptr;
  CLI::Option* generate_option = nullptr;
  CLI::Option* jobs_per_hour_option = nullptr;
  CLI::Option* single_gpu_option = nullptr;
};

/// Adds every run-defining option to `cmd`, storing into `opts` (which must outlive parsing).
/// `with_policy` = false leaves out --policy (compare takes --policies instead).
void add_run_spec_options(CLI::App* cmd, RunOptions& opts, bool with_policy = true);

/// Converts parsed flags into a RunSpec. Throws InputError for a bad --format or --param.
RunSpec to_run_spec(const RunOptions& opts);

/// Parses repeated key=value options. Throws InputError naming `option`.
std::map<std::string, std::string> parse_params(const std::vector<std::string>& items, const char* option = "--param");

}  // namespace hetsim::app
