#include "hetsim/run.hpp"

#include <filesystem>
#include <fstream>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/workload/synthetic.hpp"

namespace hetsim {

RunOutput simulate(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                   SchedulingPolicy& policy, const PlacementPolicy& placement, const MechanismConfig& config,
                   RunInfo info) {
  RunRecorder recorder(cluster, workload.jobs.size(), config.restart_overhead_s);
  Mechanism mechanism(cluster, workload, model, policy, placement, config, {&recorder});
  RunOutput out;
  out.stats = mechanism.run();
  out.summary = summarize(recorder, cluster);
  out.records = recorder.records();
  out.info = std::move(info);
  return out;
}

RunOutput run_simulation(const RunSpec& spec, const PolicyRegistry& registry) {
  // Check the cheap things first so a typo fails before a large trace is read.
  auto policy = registry.make(spec.policy, spec.params, spec.seed);
  auto placement = make_placement(spec.placement, spec.seed);
  if (!placement) {
    std::string known;
    for (const auto& n : placement_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("", 0, "--placement", "unknown placement '" + spec.placement + "' (known: " + known + ")");
  }
  if (spec.mechanism.restart_overhead_s < 0)
    throw InputError("", 0, "--restart-overhead", "must not be negative");
  if (spec.mechanism.interval_s < 0) throw InputError("", 0, "--interval", "must not be negative");
  Cluster cluster = resolve_cluster(spec.cluster);
  Workload workload;
  if (spec.trace.empty()) {
    SyntheticWorkloadConfig cfg;
    cfg.seed = spec.seed;
    workload = make_synthetic_workload(cfg);
  } else {
    workload = read_trace(spec.trace, spec.format, spec.trace_options);
  }
  auto model = make_throughput_model(spec.model, spec.throughputs, spec.model_params, cluster);
  RunInfo info{cluster.name(), workload.source, workload.format, spec.policy, spec.placement, model->name(), spec.seed};
  return simulate(cluster, workload, *model, *policy, *placement, spec.mechanism, std::move(info));
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
