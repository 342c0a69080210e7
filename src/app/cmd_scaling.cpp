// `hetsim scaling`: the ISORC'24 scaling experiment (speed-up against nodes under PS, all-reduce
// and hybrid synchronisation) for one job type; the computation is experiment/scaling.hpp.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fmt/core.h>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "run_options.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/experiment/scaling.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim::app {
namespace {

struct ScalingOptions {
  std::string cluster = "gavel-108-2rack";
  std::string throughputs;
  std::string job_types;
  std::string job_type = "ResNet-50 (batch size 64)";
  int max_nodes = 0;
  std::string nodes_order = "mixed";
  std::vector<std::string> model_params;
  std::vector<std::string> hybrids;
  int background = 0;
  std::string out;
  bool quiet = false;
  CLI::Option* max_nodes_option = nullptr;
};

// The compute profile's file: --job-types, --throughputs, or Gavel's table in the shared data
// (HETSIM_SHARED_DATA, else ../shared/data beside the checkout, as the tests find it).
std::string profile_path(const ScalingOptions& o) {
  if (!o.job_types.empty() && !o.throughputs.empty())
    throw InputError("", 0, "--job-types", "give --job-types or --throughputs, not both");
  if (!o.job_types.empty()) {
    if (!std::filesystem::exists(o.job_types)) throw InputError(o.job_types, 0, "--job-types", "no such file");
    if (!std::filesystem::is_regular_file(o.job_types))
      throw InputError(o.job_types, 0, "--job-types", "not a regular file (expected a job-types JSON file)");
    return o.job_types;
  }
  if (!o.throughputs.empty()) return o.throughputs;
  const char* env = std::getenv("HETSIM_SHARED_DATA");
  const std::filesystem::path data = env && *env ? env : "../shared/data";
  const std::string path = (data / "gavel" / "simulation_throughputs.json").string();
  if (!std::filesystem::is_regular_file(path))
    throw InputError(path, 0, "--throughputs",
                     "Gavel's table is not here; give --throughputs FILE, or --job-types FILE "
                     "(experiments/isorc/job_types.json needs no shared data)");
  return path;
}

std::vector<std::array<LevelSync, 3>> parse_hybrids(const std::vector<std::string>& items) {
  std::vector<std::array<LevelSync, 3>> out;
  for (const std::string& item : items) {
    const auto parts = split(item, ',');
    if (parts.size() != 3) throw InputError("", 0, "--hybrid", fmt::format("'{}': expected ar|ps for node,rack,cluster, e.g. ar,ps,ar", item));
    std::array<LevelSync, 3> levels{};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto s = parse_level_sync(trim(parts[i]));
      if (!s) throw InputError("", 0, "--hybrid", fmt::format("'{}' is neither ar nor ps", parts[i]));
      levels[i] = *s;
    }
    if (std::find(out.begin(), out.end(), levels) != out.end())
      throw InputError("", 0, "--hybrid", fmt::format("'{}' given twice", item));
    out.push_back(levels);
  }
  return out;
}

// --model-param minus the communication keys (every scheme runs), rebalance on by default: the
// job spans GPU types, and synchronous training paced by its K80s says little about the network.
ModelParams model_params(const std::vector<std::string>& items) {
  ModelParams params = parse_params(items, "--model-param");
  for (const char* key : {"comm", "levels"})
    if (params.count(key))
      throw InputError("", 0, fmt::format("--model-param {}", key),
                       "set by the command (every scheme runs); add per-level hybrids with --hybrid ar,ps,ar");
  params.emplace("rebalance", "true");
  return params;
}

// "ar,ps,ar": a hybrid's levels as --model-param levels takes them.
std::string levels_text(const CommConfig& c) {
  std::string s;
  for (LevelSync l : c.levels) s += (s.empty() ? "" : ",") + std::string(l == LevelSync::AllReduce ? "ar" : "ps");
  return s;
}

void print_rows(const std::vector<ScalingRow>& rows, const std::vector<ScalingScheme>& schemes) {
  for (std::size_t start = 0; start < rows.size();) {
    const int bg = rows[start].background;
    fmt::print("\n{}: speed-up over 1 node (step time in s)\n",
               bg == 0 ? std::string("alone") : fmt::format("with {} background ring jobs on the uplinks", bg));
    fmt::print("{:>5} {:>5}  {:<24}", "nodes", "gpus", "gpu_mix");
    for (const ScalingScheme& s : schemes) fmt::print(" {:>20}", s.name);
    fmt::print("  auto chose\n");
    std::size_t per_scheme = 0;
    while (start + per_scheme < rows.size() && rows[start + per_scheme].background == bg &&
           rows[start + per_scheme].scheme == rows[start].scheme)
      ++per_scheme;
    for (std::size_t n = 0; n < per_scheme; ++n) {
      const ScalingRow& first = rows[start + n];
      fmt::print("{:>5} {:>5}  {:<24}", first.nodes, first.gpus, first.gpu_mix);
      std::string chose;
      for (std::size_t s = 0; s < schemes.size(); ++s) {
        const ScalingRow& r = rows[start + s * per_scheme + n];
        fmt::print(" {:>20}", fmt::format("{:.2f} ({:.4f})", r.speedup, r.step_s));
        if (r.scheme == "auto") chose = r.choice;
      }
      fmt::print("  {}\n", chose);
    }
    start += per_scheme * schemes.size();
  }
}

// Without --max-nodes: every node of the order, or with K background jobs the most nodes that
// still leave K pairs of nodes on two racks outside the job (1 when none does: run_scaling then
// says why).
int default_max_nodes(const Cluster& cluster, const std::vector<NodeId>& order, int background) {
  const int offered = static_cast<int>(order.size());
  if (background == 0) return offered;
  for (int n = offered; n > 1; --n) {
    try {
      background_placements(cluster, order, n, background);
      return n;
    } catch (const InputError&) {
      // too few pairs left beside n nodes: try one node fewer
    }
  }
  return 1;
}

int run_scaling_command(const ScalingOptions& o) {
  if (o.max_nodes_option->count() > 0 && o.max_nodes < 1)
    throw InputError("", 0, "--max-nodes", fmt::format("must be at least 1, got {}", o.max_nodes));
  if (o.background < 0) throw InputError("", 0, "--background", fmt::format("must be >= 0, got {}", o.background));
  if (o.job_type.empty()) throw InputError("", 0, "--job-type", "must not be empty");
  const auto hybrids = parse_hybrids(o.hybrids);
  const ModelParams params = model_params(o.model_params);
  if (!o.out.empty()) check_output_folder(o.out, "--out");
  const Cluster cluster = resolve_cluster(o.cluster);
  const std::string path = profile_path(o);
  // The scheme's algorithm and levels; ps_shards, overlap and rebalance come from --model-param.
  const SchemeModelMaker make = [&](const CommConfig& comm) {
    ModelParams p = params;
    p["comm"] = to_string(comm.algorithm);
    if (comm.algorithm == CommAlgorithm::Hybrid) p["levels"] = levels_text(comm);
    auto model = make_throughput_model("analytic", path, p, cluster);
    auto* analytic = dynamic_cast<AnalyticModel*>(model.get());
    if (!analytic) throw std::logic_error("make_throughput_model(analytic) built another model");
    model.release();
    return std::unique_ptr<AnalyticModel>(analytic);
  };
  ScalingConfig config;
  config.job.id = "scaling";
  config.job.job_type = o.job_type;
  config.job.unit = WorkUnit::Iterations;
  const auto ring_model = make(CommConfig{CommAlgorithm::Ring});
  if (auto problem = ring_model->check_job(config.job, cluster)) throw InputError("", 0, "--job-type", *problem);
  config.node_order = scaling_node_order(cluster, *ring_model, config.job, o.nodes_order);
  config.max_nodes = o.max_nodes_option->count() > 0 ? o.max_nodes : default_max_nodes(cluster, config.node_order, o.background);
  config.background_jobs = o.background;
  config.schemes = scaling_schemes(ring_model->config().comm.ps_shards, hybrids);
  const std::vector<ScalingRow> rows = run_scaling(cluster, make, config);
  if (!o.quiet) {
    const AnalyticConfig& a = ring_model->config();
    fmt::print("scaling: '{}' on {}, nodes {}, analytic model (overlap {:g}, rebalance {}, ps_shards {}), profile {}\n",
               o.job_type, cluster.name(), o.nodes_order, a.overlap, a.rebalance, a.comm.ps_shards, path);
    print_rows(rows, config.schemes);
  }
  if (!o.out.empty()) {
    const auto file = std::filesystem::path(o.out) / "scaling.csv";
    write_file_checked(file, "--out", [&](std::ostream& out) { write_scaling_csv(out, rows); });
    if (!o.quiet) fmt::print("\nwrote {}\n", file.string());
  }
  return kOk;
}

}  // namespace

Action add_scaling_command(CLI::App& app) {
  auto opts = std::make_shared<ScalingOptions>();
  CLI::App* cmd = app.add_subcommand(
      "scaling", "ISORC'24 scaling experiment: one job on 1..N nodes, step time, throughput and speed-up per "
                 "synchronisation scheme (ps, ring, hierarchical, auto, hybrids), alone and with background jobs");
  cmd->add_option("--cluster", opts->cluster, "Cluster preset name or cluster JSON file")->capture_default_str();
  cmd->add_option("--throughputs", opts->throughputs,
                  "Gavel throughput table for compute times (default: $HETSIM_SHARED_DATA or ../shared/data, "
                  "gavel/simulation_throughputs.json)");
  cmd->add_option("--job-types", opts->job_types, "hetsim job-types JSON instead of --throughputs (docs/models.md)");
  cmd->add_option("--job-type", opts->job_type, "Job type to scale")->capture_default_str();
  opts->max_nodes_option = cmd->add_option(
      "--max-nodes", opts->max_nodes, "Largest node count N (default: every node the order offers; with --background K, the most that leave K "
      "node pairs on two racks free)");
  cmd->add_option("--nodes-order", opts->nodes_order,
                  "mixed (round robin over GPU types, fastest first, and racks) or type:NAME")
      ->capture_default_str();
  cmd->add_option("--model-param", opts->model_params,
                  "Analytic model key=value: overlap, rebalance (default true here), ps_shards (repeatable)");
  cmd->add_option("--hybrid", opts->hybrids, "Also run a per-level hybrid, ar|ps for node,rack,cluster, e.g. ar,ps,ar (repeatable)");
  cmd->add_option("--background", opts->background,
                  "K background 2-node ring jobs across both racks' uplinks, sharing the network max-min fairly "
                  "(adds rows with background K)")
      ->capture_default_str();
  cmd->add_option("--out", opts->out, "Write DIR/scaling.csv");
  add_quiet_flag(cmd, opts->quiet);
  return [opts]() -> int { return run_scaling_command(*opts); };
}

}  // namespace hetsim::app
