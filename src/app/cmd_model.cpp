// `hetsim model fit-check`: how well the pollux-fit and analytic step-time models predict measured
// step times they were not fitted on (issue: fidelity against measured data; fit_check.hpp).
#include <filesystem>
#include <fmt/core.h>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hetsim/util/stats.hpp"
#include "hetsim/metrics/summary.hpp"
#include "hetsim/perf/fit_check.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim::app {
namespace {

struct ModelOptions {
  std::string data = "../shared/data";
  std::vector<std::string> profiles;
};

std::string percent(double v) { return fmt::format("{:.1f}%", 100 * v); }

void print_fit_check(const std::vector<FitCheckRow>& rows) {
  fmt::print("held-out step_time error: fit on even rows, predict odd rows (placements then scalability, file order)\n");
  fmt::print("pollux-fit: fitted on the training rows; analytic: single-GPU training rows + gradient size + site network\n");
  fmt::print("{:<12} {:<11} {:>6} {:>6}  {:>10} {:>10}  {:>10} {:>10}  {}\n", "application", "gpu_type", "train",
             "test", "fit-median", "fit-p90", "ana-median", "ana-p90", "note");
  std::vector<double> fit_all, ana_all, fit_on_ana;
  std::vector<std::string> excluded;
  for (const FitCheckRow& r : rows) {
    const bool ana = !r.analytic_errors.empty();
    std::string note = r.analytic_note;
    if (!r.data_parallel) {
      note = "not data parallel (sync_time >= step_time): excluded from overall";
      excluded.push_back(r.app + "/" + r.gpu_type);
    }
    fmt::print("{:<12} {:<11} {:>6} {:>6}  {:>10} {:>10}  {:>10} {:>10}  {}\n", r.app, r.gpu_type, r.train_rows,
               r.test_rows, percent(r.median_rel_err), percent(r.p90_rel_err),
               ana ? percent(r.analytic_median_rel_err) : "n/a", ana ? percent(r.analytic_p90_rel_err) : "n/a", note);
    if (!r.data_parallel) continue;
    fit_all.insert(fit_all.end(), r.errors.begin(), r.errors.end());
    ana_all.insert(ana_all.end(), r.analytic_errors.begin(), r.analytic_errors.end());
    if (ana && r.analytic_errors.size() == r.errors.size())
      fit_on_ana.insert(fit_on_ana.end(), r.errors.begin(), r.errors.end());
  }
  fmt::print("{:<12} {:<11} {:>6} {:>6}  {:>10} {:>10}  {:>10} {:>10}\n", "overall", "pollux-fit", "", fit_all.size(),
             percent(percentile(fit_all, 50)), percent(percentile(fit_all, 90)), "", "");
  fmt::print("{:<12} {:<11} {:>6} {:>6}  {:>10} {:>10}  {:>10} {:>10}\n", "overall", "analytic", "", ana_all.size(), "",
             "", percent(percentile(ana_all, 50)), percent(percentile(ana_all, 90)));
  if (fit_on_ana.size() != fit_all.size())
    fmt::print("{:<12} {:<11} {:>6} {:>6}  {:>10} {:>10}  (pollux-fit on the lines analytic predicts fully)\n",
               "overall", "pollux-fit", "", fit_on_ana.size(), percent(percentile(fit_on_ana, 50)),
               percent(percentile(fit_on_ana, 90)));
  if (!excluded.empty()) {
    std::string list;
    for (const std::string& e : excluded) list += (list.empty() ? "" : ", ") + e;
    fmt::print("excluded from overall: {} (pipeline-parallel profiles, docs/models.md \"Fit-check\")\n", list);
  }
  const double med = percentile(fit_all, 50), p90 = percentile(fit_all, 90);
  fmt::print("targets (pollux-fit, overall): median < 10%: {} ({}), p90 < 25%: {} ({})\n", med < 0.10 ? "met" : "NOT met",
             percent(med), p90 < 0.25 ? "met" : "NOT met", percent(p90));
}

}  // namespace

Action add_model_command(CLI::App& app) {
  auto opts = std::make_shared<ModelOptions>();
  CLI::App* cmd = app.add_subcommand("model", "Inspect throughput models");
  cmd->require_subcommand(1);
  CLI::App* fit = cmd->add_subcommand(
      "fit-check", "Fit pollux-fit on half of the measured step times of each application and GPU type "
                   "(even rows), predict the other half with it and with the analytic model, print median "
                   "and p90 relative errors");
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
    const std::vector<FitCheckRow> rows = fit_check(apps);
    print_fit_check(rows);
    return kOk;
  };
}

}  // namespace hetsim::app
