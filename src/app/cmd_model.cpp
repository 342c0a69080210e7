// `hetsim model fit-check`: how well the pollux-fit step-time model predicts measured step times it
// was not fitted on (issue: fidelity against measured data).
#include <filesystem>
#include <fmt/core.h>
#include <memory>

#include "commands.hpp"
#include "hetsim/metrics/summary.hpp"
#include "hetsim/perf/pollux_fit.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim::app {
namespace {

struct ModelOptions {
  std::string data = "../shared/data";
  std::vector<std::string> profiles;
};

}  // namespace

Action add_model_command(CLI::App& app) {
  auto opts = std::make_shared<ModelOptions>();
  CLI::App* cmd = app.add_subcommand("model", "Inspect throughput models");
  cmd->require_subcommand(1);
  CLI::App* fit = cmd->add_subcommand(
      "fit-check", "Fit pollux-fit on half of the measured step times of each application and GPU type "
                   "(even rows), predict the other half, print median and p90 relative error");
  fit->add_option("--data", opts->data, "Shared data folder (uses DATA/sia/traces and DATA/pollux/traces)")
      ->capture_default_str();
  fit->add_option("--profiles", opts->profiles, "Profile folders instead of --data (repeatable)");
  return [opts, fit]() -> int {
    if (!fit->parsed()) return kOk;
    namespace fs = std::filesystem;
    std::vector<std::string> roots = opts->profiles;
    if (roots.empty()) {
      for (const char* sub : {"sia/traces", "pollux/traces"})
        if (fs::is_directory(fs::path(opts->data) / sub)) roots.push_back((fs::path(opts->data) / sub).string());
    }
    if (roots.empty()) throw InputError(opts->data, 0, "--data", "no sia/traces or pollux/traces folder here");
    std::map<std::string, PolluxApplication> apps;
    for (const std::string& root : roots) {
      for (const auto& entry : fs::directory_iterator(root)) {
        if (!entry.is_directory()) continue;
        std::string name = entry.path().filename().string();
        if (apps.count(name)) continue;
        try {
          apps.emplace(name, PolluxApplication::load(name, roots));
        } catch (const InputError&) {
          // A folder without validation curves or step profiles is not an application.
        }
      }
    }
    std::vector<FitCheckRow> rows = fit_check(apps);
    fmt::print("pollux-fit held-out step_time error (fit on even rows, predict odd rows)\n");
    fmt::print("{:<12} {:<11} {:>6} {:>6} {:>10} {:>10}\n", "application", "gpu_type", "train", "test", "median", "p90");
    std::vector<double> all;
    for (const FitCheckRow& r : rows) {
      fmt::print("{:<12} {:<11} {:>6} {:>6} {:>9.1f}% {:>9.1f}%\n", r.app, r.gpu_type, r.train_rows, r.test_rows,
                 100 * r.median_rel_err, 100 * r.p90_rel_err);
      all.insert(all.end(), r.errors.begin(), r.errors.end());
    }
    fmt::print("{:<12} {:<11} {:>6} {:>6} {:>9.1f}% {:>9.1f}%\n", "overall", "", "", all.size(), 100 * percentile(all, 50),
               100 * percentile(all, 90));
    fmt::print("targets: overall median < 10%, p90 < 25%\n");
    fmt::print("analytic model: not available on this branch (topology issue); no comparison printed\n");
    return kOk;
  };
}

}  // namespace hetsim::app
