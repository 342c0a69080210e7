// hetsim: command-line entry point. Parses the subcommand, runs it, and maps errors to exit codes
// (InputError, and JSON errors from input files -> 2 with the message; anything else -> 1).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fmt/core.h>
#include <functional>
#include <malloc.h>
#include <nlohmann/json.hpp>
#include <string_view>
#include <sys/mman.h>
#include <vector>

#include "commands.hpp"
#include "run_options.hpp"
#include "usage_errors.hpp"
#include "hetsim/sched/invariants.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/temporary_files.hpp"
#include "hetsim/version.hpp"

namespace {

// Start-up (issue 19): a short run (a Pollux workload under tiresias, about 15 ms) first touched
// about 460 fresh heap pages, one page fault each, and a fault costs 10-45 us on the virtual
// machines hetsim is measured on: a quarter of such a run. The heap is grown by 2 MiB at once
// (what such a run uses; 1 MiB left half the faults, 4 MiB cost more to populate than it saved)
// and those pages are populated by one madvise call (Linux >= 5.14; an older kernel refuses it
// and the pages fault in as before). Fixing the mmap and trim thresholds at the caps glibc's
// dynamic rule reaches anyway (32 MiB, 64 MiB) keeps the block in the heap; longer runs grow it
// as before.
void populate_heap() {
  constexpr std::size_t kPopulate = std::size_t{2} << 20;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#ifdef MADV_POPULATE_WRITE
  void* block = std::malloc(kPopulate);
  if (block == nullptr) return;
  constexpr std::uintptr_t kPage = 4096;
  const auto first = (reinterpret_cast<std::uintptr_t>(block) + kPage - 1) & ~(kPage - 1);
  const auto last = (reinterpret_cast<std::uintptr_t>(block) + kPopulate) & ~(kPage - 1);
  madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
  std::free(block);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hetsim;
  populate_heap();
  // A killed run (scancel, Ctrl-C) leaves no hidden temporary output files behind.
  remove_temporaries_on_signals();
  PolicyRegistry registry = make_default_registry();
  CLI::App app{"hetsim: discrete-event simulator of heterogeneous GPU clusters for deep-learning training"};
  app.require_subcommand(0, 1);
  // "hetsim 0.2.0 (git <describe>)": what a bug report and a paper's methods section should quote.
  app.set_version_flag("--version", "hetsim " + version_text(), "Print the version (and git commit) and exit");
  std::vector<std::pair<CLI::App*, app::Action>> commands;
  // Each add_* creates one subcommand; remember it with its action. When the first argument names
  // a subcommand, only that one is built: building all eleven, with their options and validators,
  // was a seventh of a short run's start-up (issue 19). Otherwise (--help, --version, no or a
  // mistyped subcommand) all are, so that help and errors list them all.
  using Builder = std::function<app::Action()>;
  const std::vector<std::pair<const char*, Builder>> builders{
      {"run", [&] { return app::add_run_command(app, registry); }},
      {"list", [&] { return app::add_list_command(app, registry); }},
      {"compare", [&] { return app::add_compare_command(app, registry); }},
      {"sweep", [&] { return app::add_sweep_command(app, registry); }},
      {"merge", [&] { return app::add_merge_command(app, registry); }},
      {"check", [&] { return app::add_check_command(app, registry); }},
      {"model", [&] { return app::add_model_command(app); }},
      {"predict-check", [&] { return app::add_predict_check_command(app); }},
      {"topology", [&] { return app::add_topology_command(app); }},
      {"scaling", [&] { return app::add_scaling_command(app); }},
      {"report", [&] { return app::add_report_command(app); }},
  };
  const std::string_view first = argc > 1 ? argv[1] : "";
  const bool named = std::any_of(builders.begin(), builders.end(), [&](const auto& b) { return first == b.first; });
  for (const auto& [name, build] : builders)
    if (!named || first == name) {
      app::Action action = build();
      commands.emplace_back(app.get_subcommand(name), std::move(action));
    }
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
