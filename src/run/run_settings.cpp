#include "hetsim/run_settings.hpp"

#include <filesystem>
#include <string>

#include "hetsim/experiment/run_keys.hpp"
#include "hetsim/trace/trace_reader.hpp"

namespace hetsim {
namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// "data/traces/" names the folder "traces" (its file name is empty).
std::string folder_name(const std::string& path) {
  std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

// A preset name stays as it is; a cluster file or an inventory ("alibaba-openb:/data/nodes.csv")
// keeps its prefix and the file name.
std::string cluster_name(const std::string& cluster) {
  const std::size_t slash = cluster.find('/');
  if (slash == std::string::npos) return cluster;
  const std::size_t colon = cluster.find(':');
  const std::size_t path_at = colon != std::string::npos && colon < slash ? colon + 1 : 0;
  return cluster.substr(0, path_at) + file_name(cluster.substr(path_at));
}

void put_goodput_keys(nlohmann::ordered_json& j, const RunSpec& spec) {
  j["workload"] = file_name(spec.workload);
  // The spec key takes one folder; several (--profiles repeated) are kept as a list.
  if (spec.profiles.size() == 1) j["profiles"] = folder_name(spec.profiles.front());
  if (spec.profiles.size() > 1) {
    nlohmann::ordered_json folders = nlohmann::ordered_json::array();
    for (const std::string& p : spec.profiles) folders.push_back(folder_name(p));
    j["profiles"] = folders;
  }
  j["step_model"] = spec.step_model;
  j["exact_epochs"] = spec.exact_epochs;
  j["sia_restart_costs"] = spec.sia_restart_costs;
}

}  // namespace

nlohmann::ordered_json run_settings(const RunSpec& spec) {
  nlohmann::ordered_json j;
  j["cluster"] = cluster_name(spec.cluster);
  j["cluster_scale"] = spec.cluster_scale;
  if (!spec.trace.empty()) j["trace"] = file_name(spec.trace);
  j["format"] = to_string(spec.format);
  j["heet_round_s"] = spec.trace_options.heet_round_s;
  j["model"] = spec.model;
  j["profiling"] = spec.profiling;
  if (spec.profiling == "cf") {
    j["profiled_fraction"] = spec.profiled_fraction;
    j["profiling_run_s"] = spec.profiling_run_s;
    j["profiling_runs"] = spec.profiling_runs;
  }
  if (!spec.workload.empty()) put_goodput_keys(j, spec);
  if (!spec.throughputs.empty()) j["throughputs"] = file_name(spec.throughputs);
  j["policy"] = spec.policy;
  j["mechanism"] = spec.mechanism_kind;
  j["placement"] = spec.placement;
  j["network"] = spec.network;
  j["restart_overhead_s"] = spec.mechanism.restart_overhead_s;
  j["interval_s"] = spec.mechanism.interval_s;
  j["schedule_on_arrival"] = spec.mechanism.schedule_on_arrival;
  // Written only when set, so runs without GPU sharing keep their summary.json byte for byte.
  if (spec.mechanism.share_slowdown != 0.0) j["share_slowdown"] = spec.mechanism.share_slowdown;
  if (spec.mechanism.until_s) j["until_s"] = *spec.mechanism.until_s;
  j["seed"] = spec.seed;
  if (spec.generator) {
    j["generator.jobs"] = spec.generator->jobs;
    j["generator.jobs_per_hour"] = spec.generator->jobs_per_hour;
    j["generator.multi_gpu"] = spec.generator->multi_gpu;
    j["generator.reference_gpu"] = spec.generator->reference_gpu;
  }
  // std::map: name order, so equal runs give equal bytes.
  for (const auto& [name, value] : spec.params) j[std::string(kParamKeyPrefix) + name] = value;
  for (const auto& [name, value] : spec.model_params) j[std::string(kModelParamKeyPrefix) + name] = value;
  return j;
}

}  // namespace hetsim
