#pragma once
/// Choosing a throughput model by name (`hetsim run --model NAME --model-param key=value`).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/util/registry.hpp"

namespace hetsim {

/// `--model-param` values by key.
using ModelParams = std::map<std::string, std::string>;

/// Everything needed to list and build one throughput model (the shared registry shape).
struct ModelInfo {
  std::string name;
  std::string summary;  ///< one line: what it computes and from which file
  std::string source;   ///< the paper or system whose numbers it follows
  std::vector<ParamInfo> params;  ///< accepted --model-param keys (defaults are the model's own)
  /// Builds the model from `path` (--throughputs, maybe empty) and the given parameters, already
  /// checked against `params` unless `resolves_by_file`.
  std::function<std::unique_ptr<ThroughputModel>(const std::string& path, const ModelParams& params,
                                                 const Cluster& cluster)>
      make;
  /// True for "auto": it picks another model by the file, which then checks the parameters.
  bool resolves_by_file = false;
};
using ModelRegistry = Registry<ModelInfo>;

/// The registry with every built-in model: auto, gavel-table, heet-profile, elasticflow-table,
/// duration, analytic.
ModelRegistry make_default_model_registry();

/// Names in the default registry, for help texts and errors.
std::vector<std::string> throughput_model_names();

/// The first --model-param of `model` that the model does not declare or whose number is out of
/// range; nullopt when all are fine, the model is unknown or it is "auto" (resolved by the file).
std::optional<ParamProblem> find_model_param_problem(const std::string& model, const ModelParams& params);

/// Builds a throughput model.
/// - "auto": by the file, as load_throughput_model() (a job-types JSON selects analytic);
/// - "gavel-table", "heet-profile", "elasticflow-table": that table, which `path` must hold (a
///   folder of throughputs_<GPU>/ CSVs for elasticflow-table); gavel-table (also when
///   "auto" finds a Gavel table) takes `spread=unconsolidated|consolidated` (default
///   unconsolidated; consolidated = Gavel's simulator, see GavelThroughputTable::load());
/// - "duration": the duration model (`path` must be empty);
/// - "analytic": compute from `path` (a Gavel table at scale factor 1, or a job-types JSON) plus
///   communication over the topology; params comm, levels, ps_shards, overlap, rebalance.
/// Throws InputError naming the option (--model, --model-param, --throughputs) or the file.
std::unique_ptr<ThroughputModel> make_throughput_model(const std::string& name, const std::string& path,
                                                       const ModelParams& params, const Cluster& cluster);

}  // namespace hetsim
