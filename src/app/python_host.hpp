#pragma once
// Python policies on the command line: `--policy-file FILE[:ClassName]` (run, compare, sweep, check)
// and a spec's "policy_files" load Python policy classes, through an embedded interpreter, into a
// copy of the registry. Built without Python, naming a policy file is an input error.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "hetsim/policy/registry.hpp"

namespace hetsim::app {

/// Adds `--policy-file FILE[:ClassName]` (repeatable) to `cmd`.
void add_policy_file_option(CLI::App* cmd, std::vector<std::string>& files);

/// `files` plus the "policy_files" of the experiment spec at `spec_path` (resolved against its
/// folder). A spec that cannot be read is left to load_experiment_spec to report.
std::vector<std::string> with_spec_policy_files(const std::string& spec_path, std::vector<std::string> files);

/// The registry plus the classes of `files`. Starts the interpreter only when there are files, and
/// releases the GIL while the command runs (each Python policy takes it for its own calls).
/// Destroying it releases the classes and then ends the interpreter.
class PolicyHost {
 public:
  /// Throws InputError (field "--policy-file", or the file and line of a Python error, with its
  /// traceback) when a file cannot be loaded or defines no policy class.
  PolicyHost(const PolicyRegistry& base, const std::vector<std::string>& files);
  ~PolicyHost();
  PolicyHost(const PolicyHost&) = delete;
  PolicyHost& operator=(const PolicyHost&) = delete;

  const PolicyRegistry& registry() const;
  /// Names the loaded classes were registered under, in file order.
  const std::vector<std::string>& names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetsim::app
