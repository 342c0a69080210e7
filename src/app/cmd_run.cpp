// `hetsim run`: one simulation, summary on stdout, jobs.csv + summary.json with --out.
#include <chrono>
#include <fmt/core.h>
#include <iostream>
#include <map>
#include <memory>

#include "commands.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim::app {
namespace {

struct RunOptions {
  RunSpec spec;
  std::string format = "auto";
  std::vector<std::string> params;
  std::vector<std::string> model_params;
  std::string out;
  double until_s = -1.0;
  bool quiet = false;
};

std::map<std::string, std::string> parse_params(const std::vector<std::string>& items, const char* option = "--param") {
  std::map<std::string, std::string> params;
  for (const std::string& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", 0, option, "expected key=value, got '" + item + "'");
    params[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return params;
}

}  // namespace

Action add_run_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Replay a trace on a cluster under one policy. With no options: the built-in default "
             "(cluster 'default', a seeded synthetic workload, policy fifo).");
  cmd->add_option("--cluster", opts->spec.cluster, "Cluster preset name (see `hetsim list presets`) or cluster JSON file")
      ->capture_default_str();
  cmd->add_option("--trace", opts->spec.trace, "Trace file; omit for the built-in synthetic workload");
  cmd->add_option("--format", opts->format, "Trace format: auto, native, gavel, philly, heet")->capture_default_str();
  cmd->add_option("--workload", opts->spec.workload,
                  "Pollux/Sia workload CSV (name,time,application,num_replicas,batch_size): goodput model, "
                  "restart overhead 30 s unless --restart-overhead is given");
  cmd->add_option("--profiles", opts->spec.profiles,
                  "Folder of Pollux/Sia application profiles (<app>/placements*.csv, validation-*.csv); repeatable; "
                  "default: the traces/ folder above the workload, then pollux/traces beside it");
  cmd->add_option("--step-model", opts->spec.step_model, "Step-time model of the goodput model: pollux-table, pollux-fit")
      ->capture_default_str();
  cmd->add_flag("--exact-epochs", opts->spec.exact_epochs,
                "Goodput model: exact progress, instead of epochs that end on whole seconds after each resume "
                "(the Pollux simulator's clock)");
  cmd->add_flag("--sia-restart-costs", opts->spec.sia_restart_costs,
                "Per-application restart costs of Sia's simulator (ncf 15 s ... imagenet 250 s) instead of one value");
  cmd->add_option("--throughputs", opts->spec.throughputs,
                  "Throughput table (Gavel JSON, Heet profiles.json or a job-types JSON); omit for the duration model");
  cmd->add_option("--policy", opts->spec.policy, "Scheduling policy (see `hetsim list policies`)")->capture_default_str();
  cmd->add_option("--param", opts->params, "Policy parameter key=value (repeatable)");
  cmd->add_option("--mechanism", opts->spec.mechanism_kind,
                  "auto, event (event-driven; rounds with --interval) or gavel (Gavel's round-based time sharing "
                  "of an allocation policy, rounds of --interval s, default 360); auto = gavel for allocation-only "
                  "policies")
      ->capture_default_str();
  cmd->add_option("--model", opts->spec.model,
                  "Throughput model: auto (by the --throughputs file), gavel-table, heet-profile, duration, analytic "
                  "(docs/models.md)")
      ->capture_default_str();
  cmd->add_option("--model-param", opts->model_params,
                  "Model parameter key=value (repeatable); analytic: comm=ring|hierarchical|ps|hybrid|auto, "
                  "levels=ar,ps,ar, ps_shards=K, overlap=F, rebalance=true|false");
  cmd->add_option("--placement", opts->spec.placement, "Placement policy (event mechanism): consolidate, spread, topology-aware, random")
      ->capture_default_str();
  auto* restart_opt = cmd->add_option("--restart-overhead", opts->spec.mechanism.restart_overhead_s,
                  "Seconds without progress at every start, resume, move or resize of a job")
      ->capture_default_str();
  cmd->add_option("--interval", opts->spec.mechanism.interval_s,
                  "Round length in seconds; 0 = run the policy at every arrival and completion")
      ->capture_default_str();
  cmd->add_flag("--schedule-on-arrival", opts->spec.mechanism.schedule_on_arrival,
                "In round mode, also run the policy when a job arrives");
  cmd->add_option("--heet-round", opts->spec.trace_options.heet_round_s,
                  "Seconds per arrival round in Heet prototype traces")
      ->capture_default_str();
  cmd->add_option("--profiling", opts->spec.profiling,
                  "What policies plan with: oracle (the measured table) or cf (Heet's collaborative filtering from a "
                  "profiled share; every job pays its profiling runs)")
      ->capture_default_str();
  cmd->add_option("--profiled-fraction", opts->spec.profiled_fraction,
                  "With --profiling cf: share of each job type's profile cells that are measured")
      ->capture_default_str();
  cmd->add_option("--profiling-run-s", opts->spec.profiling_run_s, "With --profiling cf: seconds per profiling run")
      ->capture_default_str();
  cmd->add_option("--profiling-runs", opts->spec.profiling_runs,
                  "With --profiling cf: profiling runs per job (-1 = one per profiled cell)")
      ->capture_default_str();
  cmd->add_option("--seed", opts->spec.seed, "Random seed (synthetic workload, randomised policies)")->capture_default_str();
  cmd->add_option("--until", opts->until_s, "Stop at this simulated time (s); jobs not done are 'unfinished'");
  cmd->add_option("--out", opts->out, "Write DIR/jobs.csv and DIR/summary.json");
  cmd->add_flag("-q,--quiet", opts->quiet, "Do not print the summary table");

  return [opts, &registry, restart_opt]() -> int {
    RunSpec spec = opts->spec;
    // The Pollux simulator charges 30 s per (re)allocation; that is the default for its workloads.
    if (!spec.workload.empty() && restart_opt->count() == 0) spec.mechanism.restart_overhead_s = 30.0;
    auto format = parse_trace_format(opts->format);
    if (!format) throw InputError("", 0, "--format", "unknown trace format '" + opts->format + "'");
    spec.format = *format;
    spec.params = parse_params(opts->params);
    spec.model_params = parse_params(opts->model_params, "--model-param");
    if (opts->until_s >= 0) spec.mechanism.until_s = opts->until_s;
    auto t0 = std::chrono::steady_clock::now();
    RunOutput out = run_simulation(spec, registry);
    double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!opts->out.empty()) write_run_outputs(opts->out, out);
    if (!opts->quiet) {
      print_summary_table(std::cout, out.summary, out.info);
      fmt::print("  {:<22}{:>16.3f}\n", "wall time (s)", wall_s);
      if (!opts->out.empty()) fmt::print("outputs: {}/jobs.csv, {}/summary.json\n", opts->out, opts->out);
    }
    for (const std::string& n : out.model_notes) fmt::print(stderr, "hetsim: {}\n", n);
    for (const std::string& w : out.stats.warnings) fmt::print(stderr, "hetsim: warning: {}\n", w);
    if (out.stats.refused_requests > out.stats.warnings.size())
      fmt::print(stderr, "hetsim: warning: {} more refused policy requests\n",
                 out.stats.refused_requests - out.stats.warnings.size());
    if (out.summary.rejected > 0) {
      std::size_t shown = 0;
      for (const JobRecord& r : out.records) {
        if (r.status != "rejected") continue;
        if (shown++ < 10) fmt::print(stderr, "hetsim: rejected: {}\n", r.reason);
      }
      fmt::print(stderr, "hetsim: {} of {} jobs rejected (reasons in jobs.csv); exit code {}\n", out.summary.rejected,
                 out.summary.jobs_read, static_cast<int>(kJobsRejected));
      return kJobsRejected;
    }
    return kOk;
  };
}

}  // namespace hetsim::app
