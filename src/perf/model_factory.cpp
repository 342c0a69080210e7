#include "hetsim/perf/model_factory.hpp"

#include <algorithm>
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
      throw std::logic_error("undeclared analytic parameter read: " + key);  // check_params ran first
    }
  }
  if (params.count("levels") && c.comm.algorithm != CommAlgorithm::Hybrid)
    throw InputError("", 0, "--model-param levels", "only used with comm=hybrid");
  return c;
}

// The three table models share one loader, which recognises the file; the name must match it.
// `file`: the path already recognised by make_auto_model (null: recognised here).
std::unique_ptr<ThroughputModel> make_table_model(const std::string& name, const std::string& path,
                                                  const ModelParams& params, const Cluster& cluster,
                                                  const ThroughputFile* file = nullptr) {
  bool spread_unconsolidated = true;  // gavel-table's one parameter (declared in the registry)
  if (auto it = params.find("spread"); it != params.end()) {
    if (it->second != "unconsolidated" && it->second != "consolidated")
      throw InputError("", 0, "--model-param spread",
                       fmt::format("'{}' is neither unconsolidated nor consolidated", it->second));
    spread_unconsolidated = it->second == "unconsolidated";
  }
  if (path.empty()) throw InputError("", 0, "--throughputs", fmt::format("model '{}' needs its table file", name));
  auto model = file ? load_throughput_model(*file, path, cluster, spread_unconsolidated)
                    : load_throughput_model(path, cluster, spread_unconsolidated);
  if (model->name() != name)
    throw InputError(path, 0, "--model", fmt::format("file is a {} file, not a {} file", model->name(), name));
  return model;
}

std::unique_ptr<ThroughputModel> make_auto_model(const std::string& path, const ModelParams& params,
                                                 const Cluster& cluster) {
  // Resolved first, so parameter errors name the model that actually runs.
  if (path.empty()) {
    if (!params.empty())
      throw InputError("", 0, "--model-param " + params.begin()->first,
                       "without --throughputs the model is 'duration', which takes no parameters");
    return std::make_unique<DurationModel>(cluster);
  }
  const ThroughputFile file = read_throughput_file(path);
  if (file.kind == "job-types") return make_throughput_model("analytic", path, params, cluster);
  // What make_throughput_model(file.kind) does, handing the loader the document parsed above.
  const ModelRegistry registry = make_default_model_registry();
  const ModelInfo* info = registry.find(file.kind);
  if (!info) throw std::logic_error("make_auto_model: no model for the file kind " + file.kind);
  check_params(fmt::format("model '{}'", file.kind), info->params, params, "--model-param");
  return make_table_model(file.kind, path, params, cluster, &file);
}

std::unique_ptr<ThroughputModel> make_analytic_model(const std::string& path, const ModelParams& params,
                                                     const Cluster& cluster) {
  if (path.empty())
    throw InputError("", 0, "--throughputs",
                     "the analytic model needs a Gavel throughput table or a job-types JSON for compute times");
  const AnalyticConfig config = analytic_config(params);
  auto profile = throughput_file_kind(path) == "job-types" ? load_job_types_profile(path, cluster)
                                                           : load_gavel_compute_profile(path, cluster);
  return std::make_unique<AnalyticModel>(cluster, std::move(profile), config);
}

ModelInfo table_model(std::string name, std::string summary, std::string source, std::vector<ParamInfo> params = {}) {
  ModelInfo info{name, std::move(summary), std::move(source), std::move(params), nullptr};
  info.make = [name](const std::string& path, const ModelParams& p, const Cluster& c) {
    return make_table_model(name, path, p, c);
  };
  return info;
}

}  // namespace

ModelRegistry make_default_model_registry() {
  constexpr double kMaxShards = 1'000'000;
  ModelRegistry r("throughput model");
  r.add({"auto", "by the --throughputs file (a job-types JSON selects analytic); duration without one", "hetsim", {},
         make_auto_model, true});
  r.add(table_model("gavel-table", "measured steps/s per job type, GPU type and scale factor (Gavel JSON)",
                    "Gavel (Narayanan et al., OSDI 2020) throughputs",
                    {{"spread", "unconsolidated",
                      "unconsolidated|consolidated: rates of spread jobs (consolidated = Gavel's simulator)"}}));
  r.add(table_model("heet-profile", "epoch times per model and GPU type (Heet profiles.json)", "Heet prototype"));
  r.add(table_model("elasticflow-table", "iterations/s per model, GPU count and batch (throughputs_<GPU>/ folders)",
                    "ElasticFlow (Gu et al., ASPLOS 2023) profiles"));
  r.add({"duration", "a job's work is its duration in reference seconds on any GPU (no --throughputs)", "hetsim", {},
         [](const std::string& path, const ModelParams&, const Cluster& cluster) -> std::unique_ptr<ThroughputModel> {
           if (!path.empty()) throw InputError("", 0, "--throughputs", "the duration model reads no throughput file");
           return std::make_unique<DurationModel>(cluster);
         }});
  r.add({"analytic",
         "compute time (Gavel table at scale factor 1 or job-types JSON) plus communication over the topology",
         "hetsim (docs/models.md): ring / hierarchical all-reduce, parameter server",
         {{"comm", "auto", "ring|hierarchical|ps|hybrid|auto: synchronisation scheme"},
          {"levels", "ar,ar,ar", "with comm=hybrid: ar or ps for node,rack,cluster"},
          {"ps_shards", "1", "parameter-server shards, a whole number", NumericRange{1, kMaxShards}},
          {"overlap", "0.5", "fraction of min(compute, comm) hidden by overlap", NumericRange{0, 1}},
          {"rebalance", "false", "true|false: split the global batch in proportion to worker speed"}},
         make_analytic_model});
  return r;
}

std::vector<std::string> throughput_model_names() { return make_default_model_registry().names(); }

std::optional<ParamProblem> find_model_param_problem(const std::string& model, const ModelParams& params) {
  const ModelRegistry registry = make_default_model_registry();
  const ModelInfo* info = registry.find(model);
  if (!info) return std::nullopt;
  if (!info->resolves_by_file) return find_param_problem(fmt::format("model '{}'", model), info->params, params);
  // 'auto' picks its model from the table file; a key no model declares is wrong whatever it picks
  // (the picked model checks the rest when it is built).
  std::vector<ParamInfo> any;
  for (const ModelInfo& m : registry.all())
    for (const ParamInfo& p : m.params)
      if (std::none_of(any.begin(), any.end(), [&](const ParamInfo& q) { return q.name == p.name; })) any.push_back(p);
  return find_param_problem(fmt::format("model '{}' (whichever model it picks)", model), any, params);
}

std::unique_ptr<ThroughputModel> make_throughput_model(const std::string& name, const std::string& path,
                                                       const ModelParams& params, const Cluster& cluster) {
  const ModelRegistry registry = make_default_model_registry();
  const ModelInfo* info = registry.find(name);
  if (!info)
    throw InputError("", 0, "--model",
                     fmt::format("unknown throughput model '{}' (known: {})", name, registry.joined_names()));
  if (!info->resolves_by_file) check_params(fmt::format("model '{}'", name), info->params, params, "--model-param");
  return info->make(path, params, cluster);
}

}  // namespace hetsim
