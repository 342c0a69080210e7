#include "hetsim/perf/model_factory.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hetsim/perf/analytic_model.hpp"
#include "hetsim/perf/elasticflow_table.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

SourcePos param_pos(const std::string& key) { return SourcePos{"", 0, key}; }

AnalyticConfig analytic_config(const ModelParams& params) {
  AnalyticConfig c;
  for (const auto& [key, value] : params) {
    const std::string field = "--model-param " + key;
    if (key == "comm") {
      const auto a = parse_comm_algorithm(value);
      if (!a) throw InputError("", 0, field, fmt::format("unknown '{}'; expected ring, hierarchical, ps, hybrid or auto", value));
      c.comm.algorithm = *a;
    } else if (key == "levels") {
      const auto parts = split(value, ',');
      if (parts.size() != 3) throw InputError("", 0, field, "expected three of ar/ps for node,rack,cluster, e.g. ar,ps,ar");
      for (std::size_t i = 0; i < 3; ++i) {
        const auto s = parse_level_sync(trim(parts[i]));
        if (!s) throw InputError("", 0, field, fmt::format("'{}' is neither ar nor ps", parts[i]));
        c.comm.levels[i] = *s;
      }
    } else if (key == "ps_shards") {
      const long long k = parse_int(value, param_pos(field));
      if (k < 1 || k > 1'000'000) throw InputError("", 0, field, "must be a whole number >= 1");
      c.comm.ps_shards = static_cast<int>(k);
    } else if (key == "overlap") {
      c.overlap = parse_double(value, param_pos(field));
      if (!(c.overlap >= 0.0 && c.overlap <= 1.0)) throw InputError("", 0, field, "must be in [0, 1]");
    } else if (key == "rebalance") {
      if (value != "true" && value != "false") throw InputError("", 0, field, "must be true or false");
      c.rebalance = value == "true";
    } else {
      throw InputError("", 0, field, "unknown analytic parameter; expected comm, levels, ps_shards, overlap, rebalance");
    }
  }
  if (params.count("levels") && c.comm.algorithm != CommAlgorithm::Hybrid)
    throw InputError("", 0, "--model-param levels", "only used with comm=hybrid");
  return c;
}

}  // namespace

std::vector<std::string> throughput_model_names() { return {"auto", "gavel-table", "heet-profile", "elasticflow-table", "duration", "analytic"}; }

std::unique_ptr<ThroughputModel> make_throughput_model(const std::string& name, const std::string& path,
                                                       const ModelParams& params, const Cluster& cluster) {
  if (name == "auto") {
    // Resolved first, so parameter errors name the model that actually runs.
    if (path.empty()) {
      if (!params.empty())
        throw InputError("", 0, "--model-param " + params.begin()->first,
                         "without --throughputs the model is 'duration', which takes no parameters");
      return std::make_unique<DurationModel>(cluster);
    }
    const std::string kind = throughput_file_kind(path);
    return make_throughput_model(kind == "job-types" ? "analytic" : kind, path, params, cluster);
  }
  if (name == "analytic") {
    if (path.empty())
      throw InputError("", 0, "--throughputs",
                       "the analytic model needs a Gavel throughput table or a job-types JSON for compute times");
    const AnalyticConfig config = analytic_config(params);
    auto profile = throughput_file_kind(path) == "job-types" ? load_job_types_profile(path, cluster)
                                                             : load_gavel_compute_profile(path, cluster);
    return std::make_unique<AnalyticModel>(cluster, std::move(profile), config);
  }
  if (name != "gavel-table" && name != "heet-profile" && name != "elasticflow-table" && name != "duration")
    throw InputError("", 0, "--model",
                     fmt::format("unknown throughput model '{}' (known: {})", name, fmt::join(throughput_model_names(), ", ")));
  // gavel-table's one parameter; every other table model takes none.
  bool spread_unconsolidated = true;
  for (const auto& [key, value] : params) {
    const std::string field = "--model-param " + key;
    if (name != "gavel-table") throw InputError("", 0, field, fmt::format("model '{}' takes no parameters", name));
    if (key != "spread") throw InputError("", 0, field, "unknown gavel-table parameter; expected spread");
    if (value != "unconsolidated" && value != "consolidated")
      throw InputError("", 0, field, fmt::format("'{}' is neither unconsolidated nor consolidated", value));
    spread_unconsolidated = value == "unconsolidated";
  }
  if (name == "duration") {
    if (!path.empty()) throw InputError("", 0, "--throughputs", "the duration model reads no throughput file");
    return std::make_unique<DurationModel>(cluster);
  }
  if (path.empty()) throw InputError("", 0, "--throughputs", fmt::format("model '{}' needs its table file", name));
  auto model = load_throughput_model(path, cluster, spread_unconsolidated);
  if (model->name() != name)
    throw InputError(path, 0, "--model", fmt::format("file is a {} file, not a {} file", model->name(), name));
  return model;
}

}  // namespace hetsim
