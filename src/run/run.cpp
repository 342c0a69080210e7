#include "hetsim/run.hpp"

#include <filesystem>
#include <fstream>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/workload/synthetic.hpp"

namespace hetsim {

RunOutput simulate(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                   SchedulingPolicy& policy, const PlacementPolicy& placement, const MechanismConfig& config,
                   RunInfo info, std::span<JobEventSink* const> extra_sinks) {
  RunRecorder recorder(cluster, workload.jobs.size(), config.restart_overhead_s);
  std::vector<JobEventSink*> sinks{&recorder};
  for (JobEventSink* sink : extra_sinks) {
    sink->on_run_start(cluster);
    sinks.push_back(sink);
  }
  Mechanism mechanism(cluster, workload, model, policy, placement, config, std::move(sinks));
  RunOutput out;
  out.stats = mechanism.run();
  out.summary = summarize(recorder, cluster);
  out.records = recorder.records();
  out.info = std::move(info);
  return out;
}

RunOutput run_simulation(const RunSpec& spec, const PolicyRegistry& registry,
                         std::span<JobEventSink* const> extra_sinks) {
  // Check the cheap things first so a typo fails before a large trace is read.
  auto policy = registry.make(spec.policy, spec.params, spec.seed);
  auto placement = make_placement(spec.placement);
  if (!placement) {
    std::string known;
    for (const auto& n : placement_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("", 0, "--placement", "unknown placement '" + spec.placement + "' (known: " + known + ")");
  }
  if (spec.mechanism.restart_overhead_s < 0)
    throw InputError("", 0, "--restart-overhead", "must not be negative");
  if (spec.mechanism.interval_s < 0) throw InputError("", 0, "--interval", "must not be negative");
  if (spec.cluster_scale < 1) throw InputError("", 0, "cluster_scale", "must be at least 1");
  if (spec.generator && !spec.trace.empty())
    throw InputError(spec.trace, 0, "generator", "a run takes either a trace or the generator, not both");
  if (spec.generator && spec.throughputs.empty())
    throw InputError("", 0, "generator", "the generator draws job types from a Gavel throughput table: set throughputs");
  Cluster cluster = resolve_cluster(spec.cluster);
  if (spec.cluster_scale > 1) cluster = scale_cluster(cluster, spec.cluster_scale);
  Workload workload;
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
  auto model = load_throughput_model(spec.throughputs, cluster);
  RunInfo info{cluster.name(), workload.source, workload.format, spec.policy, spec.placement, model->name(), spec.seed};
  return simulate(cluster, workload, *model, *policy, *placement, spec.mechanism, std::move(info), extra_sinks);
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
