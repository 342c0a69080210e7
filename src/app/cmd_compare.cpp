// `hetsim compare`: several policies on the same cluster and workload, run in parallel threads,
// printed as one table (a row per policy) and written as CSV and JSON with --out.
#include <filesystem>
#include <fmt/core.h>
#include <iostream>
#include <memory>
#include <set>

#include "commands.hpp"
#include "hetsim/experiment/compare.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/util/parse.hpp"
#include "python_host.hpp"
#include "log.hpp"
#include "run_warnings.hpp"
#include "progress.hpp"
#include "run_options.hpp"

namespace hetsim::app {
namespace {

struct CompareOptions {
  RunOptions run;
  std::vector<std::string> policies_text;  // each --policies as given
  int threads = 2;
  std::string out;
  bool quiet = false;
  LogLevel log_level = LogLevel::Warning;
  double progress_period_s = -1;
};

// The policy names of every --policies, in order; an empty one ("fifo,,srtf", a trailing comma) is an error.
std::vector<std::string> policy_names(const CompareOptions& o) {
  std::vector<std::string> names;
  for (const std::string& text : o.policies_text)
    for (std::string_view name : split(text, ','))
      if (name = trim(name); name.empty())
        throw InputError("", 0, "--policies", fmt::format("empty policy name in '{}'", text));
      else
        names.emplace_back(name);
  return names;
}

// Each --param goes to the policies that declare it; one that no listed policy declares is an error.
std::vector<PolicyVariant> variants(const CompareOptions& o, const RunSpec& base, const PolicyRegistry& registry) {
  const PolicyParams& params = base.params;
  std::vector<PolicyVariant> out;
  std::set<std::string> seen;
  for (const std::string& name : policy_names(o)) {
    const PolicyInfo* info = registry.find(name);
    if (!info)
      throw InputError("", 0, "--policies", "unknown policy '" + name + "' (known: " + registry.joined_names() + ")");
    if (!seen.insert(name).second) throw InputError("", 0, "--policies", "policy '" + name + "' listed twice");
    PolicyVariant v{name, name, {}};
    for (const auto& [k, value] : params)
      for (const ParamInfo& p : info->params)
        if (p.name == k) v.params[k] = value;
    out.push_back(std::move(v));
  }
  for (const auto& [k, value] : params) {
    bool used = false;
    for (const PolicyVariant& v : out) used = used || v.params.count(k);
    if (!used) throw InputError("", 0, "--param", "no listed policy declares parameter '" + k + "'");
  }
  for (const PolicyVariant& v : out) {  // bad values and combinations fail before any run
    RunSpec probe = base;
    probe.policy = v.name;
    probe.params = v.params;
    check_run_spec(probe, registry);
  }
  return out;
}

// A path as the file system resolves it (`DIR/./x`, `DIR/x` and its absolute path are one file).
std::filesystem::path resolved_compare_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  return ec ? std::filesystem::absolute(path).lexically_normal() : p;
}

// An output of --out on a file the runs read would replace the user's data after the runs (as
// `run` refuses it): DIR/compare.csv, DIR/compare.json and DIR/<policy>/{jobs.csv, summary.json,
// utilization.csv} against the trace, workload, table, cluster file, policy files and samples_csv.
void check_outputs_not_inputs(const std::string& dir, const RunOptions& run, const RunSpec& base,
                              const std::vector<PolicyVariant>& policies) {
  std::vector<std::pair<std::string, std::string>> inputs = run_input_files(base);  // option, path
  for (const std::string& f : run.policy_files) inputs.emplace_back("--policy-file", f.substr(0, f.rfind(':')));
  for (const PolicyVariant& v : policies) {
    RunSpec with_params = base;
    with_params.params = v.params;
    for (auto& file : run_input_files(with_params))
      if (file.first == "--param samples_csv") inputs.push_back(std::move(file));
  }
  const std::filesystem::path root(dir);
  std::vector<std::filesystem::path> outputs{root / "compare.csv", root / "compare.json"};
  for (const PolicyVariant& v : policies)
    for (const char* name : {"jobs.csv", "summary.json", "utilization.csv"})
      outputs.push_back(root / safe_folder_name(v.label) / name);
  for (const std::filesystem::path& o : outputs)
    for (const auto& [option, path] : inputs)
      if (resolved_compare_path(o.string()) == resolved_compare_path(path))
        throw InputError(o.string(), 0, "--out",
                         fmt::format("--out would overwrite the file {} reads ({}); give --out another folder", option,
                                     path));
}

}  // namespace

Action add_compare_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Run several policies on the same cluster and workload in parallel threads; print one table");
  add_run_spec_options(cmd, opts->run, /*with_policy=*/false);
  // Split here, not by CLI11's delimiter, which drops empty items: "fifo,,srtf" is a typo to report.
  cmd->add_option("--policies", opts->policies_text, "Comma-separated policies (see `hetsim list policies`)")
      ->required();
  add_threads_option(cmd, opts->threads);
  add_quiet_flag(cmd, opts->quiet);
  add_log_level_option(cmd, opts->log_level);
  add_progress_period_option(cmd, opts->progress_period_s);
  cmd->add_option("--out", opts->out,
                  "Write DIR/compare.csv, DIR/compare.json and each policy's jobs.csv, summary.json and utilization.csv in DIR/<policy>/");
  return [opts, &base_registry = registry]() -> int {
    RunSpec base = to_run_spec(opts->run);
    const PolicyHost host(base_registry, opts->run.policy_files);
    const PolicyRegistry& registry = host.registry();
    const auto policies = variants(*opts, base, registry);
    base.params.clear();
    // Every policy reads the same inputs: a bad trace, cluster or table is one input error (exit 2)
    // before anything runs, not one failure per policy.
    check_run_inputs(base);
    if (!opts->out.empty()) {
      check_output_folder(opts->out, "--out");
      check_outputs_not_inputs(opts->out, opts->run, base, policies);
    }
    ProgressBar bar(ProgressSettings::for_stderr(opts->quiet, opts->log_level, opts->progress_period_s));
    std::size_t finished = 0, failed = 0;
    auto on_done = [&](const CompareEntry& e, double wall_s) {
      ++finished;
      failed += e.error.empty() ? 0 : 1;
      bar.printer().note(fmt::format("hetsim: {} {} in {:.1f} s", e.policy, e.error.empty() ? "done" : "failed", wall_s));
      bar.update(finished, policies.size(), failed, wall_s);
    };
    const auto entries = compare_policies(base, policies, registry, opts->threads, !opts->out.empty(), on_done);
    if (!opts->quiet) print_compare_table(std::cout, entries);
    if (!opts->out.empty()) {
      write_compare_outputs(opts->out, entries);
      if (!opts->quiet) fmt::print("outputs: {}/compare.csv, {}/compare.json, {}/<policy>/\n", opts->out, opts->out, opts->out);
    }
    const Logger log(opts->log_level);
    const bool horizon = base.mechanism.until_s.has_value();
    for (const CompareEntry& e : entries)
      if (e.output) {  // the inputs are shared: their notes once
        for (const std::string& n : e.output->model_notes) log.note(n);
        break;
      }
    for (const CompareEntry& e : entries)
      if (e.output) log_run_warnings_only(log, *e.output, horizon, e.policy + ": ");
    int code = kOk;
    for (const CompareEntry& e : entries) {
      if (!e.error.empty()) {
        fmt::print(stderr, "hetsim: {} failed: {}\n", e.policy, e.error);
        code = kPointsFailed;
      } else if (e.output->summary.rejected > 0 && code == kOk) {
        fmt::print(stderr, "hetsim: {}: {} of {} jobs rejected\n", e.policy, e.output->summary.rejected,
                   e.output->summary.jobs_read);
        code = kJobsRejected;
      }
    }
    return code;
  };
}

}  // namespace hetsim::app
