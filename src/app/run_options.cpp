#include "run_options.hpp"

#include "python_host.hpp"

#include <charconv>
#include <cstdint>
#include <fmt/format.h>
#include <set>

#include "hetsim/perf/model_factory.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim::app {
CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::string_view t = text;
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
        const std::string range = "must be a non-negative integer (0 .. 18446744073709551615), got '" + text + "'";
        if (!t.empty() && t.front() == '-') return range;
        if (!t.empty() && t.front() == '+') t.remove_prefix(1);
        // CLI11 clamps an out-of-range integer to the type's maximum instead of refusing it.
        std::uint64_t value = 0;
        if (std::from_chars(t.data(), t.data() + t.size(), value).ec == std::errc::result_out_of_range) return range;
        return {};  // anything else that is not a number is refused by CLI11's own conversion
      },
      "UINT", "non-negative integer");
}

void add_threads_option(CLI::App* cmd, int& threads) {
  cmd->add_option("-j,--jobs", threads, "Runs in parallel (threads, at least 1)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              std::size_t used = 0;
              const long long n = std::stoll(text, &used);
              if (used == text.size() && n >= 1 && n <= 4096) return {};
            } catch (const std::exception&) {
            }
            return "must be a whole number of threads from 1 to 4096, got '" + text + "'";
          },
          "INT>=1", "threads"));
}

void refuse_empty_numbers(CLI::App& app) {
  // CLI11 converts an empty string to 0 for a number (`--until ""` would end the run at t=0), and
  // an empty path reads as "not given" (`--trace "$UNSET"` would run the built-in workload).
  // The type name is CLI11's ("FLOAT", "TEXT"), followed by ":<description>" of any validator;
  // an option whose empty value means something (allow_empty_value) has another type name.
  static const std::set<std::string> numeric{"FLOAT", "INT", "UINT", "NUMBER"};
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options()) {
      const std::string type = opt->get_type_name();
      const std::string base = type.substr(0, type.find(':'));
      const bool is_number = numeric.count(base) > 0;
      if (!is_number && base != "TEXT") continue;
      opt->check(CLI::Validator(
          [is_number](std::string& text) -> std::string {
            if (text.find_first_not_of(" \t") != std::string::npos) return {};
            return is_number ? "expected a number, got an empty value" : "expected a value, got an empty one";
          },
          ""));
    }
}

void allow_empty_value(CLI::Option* opt) {
  // refuse_empty_numbers checks options typed "TEXT"; this type name also tells the help reader.
  opt->type_name(kEmptyAllowedType);
}

void add_quiet_flag(CLI::App* cmd, bool& quiet) {
  cmd->add_flag("-q,--quiet", quiet, "Print nothing on stdout and no progress on stderr (errors and warnings still go to stderr)");
}

namespace {

// Help texts name what the registries hold, so a new placement, model or format shows up here.
std::string format_help() {
  return "Trace format: auto (detect by the first line) or " + make_default_format_registry().joined_names() +
         " (`hetsim list formats`)";
}

std::string model_help() {
  return "Throughput model: " + make_default_model_registry().joined_names() +
         " (`hetsim list models`, docs/models.md); auto = by the --throughputs file";
}

std::string model_param_help() {
  std::string per_model;
  const ModelRegistry models = make_default_model_registry();
  for (const ModelInfo& m : models.all())
    if (!m.params.empty()) per_model += fmt::format("{}{}: {}", per_model.empty() ? "" : "; ", m.name, describe_params(m.params));
  return "Model parameter key=value (repeatable; `hetsim list models`), defaults: " + per_model;
}

std::string placement_help() {
  return "Placement policy (event mechanism): " + make_default_placement_registry().joined_names() +
         " (`hetsim list placements`)";
}

}  // namespace

void add_run_spec_options(CLI::App* cmd, RunOptions& opts, bool with_policy) {
  cmd->add_option("--cluster", opts.spec.cluster, "Cluster preset name (see `hetsim list presets`), cluster JSON file, or node inventory (alibaba-openb:, alibaba-pai:, alibaba-spot:CSV)")
      ->capture_default_str();
  cmd->add_option("--cluster-scale", opts.spec.cluster_scale, "Copies of every node of the cluster")->capture_default_str();
  cmd->add_option("--trace", opts.spec.trace, "Trace file; omit for the built-in synthetic workload");
  cmd->add_option("--format", opts.format, format_help())->capture_default_str();
  cmd->add_option("--workload", opts.spec.workload,
                  "Pollux/Sia workload CSV (name,time,application,num_replicas,batch_size): goodput model, "
                  "restart overhead 30 s unless --restart-overhead is given");
  cmd->add_option("--profiles", opts.spec.profiles,
                  "Folder of Pollux/Sia application profiles (<app>/placements*.csv, validation-*.csv); repeatable; "
                  "default: the traces/ folder above the workload, then pollux/traces beside it");
  opts.step_model_option = cmd->add_option("--step-model", opts.spec.step_model, "Step-time model of the goodput model: pollux-table, pollux-fit")
      ->capture_default_str();
  cmd->add_flag("--exact-epochs", opts.spec.exact_epochs,
                "Goodput model: exact progress, instead of epochs that end on whole seconds after each resume "
                "(the Pollux simulator's clock)");
  cmd->add_flag("--sia-restart-costs", opts.spec.sia_restart_costs,
                "Per-application restart costs of Sia's simulator (ncf 15 s ... imagenet 250 s) instead of one value");
  cmd->add_option("--throughputs", opts.spec.throughputs,
                  "Throughput table (Gavel JSON, Heet profiles.json, a job-types JSON or an ElasticFlow throughputs_<GPU>/ folder); omit for the duration model");
  opts.generate_option = cmd->add_option("--generate", opts.generate_jobs,
                  "Instead of a trace, generate N jobs in Gavel's style (needs a Gavel --throughputs table)");
  opts.jobs_per_hour_option = cmd->add_option("--jobs-per-hour", opts.jobs_per_hour, "Arrival rate of --generate (jobs/hour)")->capture_default_str();
  opts.single_gpu_option = cmd->add_flag("--single-gpu", opts.single_gpu, "With --generate: every job on 1 GPU (default: Philly GPU-count mix)");
  opts.reference_gpu_option = cmd->add_option("--reference-gpu", opts.reference_gpu,
                                              "With --generate: GPU type whose measured rate turns durations into steps")
                                  ->capture_default_str();
  if (with_policy)
    opts.policy_option =
        cmd->add_option("--policy", opts.spec.policy, "Scheduling policy (see `hetsim list policies`)")->capture_default_str();
  add_policy_file_option(cmd, opts.policy_files);
  cmd->add_option("--param", opts.params, "Policy parameter key=value (repeatable)");
  cmd->add_option("--mechanism", opts.spec.mechanism_kind,
                  "auto, event (event-driven; rounds with --interval) or gavel (Gavel's round-based time sharing "
                  "of an allocation policy, rounds of --interval s, default 360); auto = gavel for allocation-only "
                  "policies, and for sia except on a --workload")
      ->capture_default_str();
  cmd->add_option("--model", opts.spec.model, model_help())->capture_default_str();
  cmd->add_option("--model-param", opts.model_params, model_param_help());
  cmd->add_option("--placement", opts.spec.placement, placement_help())->capture_default_str();
  cmd->add_option("--network", opts.spec.network,
                  "alone: each job's communication is priced as if it were alone on the network; shared: jobs on "
                  "several nodes share NIC and uplink bandwidth max-min fairly (event mechanism, --model analytic; "
                  "docs/models.md)")
      ->capture_default_str();
  opts.restart_option = cmd->add_option("--restart-overhead", opts.spec.mechanism.restart_overhead_s,
                                        "Seconds without progress at every start, resume, move or resize of a job")
                            ->capture_default_str();
  cmd->add_option("--interval", opts.spec.mechanism.interval_s,
                  "Round length in seconds; 0 = run the policy at every arrival and completion (event mechanism) "
                  "or Gavel's 360 s rounds (gavel mechanism)")
      ->capture_default_str();
  cmd->add_option("--share-slowdown", opts.spec.mechanism.share_slowdown,
                  "Jobs asking for a fraction of a GPU (gpu_milli) share GPUs; while a job has a co-resident on its "
                  "GPU it runs at (1 - this) x its rate alone, in [0, 1) (event mechanism; docs/models.md)")
      ->capture_default_str();
  cmd->add_flag("--schedule-on-arrival", opts.spec.mechanism.schedule_on_arrival,
                "In round mode, also run the policy when a job arrives");
  cmd->add_option("--heet-round", opts.spec.trace_options.heet_round_s, "Seconds per arrival round in Heet prototype traces")
      ->capture_default_str();
  cmd->add_option("--profiling", opts.spec.profiling,
                  "What policies plan with: oracle (the measured table) or cf (Heet's collaborative filtering from a "
                  "profiled share; every job pays its profiling runs)")
      ->capture_default_str();
  opts.cf_options = {
      cmd->add_option("--profiled-fraction", opts.spec.profiled_fraction,
                      "With --profiling cf: share of each job type's profile cells that are measured, in (0, 1]")
          ->capture_default_str(),
      cmd->add_option("--profiling-run-s", opts.spec.profiling_run_s, "With --profiling cf: seconds per profiling run")
          ->capture_default_str(),
      cmd->add_option("--profiling-runs", opts.spec.profiling_runs,
                      "With --profiling cf: profiling runs per job (-1 = one per profiled cell)")
          ->capture_default_str()};
  cmd->add_option("--seed", opts.spec.seed, "Random seed (synthetic workload, randomised policies), 0 .. 2^64-1")
      ->capture_default_str()
      ->check(seed_validator());
  opts.until_option = cmd->add_option("--until", opts.until_s, "Stop at this simulated time (s); jobs not done are 'unfinished'");
  add_check_invariants_flag(cmd, opts.spec.mechanism.check_invariants);
  cmd->add_flag("--no-round-skip{false}", opts.spec.mechanism.skip_steady_rounds,
                "--mechanism gavel: run every round in full instead of jumping over rounds in which nothing can "
                "change (the outputs are the same; for checking and timing)");
}

void add_check_invariants_flag(CLI::App* cmd, bool& check) {
  cmd->add_flag("--check-invariants", check,
                "Check the run's invariants after every scheduling pass (no GPU held twice, work = integral of rate, "
                "one final event per job, ...); a violation is an internal error (exit 1). Always on in debug and "
                "sanitizer builds");
}

std::map<std::string, std::string> parse_params(const std::vector<std::string>& items, const char* option) {
  std::map<std::string, std::string> params;
  for (const std::string& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", 0, option, "expected key=value, got '" + item + "'");
    const std::string key = item.substr(0, eq);
    if (auto [it, fresh] = params.emplace(key, item.substr(eq + 1)); !fresh)
      throw InputError("", 0, option,
                       fmt::format("key '{}' given twice ('{}={}' and '{}'); give each key once", key, key, it->second,
                                   item));
  }
  return params;
}

RunSpec to_run_spec(const RunOptions& opts) {
  RunSpec spec = opts.spec;
  // The Pollux simulator charges 30 s per (re)allocation; that is the default for its workloads.
  if (!spec.workload.empty() && opts.restart_option && opts.restart_option->count() == 0)
    spec.mechanism.restart_overhead_s = kPolluxRestartOverheadS;
  auto format = parse_trace_format(opts.format);
  if (!format)
    throw InputError("", 0, "--format",
                     fmt::format("unknown trace format '{}' (known: auto, {})", opts.format,
                                 make_default_format_registry().joined_names()));
  spec.format = *format;
  spec.params = parse_params(opts.params);
  spec.model_params = parse_params(opts.model_params, "--model-param");
  // Given options are checked, never silently ignored (find_run_spec_problem checks the range).
  if (opts.until_option && opts.until_option->count() > 0) spec.mechanism.until_s = opts.until_s;
  const bool generate = opts.generate_option && opts.generate_option->count() > 0;
  const auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
  if (!generate && (given(opts.jobs_per_hour_option) || given(opts.single_gpu_option) ||
                    given(opts.reference_gpu_option)))
    throw InputError("", 0, "--jobs-per-hour",
                     "--jobs-per-hour, --single-gpu and --reference-gpu only apply with --generate N");
  if (generate) {
    GavelWorkloadConfig g;
    g.jobs = opts.generate_jobs;
    g.jobs_per_hour = opts.jobs_per_hour;
    g.multi_gpu = !opts.single_gpu;
    g.reference_gpu = opts.reference_gpu;
    spec.generator = g;
  }
  if (auto problem = find_run_spec_problem(spec))
    throw InputError("", 0, cli_flag_of(problem->key), problem->message);
  if (spec.workload.empty() && opts.step_model_option && opts.step_model_option->count() > 0)
    throw InputError("", 0, "--step-model",
                     "only applies to a Pollux/Sia workload (the goodput model): add --workload or drop it");
  if (spec.profiling != "cf")
    for (const CLI::Option* o : opts.cf_options)
      if (o->count() > 0)
        throw InputError("", 0, o->get_name(),
                         fmt::format("only applies with --profiling cf (profiling is '{}'); add --profiling cf or drop {}",
                                     spec.profiling, o->get_name()));
  return spec;
}

}  // namespace hetsim::app
