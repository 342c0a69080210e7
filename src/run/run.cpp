#include "hetsim/run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/perf/cf_model.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/workload/synthetic.hpp"

namespace hetsim {
namespace {

// Which mechanism a spec runs under (RunSpec::mechanism_kind).
bool uses_gavel_mechanism(const RunSpec& spec, const PolicyInfo* info) {
  return spec.mechanism_kind == "gavel" || (spec.mechanism_kind == "auto" && info && !info->make);
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

RunOutput simulate(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                   SchedulingPolicy& policy, const PlacementPolicy& placement, const MechanismConfig& config,
                   RunInfo info, std::span<JobEventSink* const> extra_sinks) {
  RunRecorder recorder(cluster, workload.jobs.size());
  recorder.set_ideal_runtimes(ideal_runtimes(cluster, workload, model));
  Mechanism mechanism(cluster, workload, model, policy, placement, config, with_extra_sinks(cluster, recorder, extra_sinks));
  RunOutput out;
  out.stats = mechanism.run();
  out.summary = summarize(recorder, cluster);
  out.records = recorder.records();
  out.info = std::move(info);
  out.info.mechanism = config.interval_s > 0 ? "rounds" : "event";
  return out;
}

RunOutput simulate_gavel(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                         AllocationPolicy& policy, const GavelConfig& config, RunInfo info,
                         std::span<JobEventSink* const> extra_sinks) {
  RunRecorder recorder(cluster, workload.jobs.size());
  recorder.set_ideal_runtimes(ideal_runtimes(cluster, workload, model));
  GavelMechanism mechanism(cluster, workload, model, policy, config, with_extra_sinks(cluster, recorder, extra_sinks));
  RunOutput out;
  out.stats = mechanism.run();
  out.solver = mechanism.solver();
  out.summary = summarize(recorder, cluster);
  add_solver_stats(out.summary, out.solver);
  out.records = recorder.records();
  out.info = std::move(info);
  out.info.mechanism = "gavel";
  return out;
}

RunOutput run_simulation(const RunSpec& spec, const PolicyRegistry& registry,
                         std::span<JobEventSink* const> extra_sinks) {
  // Check the cheap things first so a typo fails before a large trace is read.
  const std::string& kind = spec.mechanism_kind;
  if (kind != "auto" && kind != "event" && kind != "gavel")
    throw InputError("", 0, "--mechanism", "unknown mechanism '" + kind + "' (known: auto, event, gavel)");
  const bool gavel = uses_gavel_mechanism(spec, registry.find(spec.policy));
  std::unique_ptr<SchedulingPolicy> policy;
  std::unique_ptr<AllocationPolicy> allocation_policy;
  if (gavel)
    allocation_policy = registry.make_allocation(spec.policy, spec.params, spec.seed);
  else
    policy = registry.make(spec.policy, spec.params, spec.seed);
  auto placement = make_placement(spec.placement, spec.seed);
  if (!placement) {
    std::string known;
    for (const auto& n : placement_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("", 0, "--placement", "unknown placement '" + spec.placement + "' (known: " + known + ")");
  }
  auto check_seconds = [](double v, const char* field, double min_positive) {
    if (!(v >= 0.0 && v <= kMaxSimSeconds))
      throw InputError("", 0, field, fmt::format("must be a number of seconds in [0, {:.0e}], got {}", kMaxSimSeconds, v));
    if (v > 0.0 && v < min_positive)
      throw InputError("", 0, field, fmt::format("must be 0 or at least {} s, got {}", min_positive, v));
  };
  check_seconds(spec.mechanism.restart_overhead_s, "--restart-overhead", 0.0);
  // Rounds shorter than a millisecond would make a run of any length take billions of rounds.
  check_seconds(spec.mechanism.interval_s, "--interval", 1e-3);
  if (spec.mechanism.until_s) check_seconds(*spec.mechanism.until_s, "--until", 0.0);
  if (spec.cluster_scale < 1) throw InputError("", 0, "cluster_scale", "must be at least 1");
  if (spec.generator && !spec.trace.empty())
    throw InputError(spec.trace, 0, "generator", "a run takes either a trace or the generator, not both");
  if (spec.generator && spec.throughputs.empty())
    throw InputError("", 0, "generator", "the generator draws job types from a Gavel throughput table: set throughputs");
  Cluster cluster = resolve_cluster(spec.cluster);
  if (spec.cluster_scale > 1) cluster = scale_cluster(cluster, spec.cluster_scale);
  Workload workload;
  if (!spec.workload.empty()) {
    if (!spec.trace.empty()) throw InputError("", 0, "--workload", "give either --trace or --workload, not both");
    if (spec.generator) throw InputError("", 0, "--workload", "give either --workload or the generator, not both");
    if (!spec.throughputs.empty())
      throw InputError("", 0, "--throughputs", "a Pollux/Sia workload runs on the goodput model; drop --throughputs");
    if (spec.model != "auto" || !spec.model_params.empty())
      throw InputError("", 0, "--model",
                       "a Pollux/Sia workload runs on the goodput model; choose its step-time model with --step-model");
    if (gavel)
      throw InputError("", 0, "--mechanism",
                       "Pollux/Sia workloads run under the event mechanism in round mode; policy '" + spec.policy +
                           "' needs --mechanism gavel, which does not model elastic goodput jobs");
    workload = read_trace(spec.workload, TraceFormat::Pollux);
    std::vector<std::string> roots = spec.profiles.empty() ? default_profile_roots(spec.workload) : spec.profiles;
    if (roots.empty())
      throw InputError(spec.workload, 0, "--profiles",
                       "no application profiles found next to the workload (no traces/ folder above it); pass --profiles DIR");
    auto model = load_goodput_model(cluster, workload, roots, spec.step_model);
    model->set_whole_second_epochs(!spec.exact_epochs);
    attach_goodput_work(workload, *model, spec.sia_restart_costs);
    MechanismConfig config = spec.mechanism;
    config.round_grid_from_zero = true;
    RunInfo info{cluster.name(), workload.source, workload.format, spec.policy, spec.placement, model->name(), spec.seed, ""};
    return simulate(cluster, workload, *model, *policy, *placement, config, std::move(info), extra_sinks);
  }
  if (spec.generator) {
    GavelWorkloadConfig cfg = *spec.generator;
    cfg.seed = spec.seed;
    workload = make_gavel_workload(cfg, read_generator_job_types(spec.throughputs, cfg.reference_gpu), spec.throughputs);
  } else if (spec.trace.empty()) {
    SyntheticWorkloadConfig cfg;
    cfg.seed = spec.seed;
    workload = make_synthetic_workload(cfg);
  } else {
    workload = read_trace(spec.trace, spec.format, spec.trace_options);
  }
  auto model = make_throughput_model(spec.model, spec.throughputs, spec.model_params, cluster);
  RunInfo info{cluster.name(), workload.source, workload.format, spec.policy, spec.placement, model->name(), spec.seed, ""};
  if (gavel) {
    if (spec.profiling != "oracle")
      throw InputError("", 0, "--profiling", "'cf' plans with predictions in the event mechanism only, not --mechanism gavel");
    GavelConfig config;
    config.round_s = spec.mechanism.interval_s > 0 ? spec.mechanism.interval_s : 360.0;
    config.restart_overhead_s = spec.mechanism.restart_overhead_s;
    config.until_s = spec.mechanism.until_s;
    config.seed = spec.seed;
    return simulate_gavel(cluster, workload, *model, *allocation_policy, config, std::move(info), extra_sinks);
  }
  MechanismConfig mech = spec.mechanism;
  // A round-based policy brings its own round length unless --interval says otherwise.
  if (mech.interval_s <= 0.0 && policy->round_s()) mech.interval_s = *policy->round_s();
  std::unique_ptr<CfThroughputModel> planning;
  std::vector<std::string> notes;
  if (spec.profiling == "cf") {
    if (spec.throughputs.empty())
      throw InputError("", 0, "--profiling", "'cf' predicts from a measured profile: give --throughputs");
    if (spec.profiling_run_s < 0) throw InputError("", 0, "--profiling-run-s", "must not be negative");
    CfModelOptions cfo;
    cfo.profiled_fraction = spec.profiled_fraction;
    cfo.completion.auto_select = true;
    cfo.seed = spec.seed;
    planning = std::make_unique<CfThroughputModel>(load_profile_tensor(spec.throughputs), cluster, cfo);
    const int runs = spec.profiling_runs >= 0 ? spec.profiling_runs : planning->max_profiling_runs();
    mech.profiling_s = runs * spec.profiling_run_s;
    mech.planning_model = planning.get();
    notes.push_back(fmt::format("cf: {:.0f}% profiled, {} cells predicted ({} absent from the profile), median "
                                "error {:.1f}% on predicted measured cells, profiling {} x {:.0f} s per job",
                                100.0 * spec.profiled_fraction, planning->predicted_cells().size(),
                                planning->missing_predicted().size(), planning->median_error_pct(), runs,
                                spec.profiling_run_s));
    for (const std::string& w : planning->warnings()) notes.push_back("cf: " + w);
  } else if (spec.profiling != "oracle") {
    throw InputError("", 0, "--profiling", "expected 'oracle' or 'cf', got '" + spec.profiling + "'");
  }
  RunOutput out = simulate(cluster, workload, *model, *policy, *placement, mech, std::move(info), extra_sinks);
  out.model_notes = std::move(notes);
  return out;
}

void write_run_outputs(const std::string& dir, const RunOutput& output) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "--out", "cannot create directory: " + ec.message());
  {
    std::ofstream jobs(std::filesystem::path(dir) / "jobs.csv", std::ios::binary);
    if (!jobs) throw InputError(dir + "/jobs.csv", 0, "--out", "cannot write file");
    write_jobs_csv(jobs, output.records);
  }
  std::ofstream summary(std::filesystem::path(dir) / "summary.json", std::ios::binary);
  if (!summary) throw InputError(dir + "/summary.json", 0, "--out", "cannot write file");
  write_summary_json(summary, output.summary, output.info);
}

}  // namespace hetsim
