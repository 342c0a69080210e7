#include "hetsim/run.hpp"
#include "hetsim/run_settings.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/experiment/run_keys.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/perf/cf_model.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/perf/type_constraint.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/workload/synthetic.hpp"

namespace hetsim {
namespace {

// Which mechanism a spec runs under (RunSpec::mechanism_kind).
bool uses_gavel_mechanism(const RunSpec& spec, const PolicyInfo* info) {
  if (spec.mechanism_kind == "gavel") return true;
  if (spec.mechanism_kind != "auto" || !info) return false;
  if (info->scheduling_form_for_workloads_only) return spec.workload.empty();
  return !info->make;
}

// work / best rate at the requested GPU count over all types (the job alone on its fastest type).
std::vector<double> ideal_runtimes(const Cluster& cluster, const Workload& workload, const ThroughputModel& model) {
  std::vector<double> out(workload.jobs.size(), -1.0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const JobSpec& spec = workload.jobs[i];
    if (spec.work <= 0.0) continue;
    double best = 0.0;
    for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
      auto type = static_cast<GpuTypeId>(t);
      if (cluster.gpus_of_type(type) < spec.requested_gpus || spec.requested_gpus <= 0) continue;
      best = std::max(best, model.rate(spec, {type, spec.requested_gpus,
                                              spec.requested_gpus <= cluster.max_gpus_per_node(type)}));
    }
    if (best > 0.0) out[i] = spec.work / best;
  }
  return out;
}

// Solver time goes to the summary but not wall-clock-dependent keys: only counts are written to
// summary.json (equal runs give equal bytes); the times are printed on stdout.
void add_solver_stats(RunSummary& s, const SolverStats& solver) {
  s.rounds = static_cast<long long>(solver.rounds);
  s.allocations = static_cast<long long>(solver.allocations);
  s.solver_failures = static_cast<long long>(solver.failures);
  s.solver_node_limits = static_cast<long long>(solver.node_limits);
  s.solver_time_limits = static_cast<long long>(solver.time_limits);
  s.solver_s_total = solver.solver_s_total;
  s.solver_s_max = solver.solver_s_max;
}

// Jobs asking for a fraction of a GPU (JobSpec::gpu_milli) in `w`.
std::size_t count_fractional(const Workload& w) {
  return static_cast<std::size_t>(std::count_if(w.jobs.begin(), w.jobs.end(), [](const JobSpec& j) { return shares_gpu(j); }));
}

// Where GPUs are not shared (the round mechanism, policies that pick exact free GPUs), fractional
// jobs run on one whole GPU each, as before GPU sharing: returns the one note saying so ("" when
// `w` has no such job).
std::string run_fractions_whole(Workload& w, const std::string& where) {
  const std::size_t n = count_fractional(w);
  if (n == 0) return {};
  for (JobSpec& j : w.jobs) j.gpu_milli = ClusterState::kWholeMilli;
  return fmt::format("{} does not share GPUs: {} jobs asking for a fraction of a GPU run on 1 whole GPU each", where, n);
}

// The standard recorder first, then the caller's sinks, each told the cluster before the run.
std::vector<JobEventSink*> with_extra_sinks(const Cluster& cluster, RunRecorder& recorder,
                                            std::span<JobEventSink* const> extra_sinks) {
  std::vector<JobEventSink*> sinks{&recorder};
  for (JobEventSink* sink : extra_sinks) {
    sink->on_run_start(cluster);
    sinks.push_back(sink);
  }
  return sinks;
}

}  // namespace

void check_run_policy(const RunSpec& spec, const PolicyRegistry& registry) {
  const PolicyInfo* info = registry.find(spec.policy);
  if (uses_gavel_mechanism(spec, info))
    registry.make_allocation(spec.policy, spec.params, spec.seed);
  else
    registry.make(spec.policy, spec.params, spec.seed);
}

namespace {

// What simulate() and simulate_gavel() share: the recorder with the ideal runtimes, the caller's
// sinks, and the output assembled from the recorder. `run_mechanism(sinks, out)` builds and runs
// the mechanism and returns its counters.
template <class RunMechanism>
RunOutput run_recorded(const Cluster& cluster, const Workload& workload, const ThroughputModel& model, RunInfo info,
                       std::span<JobEventSink* const> extra_sinks, RunMechanism&& run_mechanism) {
  RunRecorder recorder(cluster, workload.jobs.size());
  recorder.set_ideal_runtimes(ideal_runtimes(cluster, workload, model));
  RunOutput out;
  out.stats = run_mechanism(with_extra_sinks(cluster, recorder, extra_sinks), out);
  out.summary = summarize(recorder, cluster);
  if (out.stats.checked_final_events)
    check_summary_invariants(out.summary, *out.stats.checked_final_events, out.stats.end);
  out.records = recorder.take_records();
  out.info = std::move(info);
  return out;
}

}  // namespace

RunOutput simulate(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                   SchedulingPolicy& policy, const PlacementPolicy& placement, const MechanismConfig& config,
                   RunInfo info, std::span<JobEventSink* const> extra_sinks) {
  info.mechanism = config.interval_s > 0 ? "rounds" : "event";
  // run_simulation has already given whole GPUs where the policy cannot share; a direct caller
  // gets the same rule and its warning.
  std::optional<Workload> whole;
  std::string note;
  if (!policy.shares_gpus() && count_fractional(workload) > 0) {
    whole = workload;
    note = run_fractions_whole(*whole, fmt::format("policy '{}'", policy.name()));
  }
  const Workload& jobs = whole ? *whole : workload;
  MechanismConfig mech = config;
  if (mech.profiling_s == 0.0) mech.profiling_s = policy.profiling_s(cluster);  // e.g. Sia's bootstrap profiling
  RunOutput out = run_recorded(cluster, jobs, model, std::move(info), extra_sinks,
                               [&](std::vector<JobEventSink*> sinks, RunOutput&) {
                                 return Mechanism(cluster, jobs, model, policy, placement, mech, std::move(sinks)).run();
                               });
  if (!note.empty()) out.stats.warnings.insert(out.stats.warnings.begin(), note);
  return out;
}

RunOutput simulate_gavel(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                         AllocationPolicy& policy, const GavelConfig& config, RunInfo info,
                         std::span<JobEventSink* const> extra_sinks) {
  info.mechanism = "gavel";
  std::optional<Workload> whole;  // as in simulate(): the round mechanism gives whole GPUs
  std::string note;
  if (count_fractional(workload) > 0) {
    whole = workload;
    note = run_fractions_whole(*whole, "the gavel mechanism");
  }
  const Workload& jobs = whole ? *whole : workload;
  RunOutput out = run_recorded(cluster, jobs, model, std::move(info), extra_sinks,
                               [&](std::vector<JobEventSink*> sinks, RunOutput& o) {
                                 GavelMechanism mechanism(cluster, jobs, model, policy, config, std::move(sinks));
                                 MechanismStats stats = mechanism.run();
                                 o.solver = mechanism.solver();
                                 return stats;
                               });
  add_solver_stats(out.summary, out.solver);
  if (!note.empty()) out.stats.warnings.insert(out.stats.warnings.begin(), note);
  return out;
}

namespace {

// True when `value` is one of the accepted names `known`.
bool one_of(const std::string& value, const std::vector<std::string>& known) {
  return std::find(known.begin(), known.end(), value) != known.end();
}

std::optional<RunSpecProblem> seconds_problem(const char* key, double v, double min_positive) {
  if (!(v >= 0.0 && v <= kMaxSimSeconds))
    return RunSpecProblem{key, fmt::format("must be a number of seconds in [0, {:.0e}], got {}", kMaxSimSeconds, v)};
  // Rounds shorter than a millisecond would make a run of any length take billions of rounds.
  if (v > 0.0 && v < min_positive)
    return RunSpecProblem{key, fmt::format("must be 0 or at least {} s, got {}", min_positive, v)};
  return std::nullopt;
}

// Seconds job `j` needs at least: its work at its best rate on any GPU type (rigid jobs only: an
// elastic job may run faster on more GPUs) plus the restart overhead of its first start.
double least_run_s(const JobSpec& j, const Cluster& cluster, const ThroughputModel& model, double restart_overhead_s) {
  if (j.min_gpus != j.max_gpus || j.work <= 0.0) return 0.0;
  double best = 0.0;
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
    const auto type = static_cast<GpuTypeId>(t);
    if (cluster.gpus_of_type(type) < j.requested_gpus) continue;
    best = std::max(best, model.rate(j, AllocationShape{type, j.requested_gpus,
                                                        j.requested_gpus <= cluster.max_gpus_per_node(type)}));
  }
  const double overhead_s = j.restart_overhead_s >= 0.0 ? j.restart_overhead_s : restart_overhead_s;
  return best > 0.0 ? j.work / best + overhead_s : 0.0;
}

// Refuses at once a round length that the run's longest job alone would need more than kMaxRounds
// rounds of (idle time between arrivals takes no rounds, so the arrival span is no bound); the
// mechanisms also stop a run that exceeds the limit on the way (check_round_limit).
void check_round_count(const Workload& workload, const Cluster& cluster, const ThroughputModel& model,
                       double round_s, const MechanismConfig& mech, bool event_mechanism) {
  if (!(round_s > 0.0)) return;
  const JobSpec* longest = nullptr;
  double longest_s = 0.0;
  for (const JobSpec& j : workload.jobs) {
    double need_s = least_run_s(j, cluster, model, mech.restart_overhead_s);
    if (mech.until_s) need_s = std::min(need_s, std::max(0.0, *mech.until_s - j.submit.seconds()));
    if (need_s > longest_s) longest_s = need_s, longest = &j;
  }
  const double rounds = longest_s / round_s;
  if (longest == nullptr || rounds <= mech.max_rounds) return;
  throw InputError("", 0, "--interval",
                   fmt::format("job '{}' alone needs {:.4g} s (its work at its best rate plus the restart overhead): "
                               "at least {:.3g} rounds of {} s (limit {:.0e}): use --interval {:.3g} or more{}",
                               longest->id, longest_s, rounds, round_s, mech.max_rounds, longest_s / mech.max_rounds,
                               event_mechanism ? ", or --interval 0 (event-driven)" : ""));
}

// Refuses a stop time before the first arrival: nothing would be simulated and every job would
// end unfinished. Traces differ in their origin (ITP's times are absolute, Philly's rebased), so a
// horizon meant from the trace's start can fall before it.
void check_until(const Workload& workload, const MechanismConfig& mech) {
  if (!mech.until_s || workload.jobs.empty()) return;
  const JobSpec* first = &workload.jobs.front();
  for (const JobSpec& j : workload.jobs)
    if (j.submit < first->submit) first = &j;
  if (*mech.until_s >= first->submit.seconds()) return;
  const std::string where = first->source_file ? fmt::format(" ({}:{})", *first->source_file, first->source_line) : "";
  throw InputError("", 0, "--until",
                   fmt::format("{} s is before the first job arrives (job '{}' at {} s{}): nothing would be simulated; "
                               "times are the trace's own, which some formats count from an absolute origin",
                               *mech.until_s, first->id, first->submit.seconds(), where));
}

// Refuses a run whose throughput model serves none of its jobs: that is a mismatch of inputs (a
// trace without the table its work unit needs, a table without the cluster's GPU types), which
// would otherwise run and reject every job one by one. Stops at the first job the model serves.
void check_model_serves_a_job(const Workload& workload, const Cluster& cluster, const ThroughputModel& model) {
  std::optional<std::string> first_reason;
  std::size_t checked = 0;
  for (const JobSpec& j : workload.jobs) {
    if (!j.invalid_reason.empty()) continue;  // rejected for its own row anyway
    auto reason = model.check_job(j, cluster);
    if (!reason) return;
    if (!first_reason) first_reason = fmt::format("{}{}", j.source_file ? fmt::format("{}:{}: ", *j.source_file, j.source_line) : "", *reason);
    ++checked;
  }
  if (!first_reason) return;
  std::vector<std::string> types;
  for (const GpuType& t : cluster.gpu_types()) types.push_back(t.name);
  throw InputError("", 0, "--throughputs",
                   fmt::format("throughput model '{}' can run none of the {} jobs on cluster '{}' (types {}); the first: {}",
                               model.name(), checked, cluster.name(), fmt::join(types, ", "), *first_reason));
}

// The workload and the throughput model of a run (the goodput model for Pollux/Sia workloads).
struct RunInputs {
  Workload workload;
  std::unique_ptr<ThroughputModel> model;
};

// `notes` (optional) receives a node-inventory importer's notes.
Cluster load_run_cluster(const RunSpec& spec, std::vector<std::string>* notes = nullptr) {
  Cluster cluster = resolve_cluster(spec.cluster, notes);
  if (spec.cluster_scale > 1) cluster = scale_cluster(cluster, spec.cluster_scale);
  return cluster;
}

// Reads the workload and builds the model on `cluster`, which must outlive the model. Assumes
// find_run_spec_problem found nothing.
RunInputs load_run_inputs(const RunSpec& spec, const Cluster& cluster) {
  RunInputs in;
  // A format given without a trace would be recorded in summary.json unused.
  if (spec.format != TraceFormat::Auto && spec.trace.empty())
    throw InputError("", 0, cli_flag_of("format"), "applies to a trace file only, and no --trace was given: add --trace or drop it");
  if (!spec.workload.empty()) {
    in.workload = read_trace(spec.workload, TraceFormat::Pollux);
    std::vector<std::string> roots = spec.profiles.empty() ? default_profile_roots(spec.workload) : spec.profiles;
    if (roots.empty())
      throw InputError(spec.workload, 0, "--profiles",
                       "no application profiles found next to the workload (no traces/ folder above it); pass --profiles DIR");
    auto model = load_goodput_model(cluster, in.workload, roots, spec.step_model);
    model->set_whole_second_epochs(!spec.exact_epochs);
    attach_goodput_work(in.workload, *model, spec.sia_restart_costs);
    for (std::string& w : missing_profile_warnings(*model, cluster)) in.workload.notes.push_back(std::move(w));
    in.model = std::move(model);
    return in;
  }
  if (spec.generator) {
    GavelWorkloadConfig cfg = *spec.generator;
    cfg.seed = spec.seed;
    in.workload = make_gavel_workload(cfg, read_generator_job_types(spec.throughputs, cfg.reference_gpu), spec.throughputs);
  } else if (spec.trace.empty()) {
    SyntheticWorkloadConfig cfg;
    cfg.seed = spec.seed;
    in.workload = make_synthetic_workload(cfg);
  } else {
    in.workload = read_trace(spec.trace, spec.format, spec.trace_options);
    // Its jobs' work is only known from the application profiles, which --workload loads.
    if (in.workload.format == to_string(TraceFormat::Pollux))
      throw InputError(spec.trace, 0, "--trace",
                       "is a Pollux/Sia workload (name,time,application,num_replicas,batch_size): pass it as --workload, "
                       "which runs it on the goodput model with its application profiles");
    // A round length given for another format's trace would be recorded in summary.json unused.
    if (spec.trace_options.heet_round_s != TraceOptions{}.heet_round_s && in.workload.format != to_string(TraceFormat::Heet))
      throw InputError(spec.trace, 0, cli_flag_of("heet_round_s"),
                       fmt::format("applies to Heet prototype traces only; this trace was read as '{}': drop it",
                                   in.workload.format));
  }
  in.model = make_throughput_model(spec.model, spec.throughputs, spec.model_params, cluster);
  // Only traces with GPU-type constraints pay for the wrapper; other runs keep the bare model.
  const auto constrained = [](const JobSpec& j) { return !j.allowed_gpu_types.empty(); };
  if (std::any_of(in.workload.jobs.begin(), in.workload.jobs.end(), constrained))
    in.model = std::make_unique<TypeConstrainedModel>(std::move(in.model), cluster);
  return in;
}

// The round mechanism's settings from a spec (Gavel's 360 s rounds unless --interval says otherwise).
GavelConfig gavel_config_of(const RunSpec& spec) {
  GavelConfig config;
  config.round_s = spec.mechanism.interval_s > 0 ? spec.mechanism.interval_s : 360.0;
  config.restart_overhead_s = spec.mechanism.restart_overhead_s;
  config.until_s = spec.mechanism.until_s;
  config.max_rounds = spec.mechanism.max_rounds;
  config.check_invariants = spec.mechanism.check_invariants;
  config.skip_steady_rounds = spec.mechanism.skip_steady_rounds;
  config.seed = spec.seed;
  return config;
}

// Heet's collaborative-filtering predictor as the planning model (--profiling cf): sets the
// mechanism's planning model and profiling time, and adds its one-line summary to `notes`.
std::unique_ptr<CfThroughputModel> make_cf_planner(const RunSpec& spec, const Cluster& cluster, const Workload& workload,
                                                   MechanismConfig& mech, std::vector<std::string>& notes) {
  CfModelOptions cfo;
  cfo.profiled_fraction = spec.profiled_fraction;
  cfo.completion.auto_select = true;
  cfo.seed = spec.seed;
  auto planning = std::make_unique<CfThroughputModel>(load_profile_tensor(spec.throughputs), cluster, cfo);
  // A job type the profile has no row for cannot be predicted at all: an input error, not a guess.
  for (const JobSpec& j : workload.jobs)
    if (auto why = j.invalid_reason.empty() ? planning->check_job(j, cluster) : std::nullopt)
      throw InputError(j.source_file ? *j.source_file : spec.throughputs, j.source_file ? j.source_line : 0, "job_type",
                       *why);
  const int runs = spec.profiling_runs >= 0 ? spec.profiling_runs : planning->max_profiling_runs();
  mech.profiling_s = runs * spec.profiling_run_s;
  mech.planning_model = planning.get();
  notes.push_back(fmt::format("cf: {:.0f}% profiled, {} cells predicted ({} absent from the profile), median "
                              "error {:.1f}% on predicted measured cells, profiling {} x {:.0f} s per job",
                              100.0 * spec.profiled_fraction, planning->predicted_cells().size(),
                              planning->missing_predicted().size(), planning->median_error_pct(), runs,
                              spec.profiling_run_s));
  if (const std::vector<std::string> missing = planning->missing_predicted(); !missing.empty())
    notes.push_back(fmt::format("cf: {} cell(s) absent from {} were predicted: {}{}", missing.size(), spec.throughputs,
                                fmt::join(missing.begin(), missing.begin() + std::min<std::ptrdiff_t>(5, std::ssize(missing)), ", "),
                                missing.size() > 5 ? ", ..." : ""));
  for (const std::string& w : planning->warnings()) notes.push_back("cf: " + w);
  return planning;
}

}  // namespace

std::optional<RunSpecProblem> find_run_spec_problem(const RunSpec& spec) {
  using P = RunSpecProblem;
  const std::string& kind = spec.mechanism_kind;
  if (!one_of(kind, {"auto", "event", "gavel"}))
    return P{"mechanism", "unknown mechanism '" + kind + "' (known: auto, event, gavel)"};
  if (!one_of(spec.placement, placement_names()))
    return P{"placement", fmt::format("unknown placement '{}' (known: {})", spec.placement, fmt::join(placement_names(), ", "))};
  if (!one_of(spec.network, {"alone", "shared"}))
    return P{"network", "expected 'alone' or 'shared', got '" + spec.network + "'"};
  if (spec.network == "shared" && spec.model != "analytic" && spec.model != "auto")
    return P{"network", fmt::format("'shared' needs the topology of --model analytic, not '{}'", spec.model)};
  if (!one_of(spec.model, throughput_model_names()))
    return P{"model", fmt::format("unknown throughput model '{}' (known: {})", spec.model,
                                  fmt::join(throughput_model_names(), ", "))};
  if (auto p = find_model_param_problem(spec.model, spec.model_params))
    return P{std::string(kModelParamKeyPrefix) + p->key, p->message};
  if (!one_of(spec.profiling, {"oracle", "cf"}))
    return P{"profiling", "expected 'oracle' or 'cf', got '" + spec.profiling + "'"};
  if (!one_of(spec.step_model, {"pollux-table", "pollux-fit"}))
    return P{"step_model", "unknown step-time model '" + spec.step_model + "' (known: pollux-table, pollux-fit)"};
  if (auto p = seconds_problem("restart_overhead_s", spec.mechanism.restart_overhead_s, 0.0)) return p;
  if (auto p = seconds_problem("interval_s", spec.mechanism.interval_s, 1e-3)) return p;
  if (spec.mechanism.until_s)
    if (auto p = seconds_problem("until_s", *spec.mechanism.until_s, 0.0)) return p;
  if (!(spec.mechanism.share_slowdown >= 0.0 && spec.mechanism.share_slowdown < 1.0))
    return P{"share_slowdown", fmt::format("must be a share of the rate in [0, 1), got {}", spec.mechanism.share_slowdown)};
  // An option that would change nothing is refused rather than recorded as if it had been used.
  if (spec.mechanism.schedule_on_arrival && spec.mechanism.interval_s == 0.0)
    return P{"schedule_on_arrival",
             "applies in round mode (--interval > 0); with --interval 0 the policy already runs at every arrival: "
             "add --interval or drop it"};
  const double round_s = spec.trace_options.heet_round_s;
  if (!(round_s > 0.0 && round_s <= kMaxSimSeconds))
    return P{"heet_round_s", fmt::format("must be a number of seconds in (0, {:.0e}], got {}", kMaxSimSeconds, round_s)};
  if (spec.cluster_scale < 1) return P{"cluster_scale", fmt::format("must be at least 1, got {}", spec.cluster_scale)};
  if (!(spec.profiled_fraction > 0.0 && spec.profiled_fraction <= 1.0))
    return P{"profiled_fraction", fmt::format("must be a share in (0, 1], got {}", spec.profiled_fraction)};
  if (auto p = seconds_problem("profiling_run_s", spec.profiling_run_s, 0.0)) return p;
  if (spec.profiling_runs < -1)
    return P{"profiling_runs", fmt::format("must be -1 (one per profiled cell) or a count >= 0, got {}", spec.profiling_runs)};
  if (spec.generator) {
    const GavelWorkloadConfig& g = *spec.generator;
    if (g.jobs < 1) return P{"generator.jobs", fmt::format("must be at least 1 job, got {}", g.jobs)};
    // 10 million jobs is 100x the largest public trace (Philly); beyond it a typo runs for hours.
    if (g.jobs > 10'000'000) return P{"generator.jobs", fmt::format("must be at most 10000000 jobs, got {}", g.jobs)};
    if (!(g.jobs_per_hour > 0.0 && g.jobs_per_hour <= 1e9))
      return P{"generator.jobs_per_hour", fmt::format("must be in (0, 1e9], got {}", g.jobs_per_hour)};
    // Arrivals spread over the horizon would be rejected one by one as arriving too late.
    if (const double span_s = g.jobs / g.jobs_per_hour * 3600.0; span_s > kMaxSimSeconds / 2)
      return P{"generator.jobs_per_hour",
               fmt::format("{} jobs at {} jobs/hour arrive over about {:.3g} s, beyond half the simulation horizon of "
                           "{:.0e} s: raise the rate",
                           g.jobs, g.jobs_per_hour, span_s, kMaxSimSeconds),
               true};  // jobs and rate together
    if (!spec.trace.empty()) return P{"generator", "a run takes either a trace or the generator, not both", true};
    if (spec.throughputs.empty())
      return P{"throughputs", "the generator draws job types from a Gavel throughput table: set throughputs", true};
  }
  if (!spec.workload.empty()) {
    if (!spec.trace.empty()) return P{"workload", "give either --trace or --workload, not both", true};
    if (spec.generator) return P{"workload", "give either --workload or the generator, not both", true};
    if (!spec.throughputs.empty())
      return P{"throughputs", "a Pollux/Sia workload runs on the goodput model; drop --throughputs", true};
    if (spec.model != "auto" || !spec.model_params.empty())
      return P{"model", "a Pollux/Sia workload runs on the goodput model; choose its step-time model with --step-model", true};
    if (spec.profiling != "oracle")
      return P{"profiling", "'cf' predicts from a --throughputs table; a Pollux/Sia workload runs on the goodput model", true};
  }
  // Goodput-model options: without a workload nothing reads them, so a given value would be ignored.
  if (spec.workload.empty()) {
    const char* why = "only applies to a Pollux/Sia workload (the goodput model): add --workload or drop it";
    if (spec.step_model != RunSpec{}.step_model) return P{"step_model", why, true};
    if (spec.exact_epochs) return P{"exact_epochs", why, true};
    if (spec.sia_restart_costs) return P{"sia_restart_costs", why, true};
  }
  if (spec.profiling == "cf" && spec.throughputs.empty())
    return P{"profiling", "'cf' predicts from a measured profile: give --throughputs", true};
  return std::nullopt;
}

namespace {

// Policy/mechanism combinations: they need the registry to know whether a policy is
// allocation-only (and so runs under the gavel mechanism).
std::optional<RunSpecProblem> find_mechanism_problem(const RunSpec& spec, const PolicyRegistry& registry) {
  if (!uses_gavel_mechanism(spec, registry.find(spec.policy))) {
    // Round skipping belongs to the gavel mechanism: elsewhere the flag would be accepted unused.
    if (!spec.mechanism.skip_steady_rounds)
      return RunSpecProblem{"--no-round-skip",
                            fmt::format("round skipping is the gavel mechanism's (docs/policies.md, \"Round skipping\"); "
                                        "policy '{}' runs under the event mechanism here: drop --no-round-skip",
                                        spec.policy),
                            true};
    return std::nullopt;
  }
  if (!spec.workload.empty()) {
    const PolicyInfo* info = registry.find(spec.policy);
    if (info && info->make)
      return RunSpecProblem{"mechanism",
                            "Pollux/Sia workloads run under the event mechanism in round mode (policy '" + spec.policy +
                                "' has a form for them: drop --mechanism gavel), not --mechanism gavel, which does not "
                                "model elastic goodput jobs",
                            true};
    return RunSpecProblem{"mechanism",
                          "Pollux/Sia workloads run under the event mechanism in round mode; policy '" + spec.policy +
                              "' needs --mechanism gavel, which does not model elastic goodput jobs",
                          true};
  }
  if (spec.network == "shared")
    return RunSpecProblem{"network",
                          fmt::format("'shared' needs the event mechanism; policy '{}' runs under the gavel mechanism, "
                                      "which counts Gavel's steps per round on each job's own rate",
                                      spec.policy),
                          true};
  if (spec.profiling != "oracle")
    return RunSpecProblem{"profiling", "'cf' plans with predictions in the event mechanism only, not --mechanism gavel",
                          true};
  if (spec.mechanism.share_slowdown != 0.0)
    return RunSpecProblem{"share_slowdown",
                          fmt::format("GPU sharing is modelled by the event mechanism only; policy '{}' runs under the "
                                      "gavel mechanism, which gives fractional jobs whole GPUs",
                                      spec.policy),
                          true};
  if (spec.mechanism.schedule_on_arrival)
    return RunSpecProblem{"schedule_on_arrival",
                          fmt::format("a pass at each arrival applies to the event mechanism's rounds (--interval); "
                                      "policy '{}' runs under the gavel mechanism, where arrivals join at the end of "
                                      "the round in progress (Gavel's rule): drop --schedule-on-arrival",
                                      spec.policy),
                          true};
  // The time-sharing mechanism places jobs itself (docs/policies.md); a placement would be recorded
  // in summary.json without having been used.
  if (spec.placement != RunSpec{}.placement)
    return RunSpecProblem{"placement",
                          fmt::format("'{}' applies to the event mechanism only; policy '{}' runs under the gavel "
                                      "mechanism, which places jobs itself: drop --placement (or use an event policy)",
                                      spec.placement, spec.policy),
                          true};
  return std::nullopt;
}

}  // namespace

void check_run_spec(const RunSpec& spec, const PolicyRegistry& registry) {
  auto problem = find_run_spec_problem(spec);
  if (!problem) {
    check_run_policy(spec, registry);
    problem = find_mechanism_problem(spec, registry);
  }
  if (problem) throw InputError("", 0, cli_flag_of(problem->key), problem->message);
}

std::vector<std::pair<std::string, std::string>> run_input_files(const RunSpec& spec) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [option, path] : {std::pair<const char*, std::string>{"--trace", spec.trace},
                                     {"--workload", spec.workload}, {"--throughputs", spec.throughputs}})
    if (!path.empty()) files.emplace_back(option, path);
  // A preset is a name; a cluster file (or the node list after "alibaba-openb:") is a path.
  const std::string cluster = spec.cluster.substr(spec.cluster.find(':') + 1);
  if (std::filesystem::is_regular_file(cluster)) files.emplace_back("--cluster", cluster);
  if (const auto it = spec.params.find("samples_csv"); it != spec.params.end() && !it->second.empty())
    files.emplace_back("--param samples_csv", it->second);
  return files;
}

void check_run_inputs(const RunSpec& spec) {
  if (auto problem = find_run_spec_problem(spec))
    throw InputError("", 0, cli_flag_of(problem->key), problem->message);
  const Cluster cluster = load_run_cluster(spec);
  const RunInputs in = load_run_inputs(spec, cluster);
  // Without the registry the mechanism is unknown; an explicit round length is checked either way.
  check_round_count(in.workload, cluster, *in.model, spec.mechanism.interval_s, spec.mechanism,
                    spec.mechanism_kind != "gavel");
  check_until(in.workload, spec.mechanism);
  check_model_serves_a_job(in.workload, cluster, *in.model);
  if (spec.profiling == "cf") load_profile_tensor(spec.throughputs);
}

RunOutput run_simulation(const RunSpec& spec, const PolicyRegistry& registry,
                         std::span<JobEventSink* const> extra_sinks) {
  // Check the cheap things first so a typo fails before a large trace is read.
  if (auto problem = find_run_spec_problem(spec))
    throw InputError("", 0, cli_flag_of(problem->key), problem->message);
  const bool gavel = uses_gavel_mechanism(spec, registry.find(spec.policy));
  std::unique_ptr<SchedulingPolicy> policy;
  std::unique_ptr<AllocationPolicy> allocation_policy;
  if (gavel)
    allocation_policy = registry.make_allocation(spec.policy, spec.params, spec.seed);
  else
    policy = registry.make(spec.policy, spec.params, spec.seed);
  if (auto problem = find_mechanism_problem(spec, registry))
    throw InputError("", 0, cli_flag_of(problem->key), problem->message);
  auto placement = make_placement(spec.placement, spec.seed);
  if (!placement) throw std::logic_error("placement_names() lists '" + spec.placement + "' but make_placement refuses it");
  std::vector<std::string> input_notes;  // cluster importer and trace reader notes, for stderr and summary.json
  const Cluster cluster = load_run_cluster(spec, &input_notes);
  RunInputs in = load_run_inputs(spec, cluster);
  if (gavel || !policy->shares_gpus()) {
    const std::string where =
        gavel ? fmt::format("policy '{}' under the gavel mechanism", spec.policy) : fmt::format("policy '{}'", spec.policy);
    if (std::string note = run_fractions_whole(in.workload, where); !note.empty()) in.workload.notes.push_back(note);
  }
  const Workload& workload = in.workload;
  const ThroughputModel& model = *in.model;
  check_until(workload, spec.mechanism);
  check_model_serves_a_job(workload, cluster, model);
  if (spec.network == "shared" && !model.topology())
    throw InputError("", 0, "--network",
                     fmt::format("'shared' needs a model that prices communication over the topology (--model "
                                 "analytic); this run's model is '{}'", model.name()));
  input_notes.insert(input_notes.end(), workload.notes.begin(), workload.notes.end());
  // Attaches the input notes to an output: stderr (through model_notes) and summary.json.
  auto with_notes = [&](RunOutput out) {
    out.summary.rows_skipped = workload.rows_skipped;
    out.summary.input_notes = input_notes;
    out.model_notes.insert(out.model_notes.begin(), input_notes.begin(), input_notes.end());
    return out;
  };
  // A policy's own restart cost applies when the run gives none; summary.json records the cost charged.
  RunSpec charged = spec;
  if (policy && charged.mechanism.restart_overhead_s == 0.0 && policy->restart_overhead_s())
    charged.mechanism.restart_overhead_s = *policy->restart_overhead_s();
  RunInfo info{cluster.name(), workload.source, workload.format, spec.policy, spec.placement, model.name(), spec.seed, "",
               spec.network, run_settings(charged)};
  if (!spec.workload.empty()) {
    MechanismConfig config = spec.mechanism;
    config.round_grid_from_zero = true;
    // A round-based policy brings its own round length unless --interval says otherwise.
    if (config.interval_s <= 0.0 && policy->round_s()) config.interval_s = *policy->round_s();
    check_round_count(workload, cluster, model, config.interval_s, config, true);
    return with_notes(simulate(cluster, workload, model, *policy, *placement, config, std::move(info), extra_sinks));
  }
  if (gavel) {
    const GavelConfig config = gavel_config_of(spec);
    check_round_count(workload, cluster, model, config.round_s, spec.mechanism, false);
    return with_notes(simulate_gavel(cluster, workload, model, *allocation_policy, config, std::move(info), extra_sinks));
  }
  MechanismConfig mech = charged.mechanism;
  mech.shared_network = spec.network == "shared";
  // A round-based policy brings its own round length unless --interval says otherwise.
  if (mech.interval_s <= 0.0 && policy->round_s()) mech.interval_s = *policy->round_s();
  check_round_count(workload, cluster, model, mech.interval_s, mech, true);
  std::vector<std::string> notes;
  std::unique_ptr<CfThroughputModel> planning = spec.profiling == "cf" ? make_cf_planner(spec, cluster, workload, mech, notes)
                                                                      : nullptr;
  RunOutput out = simulate(cluster, workload, model, *policy, *placement, mech, std::move(info), extra_sinks);
  out.model_notes = std::move(notes);
  return with_notes(std::move(out));
}

void write_run_outputs(const std::string& dir, const RunOutput& output) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "--out", "cannot create directory: " + ec.message());
  write_file_checked(std::filesystem::path(dir) / "jobs.csv", "--out",
                     [&](std::ostream& out) { write_jobs_csv(out, output.records); });
  write_file_checked(std::filesystem::path(dir) / "summary.json", "--out",
                     [&](std::ostream& out) { write_summary_json(out, output.summary, output.info); });
}

}  // namespace hetsim
