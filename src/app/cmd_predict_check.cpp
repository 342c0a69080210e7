// `hetsim predict-check`: how well the 3-D collaborative filtering (Heet, Mo et al., ASPLOS'24)
// predicts hidden profile cells, against per-type linear scaling and 2-D matrix completion.
#include <cmath>
#include <filesystem>
#include <algorithm>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <memory>

#include "commands.hpp"
#include "hetsim/perf/predict_check.hpp"
#include "hetsim/util/error.hpp"
#include "log.hpp"
#include "run_options.hpp"

namespace hetsim::app {
namespace {

struct PredictCheckOptions {
  LogLevel log_level = LogLevel::Warning;
  std::string heet = std::string("../shared/data/heet-prototype/profiles.json");
  std::string gavel = std::string("../shared/data/gavel/simulation_throughputs.json");
  std::string sia = std::string("../shared/data/sia/traces");
  std::vector<double> fractions{0.10, 0.25, 0.50};
  int trials = 10;
  CompletionOptions completion;
  std::uint64_t seed = 0;
  bool fixed_model = false;
  bool no_interactions = false;
  std::string sampling = "active";
  bool no_form = false;
  std::string protocol = "all-new";
};

// Bad input (issue 15): cells the profile lacks are predicted like hidden ones but cannot be scored;
// say which (count and the first five), so a gap in the file is not mistaken for a measurement.
void print_missing_cells(const ProfileTensor& truth) {
  std::vector<std::string> missing;
  for (std::size_t n = 0; n < truth.size(); ++n)
    if (!truth.measured(n) && !std::binary_search(truth.cannot_run.begin(), truth.cannot_run.end(), n))
      missing.push_back(truth.describe(n));
  if (missing.empty()) return;
  const std::size_t shown = std::min<std::size_t>(5, missing.size());
  fmt::print("{:<15} {} cell(s) absent from the profile, predicted and not scored: {}{}\n", "", missing.size(),
             fmt::join(missing.begin(), missing.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
             missing.size() > shown ? ", ..." : "");
}

// Median and p90 columns; "-" when no hidden cell was scored (nothing to err on is not 0% error).
std::string stats_columns(const ErrorStats& e) {
  if (e.cells == 0) return fmt::format("{:>8} {:>8}", "-", "-");
  return fmt::format("{:>7.1f}% {:>7.1f}%", e.median_pct, e.p90_pct);
}

}  // namespace

Action add_predict_check_command(CLI::App& app) {
  auto o = std::make_shared<PredictCheckOptions>();
  o->completion.auto_select = true;
  CLI::App* cmd = app.add_subcommand(
      "predict-check",
      "Hide part of each measured profile (Heet prototype, Gavel, Sia), predict it with the 3-D collaborative "
      "filtering and two baselines, print median and p90 absolute percentage error");
  // '' skips a data set, so one can be checked alone (`--gavel '' --sia ''`).
  // A path given that does not exist is an error; a default one (the shared data is absent) is skipped.
  CLI::Option* heet_option = cmd->add_option("--heet", o->heet, "Heet prototype profiles.json ('' to skip)");
  CLI::Option* gavel_option = cmd->add_option("--gavel", o->gavel, "Gavel throughput JSON ('' to skip)");
  CLI::Option* sia_option =
      cmd->add_option("--sia", o->sia, "Sia traces directory (one folder per application; '' to skip)");
  for (CLI::Option* option : {heet_option, gavel_option, sia_option}) allow_empty_value(option->capture_default_str());
  cmd->add_option("--fractions", o->fractions, "Profiled fractions to test, each in (0, 1)")->capture_default_str();
  cmd->add_option("--trials", o->trials, "Random hidings per fraction")->capture_default_str();
  cmd->add_option("--rank", o->completion.rank, "CP rank (upper bound when the model is selected by CV)")->capture_default_str();
  cmd->add_option("--pair-rank", o->completion.pair_rank, "Rank of the pairwise terms (upper bound likewise)")
      ->capture_default_str();
  cmd->add_option("--lambda", o->completion.lambda, "Ridge weight")->capture_default_str();
  cmd->add_flag("--fixed-model", o->fixed_model, "Use --rank/--pair-rank as given instead of choosing by cross-validation");
  cmd->add_flag("--no-interactions", o->no_interactions,
                "Leave out the interaction tables and slopes (the earlier main + pairwise + CP model)");
  cmd->add_option("--table-lambda", o->completion.table_lambda, "Ridge weight of the interaction tables and slopes")
      ->capture_default_str();
  cmd->add_option("--sampling", o->sampling,
                  "Which cells are profiled: 'active' (chosen to identify the physical form: one GPU on two GPU "
                  "types, the largest configuration on a third, ...; docs/models.md), 'uniform' (random per job "
                  "type) or 'single-gpu' (one single-GPU run on a random GPU type first, then random)")
      ->capture_default_str();
  cmd->add_option("--protocol", o->protocol,
                  "'all-new': every job type keeps only its profiled share; 'new-job': the other job types are "
                  "fully profiled and one group of job types per trial is new (Heet's online setting)")
      ->capture_default_str();
  cmd->add_flag("--no-form", o->no_form,
                "Predict with the collaborative filtering alone, without the physical scaling form (the "
                "predictor before issue 15)");
  add_log_level_option(cmd, o->log_level);
  cmd->add_option("--seed", o->seed, "Seed of the hidings and initialisations, 0 .. 2^64-1")
      ->capture_default_str()
      ->check(seed_validator());

  return [o, heet_option, gavel_option, sia_option]() -> int {
    if (o->trials < 1) throw InputError("", 0, "--trials", "must be at least 1");
    if (o->completion.rank < 0) throw InputError("", 0, "--rank", "must not be negative");
    if (o->completion.pair_rank < 0) throw InputError("", 0, "--pair-rank", "must not be negative");
    if (!(o->completion.lambda >= 0.0) || !std::isfinite(o->completion.lambda))
      throw InputError("", 0, "--lambda", "must be a finite number, not negative");
    for (double f : o->fractions)
      if (!(f > 0.0 && f < 1.0)) throw InputError("", 0, "--fractions", fmt::format("{} is not in (0, 1)", f));
    if (!(o->completion.table_lambda >= 0.0) || !std::isfinite(o->completion.table_lambda))
      throw InputError("", 0, "--table-lambda", "must be a finite number, not negative");
    ProfilingSampling sampling = ProfilingSampling::active;
    if (o->sampling == "single-gpu")
      sampling = ProfilingSampling::single_gpu;
    else if (o->sampling == "uniform")
      sampling = ProfilingSampling::uniform;
    else if (o->sampling != "active")
      throw InputError("", 0, "--sampling",
                       fmt::format("'{}' is not 'active', 'uniform' or 'single-gpu'", o->sampling));
    ProfilingProtocol protocol = ProfilingProtocol::all_new;
    if (o->protocol == "new-job")
      protocol = ProfilingProtocol::new_job;
    else if (o->protocol != "all-new")
      throw InputError("", 0, "--protocol", fmt::format("'{}' is not 'all-new' or 'new-job'", o->protocol));
    CompletionOptions copt = o->completion;
    copt.auto_select = !o->fixed_model;
    copt.interactions = !o->no_interactions;
    struct Set {
      const char* name;
      std::string path;
      const CLI::Option* option;
    };
    const Set sets[] = {{"heet-prototype", o->heet, heet_option}, {"gavel", o->gavel, gavel_option},
                        {"sia", o->sia, sia_option}};
    const Logger log(o->log_level);
    std::vector<const Set*> present;
    for (const Set& s : sets) {
      if (s.path.empty()) continue;
      if (std::filesystem::exists(s.path)) {
        present.push_back(&s);
      } else if (s.option->count() > 0) {
        throw InputError(s.path, 0, s.option->get_name(), "not found (give '' to skip this data set)");
      } else {
        log.warning(fmt::format("{} skipped: the default {} is not there (no shared data?)", s.name, s.path));
      }
    }
    if (present.empty()) throw InputError("", 0, "--heet/--gavel/--sia", "no profile data set found");
    // Under new-job the trials are min(--trials, job types) groups: say so rather than the flag.
    const std::string trials_run =
        protocol == ProfilingProtocol::new_job
            ? fmt::format("{} trials asked (new-job: at most one per job type; trials run per data set below)", o->trials)
            : fmt::format("{} trials", o->trials);
    fmt::print("protocol {}, sampling {}, predictor {}, {}, seed {}\n", o->protocol, o->sampling,
               o->no_form ? "cf" : "form/cf chosen by CV", trials_run, o->seed);
    fmt::print("{:<15} {:>6} {:>6} {:>9} | {:>8} {:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>7} {:>8} {:>4} {:>4}\n",
               "data set", "prof.%", "known", "hidden", "pred med", "pred p90", "lin med", "lin p90", "2D med",
               "2D p90", "method", "terms", "rank", "pair");
    std::vector<std::string> target_lines;
    for (const Set* set : present) {
      const Set& s = *set;
      const ProfileTensor truth = load_profile_tensor(s.path);
      int trials_run = 0;
      for (double f : o->fractions) {
        const PredictCheckRow r = predict_check(truth, f, o->trials, copt, o->seed, sampling, protocol, !o->no_form);
        trials_run = r.trials;
        fmt::print("{:<15} {:>6.0f} {:>6} {:>9} | {} | {} | {} | {:>7} {:>8} {:>4} {:>4}\n", s.name, 100.0 * f, r.known,
                   r.cf.cells, stats_columns(r.cf), stats_columns(r.linear), stats_columns(r.matrix2d), r.method, r.terms,
                   r.rank, r.pair_rank);
        if (std::abs(f - 0.25) < 1e-9 && r.cf.cells > 0)
          target_lines.push_back(fmt::format("{}: median {:.1f}% (p90 {:.1f}%): {}", s.name, r.cf.median_pct,
                                             r.cf.p90_pct, r.cf.median_pct < 10.0 ? "met" : "NOT met"));
        for (const std::string& w : r.warnings) log.warning(fmt::format("{} at {:.0f}%: {}", s.name, 100.0 * f, w));
      }
      fmt::print("{:<15} tensor {} jobs x {} GPU types x {} configurations, {} measured cells ({}), {} measured as "
                 "cannot-run (excluded){}\n",
                 "", truth.dim_jobs(), truth.dim_gpus(), truth.dim_configs(), truth.measured_count(), truth.unit,
                 truth.cannot_run.size(),
                 protocol == ProfilingProtocol::new_job ? fmt::format("; {} trials run", trials_run) : "");
      print_missing_cells(truth);
    }
    // Issue 15's target is stated for the new-job protocol with the active cells at 25%.
    if (!target_lines.empty()) {
      const bool applies = o->protocol == "new-job" && o->sampling == "active" && !o->no_form;
      fmt::print("target: median absolute error < 10% at 25% profiled, protocol new-job, sampling active{}\n",
                 applies ? "" : " (this run uses other settings: for reference only)");
      for (const std::string& line : target_lines) fmt::print("  {}\n", line);
    }
    return kOk;
  };
}

}  // namespace hetsim::app
