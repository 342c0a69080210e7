// hetsim: command-line entry point. Parses the subcommand, runs it, and maps errors to exit codes
// (InputError, and JSON errors from input files -> 2 with the message; anything else -> 1).
#include <exception>
#include <filesystem>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <vector>

#include "commands.hpp"
#include "run_options.hpp"
#include "usage_errors.hpp"
#include "hetsim/sched/invariants.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/temporary_files.hpp"
#include "hetsim/version.hpp"

int main(int argc, char** argv) {
  using namespace hetsim;
  // A killed run (scancel, Ctrl-C) leaves no hidden temporary output files behind.
  remove_temporaries_on_signals();
  PolicyRegistry registry = make_default_registry();
  CLI::App app{"hetsim: discrete-event simulator of heterogeneous GPU clusters for deep-learning training"};
  app.require_subcommand(0, 1);
  // "hetsim 0.2.0 (git <describe>)": what a bug report and a paper's methods section should quote.
  app.set_version_flag("--version", "hetsim " + version_text(), "Print the version (and git commit) and exit");
  std::vector<std::pair<CLI::App*, app::Action>> commands;
  // Each add_* creates one subcommand; remember it with its action.
  auto add = [&](const char* name, app::Action action) { commands.emplace_back(app.get_subcommand(name), std::move(action)); };
  add("run", app::add_run_command(app, registry));
  add("list", app::add_list_command(app, registry));
  add("compare", app::add_compare_command(app, registry));
  add("sweep", app::add_sweep_command(app, registry));
  add("merge", app::add_merge_command(app, registry));
  add("check", app::add_check_command(app, registry));
  add("model", app::add_model_command(app));
  add("predict-check", app::add_predict_check_command(app));
  add("topology", app::add_topology_command(app));
  add("scaling", app::add_scaling_command(app));
  add("report", app::add_report_command(app));
  app::refuse_empty_numbers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "hetsim: error: {}\nRun with --help for more information.\n", app::usage_error_text(e));
    return app::kInputError;
  }
  try {
    for (auto& [sub, action] : commands)
      if (sub->parsed()) return action();
    fmt::print("{}", app.help());
    return 0;
  } catch (const InputError& e) {
    fmt::print(stderr, "hetsim: error: {}\n", e.what());
    return app::kInputError;
  } catch (const std::filesystem::filesystem_error& e) {
    // An output folder or file the user named cannot be written: their input, not a bug.
    fmt::print(stderr, "hetsim: error: {}\n", e.what());
    return app::kInputError;
  } catch (const nlohmann::json::exception& e) {
    // JSON only comes from the user's files (specs, clusters, tables): a value of the wrong type
    // or range that a loader did not name is still their input, not a bug.
    fmt::print(stderr, "hetsim: error: in a JSON input: {}\n", e.what());
    return app::kInputError;
  } catch (const InvariantViolation& e) {
    // A broken run invariant (include/hetsim/sched/invariants.hpp): a bug in hetsim.
    fmt::print(stderr, "hetsim: internal error: {}\n", e.what());
    return app::kInternalError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hetsim: internal error: {}\n", e.what());
    return app::kInternalError;
  }
}
