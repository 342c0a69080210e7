#pragma once
/// Choosing a throughput model by name (`hetsim run --model NAME --model-param key=value`).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// `--model-param` values by key.
using ModelParams = std::map<std::string, std::string>;

/// Names make_throughput_model accepts, for help texts and errors: auto, gavel-table,
/// heet-profile, elasticflow-table, duration, analytic.
std::vector<std::string> throughput_model_names();

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
