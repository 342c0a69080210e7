#include "hetsim/experiment/spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <stdexcept>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/experiment/results.hpp"
#include "hetsim/experiment/run_keys.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/output_file.hpp"
#include "portable_paths.hpp"
#include "hetsim/util/exact_whole.hpp"

namespace hetsim {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr const char* kSpecKeys = "name, description, policies, policy_files, sweep, metrics";

struct Keys {
  std::vector<RunKey> list = run_keys();
  const RunKey* find(std::string_view name) const {
    for (const RunKey& k : list)
      if (k.name == name) return &k;
    return nullptr;
  }
  // True when `prefix.` starts some key (so a nested object under `prefix` can be flattened).
  bool is_group(std::string_view prefix) const {
    for (const RunKey& k : list)
      if (k.name.size() > prefix.size() && k.name.compare(0, prefix.size(), prefix) == 0 && k.name[prefix.size()] == '.')
        return true;
    return false;
  }
  std::string names() const {
    std::string out;
    for (const RunKey& k : list) out += (out.empty() ? "" : ", ") + k.name;
    return out + ", param.<name>, model_param.<name>";
  }
};

bool has_prefix(std::string_view key, std::string_view prefix) {
  return key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix;
}

// "param.<name>" and "model_param.<name>": free-form parameters checked when the run is built.
bool is_param_key(std::string_view key) { return has_prefix(key, kParamKeyPrefix) || has_prefix(key, kModelParamKeyPrefix); }

// The run key `key` names (nullptr for param.* and model_param.*); an unknown key is an error at `field`.
const RunKey* known_key(const Keys& keys, const std::string& key, const std::string& spec_path, const std::string& field) {
  if (is_param_key(key)) return nullptr;
  const RunKey* k = keys.find(key);
  if (!k) {
    const std::string hint = keys.is_group(key) ? fmt::format(" ('{}' is a group: give an object of its keys)", key) : "";
    throw InputError(spec_path, 0, field,
                     fmt::format("unknown key '{}'{} (known: {}, {})", key, hint, kSpecKeys, keys.names()));
  }
  return k;
}

// "Paths are relative to the spec file", said so that it is also true of settings without a file
// (hetsim.run()): a spec path without a folder resolves against the current one.
std::string paths_relative_note(const std::string& spec_path) {
  return fs::path(spec_path).parent_path().empty() ? "paths are relative to the current folder"
                                                   : "paths are relative to the spec file";
}

// JSON has one number type: 1e3 or 1000.0 in an integer key is the whole number it denotes; a
// whole number too large for an exact double is out of range, said as such.
Json whole_number_as_integer(const Json& value, const std::string& spec_path, const std::string& field) {
  if (!value.is_number_float()) return value;
  const double d = value.get<double>();
  if (!std::isfinite(d) || std::floor(d) != d) return value;
  if (std::fabs(d) > kExactWholeDoubleLimit)
    throw InputError(spec_path, 0, field, fmt::format("an integer out of range: {}", value.dump()));
  return Json(static_cast<std::int64_t>(d));
}

// Checks a value against its key's kind, resolves paths against the spec's folder, checks files
// exist, and tries the setter on a scratch RunSpec. Returns the value to store.
Json check_value(const Keys& keys, const std::string& key, const Json& given, const std::string& spec_path,
                 const std::string& field) {
  const RunKey* k = known_key(keys, key, spec_path, field);
  if (!k) {
    if (!given.is_string() && !given.is_number() && !given.is_boolean())
      throw InputError(spec_path, 0, field, "a parameter must be a string, number or boolean");
    return given;
  }
  const Json value = k->kind == RunKeyKind::Integer ? whole_number_as_integer(given, spec_path, field) : given;
  bool ok = false;
  switch (k->kind) {
    case RunKeyKind::Text:
    case RunKeyKind::Path:
    case RunKeyKind::Folder:
    case RunKeyKind::Cluster:
    case RunKeyKind::Table: ok = value.is_string(); break;
    case RunKeyKind::Number: ok = value.is_number(); break;
    case RunKeyKind::Integer: ok = value.is_number_integer(); break;
    case RunKeyKind::Boolean: ok = value.is_boolean(); break;
  }
  if (!ok) throw InputError(spec_path, 0, field, fmt::format("expected {}, got {}", describe(k->kind), value.dump()));
  Json stored = value;
  const fs::path base = fs::path(spec_path).parent_path();
  auto resolve = [&](const std::string& text) { return (base / text).lexically_normal().generic_string(); };
  const std::string text = value.is_string() ? value.get<std::string>() : std::string();
  if (k->kind == RunKeyKind::Path) {
    const std::string file = resolve(text);
    if (!fs::is_regular_file(file))
      throw InputError(spec_path, 0, field, fmt::format("file not found: {} ({})", file, paths_relative_note(spec_path)));
    stored = file;
  } else if (k->kind == RunKeyKind::Folder) {
    const std::string folder = resolve(text);
    if (!fs::is_directory(folder))
      throw InputError(spec_path, 0, field, fmt::format("folder not found: {} ({})", folder, paths_relative_note(spec_path)));
    stored = folder;
  } else if (k->kind == RunKeyKind::Cluster || k->kind == RunKeyKind::Table) {
    // The command line's own resolution decides what is accepted; only the path moves to the spec
    // file's folder (after an inventory prefix such as "alibaba-openb:").
    std::string arg = text;
    if (k->kind == RunKeyKind::Table) {
      arg = text.empty() ? text : resolve(text);
    } else if (!make_preset(text)) {
      const auto inventory = detect_node_inventory(text);
      const bool prefixed = inventory && inventory->second != text;
      arg = !prefixed ? resolve(text)
                      : text.substr(0, text.size() - inventory->second.size()) +
                            (inventory->second.empty() ? std::string() : resolve(inventory->second));
    }
    try {
      if (k->kind == RunKeyKind::Cluster)
        resolve_cluster(arg);  // a bad cluster file fails now, with the loader's file:line:field message
      else
        static_cast<void>(throughput_file_kind(arg));  // the reader itself runs when a point builds its model
    } catch (const InputError& e) {
      throw InputError(spec_path, 0, field,
                       fmt::format("'{}' ({}): {}", text, paths_relative_note(spec_path), e.what()));
    }
    stored = arg;
  }
  RunSpec scratch;
  try {
    k->set(scratch, stored);
  } catch (const std::exception& e) {
    throw InputError(spec_path, 0, field, e.what());
  }
  // The value's own range (a negative interval, a NaN-free duration, a share in (0, 1]): on an
  // otherwise default run, a problem with this key can only come from this value. Combinations of
  // keys are checked per point by expand_points.
  if (auto problem = find_run_spec_problem(scratch); problem && !problem->combination && problem->key == key)
    throw InputError(spec_path, 0, field, problem->message);
  return stored;
}

// Flattens {"generator": {"jobs": 5}} into ("generator.jobs", 5); other values pass through.
void flatten(const Keys& keys, const std::string& key, const Json& value, const std::string& spec_path,
             std::vector<std::pair<std::string, Json>>& out) {
  if (value.is_object() && keys.is_group(key)) {
    for (const auto& [k, v] : value.items()) flatten(keys, key + "." + k, v, spec_path, out);
    return;
  }
  out.emplace_back(key, check_value(keys, key, value, spec_path, key));
}

std::string param_text(const Json& v) { return value_text(v); }

// Policy entries: "name" or {"name", "label", "params"}; a parameter given as an array expands
// into one variant per value (cross product over such parameters, in file order).
std::vector<PolicyVariant> parse_policies(const Json& list, const std::string& spec_path, const PolicyRegistry& registry) {
  if (!list.is_array() || list.empty())
    throw InputError(spec_path, 0, "policies", "expected a non-empty array of policy names or {\"name\", \"label\", \"params\"} objects");
  std::vector<PolicyVariant> variants;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& entry = list[i];
    const std::string field = fmt::format("policies[{}]", i);
    std::string name, label;
    std::vector<std::pair<std::string, std::vector<Json>>> params;
    if (entry.is_string()) {
      name = entry.get<std::string>();
    } else if (entry.is_object()) {
      for (const auto& [k, v] : entry.items()) {
        if (k == "name" && v.is_string()) name = v.get<std::string>();
        else if (k == "label" && v.is_string()) label = v.get<std::string>();
        else if (k == "params" && v.is_object()) {
          for (const auto& [pk, pv] : v.items()) {
            std::vector<Json> values = pv.is_array() ? std::vector<Json>(pv.begin(), pv.end()) : std::vector<Json>{pv};
            if (values.empty()) throw InputError(spec_path, 0, field + ".params." + pk, "empty list of values");
            for (const Json& x : values)
              if (!x.is_string() && !x.is_number() && !x.is_boolean())
                throw InputError(spec_path, 0, field + ".params." + pk, "a parameter value must be a string, number or boolean");
            params.emplace_back(pk, std::move(values));
          }
        } else {
          throw InputError(spec_path, 0, field + "." + k,
                           "unknown key or wrong type (a policy entry has \"name\" (string), \"label\" (string), \"params\" (object))");
        }
      }
    } else {
      throw InputError(spec_path, 0, field, "expected a policy name or an object");
    }
    if (name.empty()) throw InputError(spec_path, 0, field + ".name", "missing policy name");
    if (!registry.find(name))
      throw InputError(spec_path, 0, field + ".name",
                       fmt::format("unknown policy '{}' (known: {})", name, registry.joined_names()));
    // Cross product of the parameter values.
    std::vector<std::size_t> at(params.size(), 0);
    while (true) {
      PolicyVariant v{label.empty() ? name : label, name, {}};
      std::string varying;
      for (std::size_t p = 0; p < params.size(); ++p) {
        v.params[params[p].first] = param_text(params[p].second[at[p]]);
        if (params[p].second.size() > 1)
          varying += fmt::format("{}{}={}", varying.empty() ? "" : ",", params[p].first, param_text(params[p].second[at[p]]));
      }
      if (!varying.empty()) v.label += "(" + varying + ")";
      try {
        RunSpec probe;
        probe.policy = v.name;
        probe.params = v.params;
        check_run_policy(probe, registry);
      } catch (const InputError& e) {
        throw InputError(spec_path, 0, field + ".params", e.what());
      }
      variants.push_back(std::move(v));
      std::size_t p = 0;
      while (p < params.size() && ++at[p] == params[p].second.size()) at[p++] = 0;
      if (p == params.size()) break;
    }
  }
  std::set<std::string> labels;
  for (const PolicyVariant& v : variants)
    if (!labels.insert(v.label).second)
      throw InputError(spec_path, 0, "policies",
                       fmt::format("policy label '{}' appears twice: give entries distinct \"label\"s", v.label));
  return variants;
}

void apply(const Keys& keys, RunSpec& run, const std::string& key, const Json& value) {
  if (has_prefix(key, kParamKeyPrefix)) {
    run.params[key.substr(kParamKeyPrefix.size())] = value_text(value);
    return;
  }
  if (has_prefix(key, kModelParamKeyPrefix)) {
    run.model_params[key.substr(kModelParamKeyPrefix.size())] = value_text(value);
    return;
  }
  keys.find(key)->set(run, value);
}

// A value as the outputs show it: path kinds relative to the spec file's folder (portable).
Json portable_value(const Keys& keys, const std::string& key, const Json& value, const std::string& spec_path) {
  const RunKey* k = is_param_key(key) ? nullptr : keys.find(key);
  if (!k || !portable::is_path_kind(k->kind) || !value.is_string()) return value;
  return portable::spec_relative(value.get<std::string>(), spec_path);
}

std::vector<std::string> axis_labels(const Keys& keys, const SweepAxis& axis, const std::string& spec_path) {
  std::vector<std::string> texts;
  for (const Json& v : axis.values) texts.push_back(value_text(portable_value(keys, axis.key, v, spec_path)));
  const RunKey* k = is_param_key(axis.key) ? nullptr : keys.find(axis.key);
  return k && portable::is_path_kind(k->kind) ? portable::axis_labels(texts) : texts;
}

}  // namespace

std::string value_text(const nlohmann::ordered_json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::vector<std::string> spec_policy_files(const nlohmann::ordered_json& doc, const std::string& path) {
  std::vector<std::string> files;
  if (!doc.is_object() || !doc.contains("policy_files")) return files;
  const Json& list = doc["policy_files"];
  if (!list.is_array()) throw InputError(path, 0, "policy_files", "expected an array of Python files (FILE or FILE:ClassName)");
  const fs::path base = fs::path(path).parent_path();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = fmt::format("policy_files[{}]", i);
    if (!list[i].is_string()) throw InputError(path, 0, field, "expected a string: FILE or FILE:ClassName");
    const std::string text = list[i].get<std::string>();
    // "FILE:ClassName": the class part follows the last ':' after the ".py".
    const std::size_t py = text.rfind(".py");
    const std::size_t colon = py == std::string::npos ? std::string::npos : text.find(':', py);
    const std::string file = (base / text.substr(0, colon)).lexically_normal().generic_string();
    if (!fs::is_regular_file(file))
      throw InputError(path, 0, field, fmt::format("file not found: {} ({})", file, paths_relative_note(path)));
    files.push_back(colon == std::string::npos ? file : file + text.substr(colon));
  }
  return files;
}

ExperimentSpec load_experiment_spec(const std::string& path, const PolicyRegistry& registry) {
  return parse_experiment_spec(read_json_file(path), path, registry);
}

ExperimentSpec load_experiment_spec(const std::string& path, std::string_view text, const PolicyRegistry& registry) {
  return parse_experiment_spec(read_json_text(path, text), path, registry);
}

ExperimentSpec parse_experiment_spec(const nlohmann::ordered_json& doc, const std::string& path,
                                     const PolicyRegistry& registry) {
  if (!doc.is_object()) throw InputError(path, 0, "", "an experiment spec must be a JSON object");
  const Keys keys;
  ExperimentSpec spec;
  spec.path = path;
  spec.name = fs::path(path).stem().string();
  bool have_policies = false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "name" || key == "description") {
      if (!value.is_string()) throw InputError(path, 0, key, "expected a string");
      (key == "name" ? spec.name : spec.description) = value.get<std::string>();
      // The name is the default output folder out/<name>: it must stay one folder inside out/.
      if (key == "name" && (spec.name.empty() || spec.name == "." || spec.name == ".." ||
                            spec.name.find_first_of("/\\") != std::string::npos))
        throw InputError(path, 0, "name", fmt::format("'{}' is not usable as a folder name (the default output folder "
                                                      "is out/<name>): give a non-empty name without '/' or '\\'",
                                                      spec.name));
    } else if (key == "policies") {
      spec.policies = parse_policies(value, path, registry);
      have_policies = true;
    } else if (key == "sweep") {
      if (!value.is_object()) throw InputError(path, 0, "sweep", "expected an object of key: [values]");
      for (const auto& [axis, values] : value.items()) {
        const std::string field = "sweep." + axis;
        if (axis == "policy") throw InputError(path, 0, field, "list policies under \"policies\", not as a sweep axis");
        static_cast<void>(known_key(keys, axis, path, field));  // named as the axis, before its values
        if (!values.is_array() || values.empty()) throw InputError(path, 0, field, "expected a non-empty array of values");
        SweepAxis a{axis, {}, {}};
        std::set<std::string> seen;
        for (std::size_t i = 0; i < values.size(); ++i) {
          a.values.push_back(check_value(keys, axis, values[i], path, fmt::format("{}[{}]", field, i)));
          if (!seen.insert(value_text(a.values.back())).second)
            throw InputError(path, 0, fmt::format("{}[{}]", field, i), "value repeated on this axis");
        }
        a.labels = axis_labels(keys, a, path);
        spec.axes.push_back(std::move(a));
      }
    } else if (key == "policy_files") {
      spec_policy_files(doc, path);  // checked here; loaded by the caller before parsing (Python)
    } else if (key == "metrics") {
      if (!value.is_array()) throw InputError(path, 0, "metrics", "expected an array of metric names");
      for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string field = fmt::format("metrics[{}]", i);
        if (!value[i].is_string()) throw InputError(path, 0, field, "expected a metric name");
        const std::string m = value[i].get<std::string>();
        if (!is_known_metric(m))
          throw InputError(path, 0, field, fmt::format("unknown metric '{}' (known: {})", m, known_metric_names()));
        spec.metrics.push_back(m);
      }
    } else {
      flatten(keys, key, value, path, spec.settings);
    }
  }
  if (!have_policies) throw InputError(path, 0, "policies", "missing: list at least one policy");
  for (const auto& [key, v] : spec.settings) {
    if (key == "policy") throw InputError(path, 0, key, "list policies under \"policies\"");
    for (const SweepAxis& a : spec.axes)
      if (a.key == key) throw InputError(path, 0, "sweep." + key, "this key also has a fixed value; give it one or the other");
  }
  for (const PolicyVariant& p : spec.policies)
    for (const auto& [pk, pv] : p.params) {
      const std::string key = std::string(kParamKeyPrefix) + pk;
      for (const auto& [k, v] : spec.settings)
        if (k == key) throw InputError(path, 0, key, fmt::format("also set in the params of policy '{}'", p.label));
      for (const SweepAxis& a : spec.axes)
        if (a.key == key) throw InputError(path, 0, "sweep." + key, fmt::format("also set in the params of policy '{}'", p.label));
    }
  return spec;
}

std::vector<ExperimentPoint> expand_points(const ExperimentSpec& spec, const PolicyRegistry& registry) {
  const Keys keys;
  RunSpec base;
  for (const auto& [key, value] : spec.settings) apply(keys, base, key, value);
  // As on the command line, Pollux/Sia workloads default to the Pollux simulator's restart cost.
  bool restart_given = false;
  for (const auto& [key, value] : spec.settings) restart_given = restart_given || key == "restart_overhead_s";
  for (const SweepAxis& a : spec.axes) restart_given = restart_given || a.key == "restart_overhead_s";
  std::vector<ExperimentPoint> points;
  std::set<std::pair<std::string, std::string>> generator_tables_checked;
  std::vector<std::size_t> at(spec.axes.size(), 0);
  while (true) {
    for (const PolicyVariant& policy : spec.policies) {
      ExperimentPoint p;
      p.index = points.size();
      p.policy = policy.label;
      p.run = base;
      p.run.policy = policy.name;
      for (const auto& [k, v] : policy.params) p.run.params[k] = v;
      Json fingerprint;
      fingerprint["policy"] = policy.label;
      fingerprint["policy_name"] = policy.name;
      Json settings = Json::object();
      for (const auto& [key, value] : spec.settings) settings[key] = portable_value(keys, key, value, spec.path);
      std::string id = policy.label;
      for (std::size_t a = 0; a < spec.axes.size(); ++a) {
        const Json& value = spec.axes[a].values[at[a]];
        apply(keys, p.run, spec.axes[a].key, value);
        const std::string& label = spec.axes[a].labels[at[a]];
        p.axis_values.emplace_back(spec.axes[a].key, label);
        settings[spec.axes[a].key] = portable_value(keys, spec.axes[a].key, value, spec.path);
        id += "__" + spec.axes[a].key + "=" + label;
      }
      if (!p.run.workload.empty() && !restart_given) p.run.mechanism.restart_overhead_s = kPolluxRestartOverheadS;
      fingerprint["settings"] = std::move(settings);
      fingerprint["params"] = Json(std::map<std::string, std::string>(p.run.params.begin(), p.run.params.end()));
      p.fingerprint = fingerprint.dump(1);
      p.id = safe_folder_name(id);
      if (p.id.size() > 150) p.id = fmt::format("{}__p{}", p.id.substr(0, 140), p.index);
      // Checks that need the whole point: the policy with every parameter, and the generator.
      const std::string where = fmt::format("point {}", p.id);
      // Every value and combination of the point (the same rules as the command line), so a bad
      // spec fails before the first run, naming the spec key (or its sweep axis).
      if (auto problem = find_run_spec_problem(p.run)) {
        const bool axis = std::any_of(spec.axes.begin(), spec.axes.end(),
                                      [&](const SweepAxis& a) { return a.key == problem->key; });
        throw InputError(spec.path, 0, axis ? "sweep." + problem->key : problem->key,
                         fmt::format("{}: {}", where, problem->message));
      }
      try {
        check_run_spec(p.run, registry);
      } catch (const InputError& e) {
        throw InputError(spec.path, 0, "policies/param", fmt::format("{}: {}", where, e.what()));
      }
      if (p.run.generator) {
        const GavelWorkloadConfig& g = *p.run.generator;
        if (generator_tables_checked.emplace(p.run.throughputs, g.reference_gpu).second)
          read_generator_job_types(p.run.throughputs, g.reference_gpu);
      }
      points.push_back(std::move(p));
    }
    // Odometer: the last axis turns fastest, so the first axis is the outermost loop.
    std::size_t a = spec.axes.size();
    while (a > 0 && ++at[a - 1] == spec.axes[a - 1].values.size()) at[--a] = 0;
    if (a == 0) break;
  }
  std::set<std::string> ids;
  for (ExperimentPoint& p : points)
    if (!ids.insert(p.id).second) {
      p.id = fmt::format("{}__p{}", p.id, p.index);
      ids.insert(p.id);
    }
  return points;
}

void check_point_inputs(const ExperimentSpec& spec, const std::vector<ExperimentPoint>& points) {
  std::set<std::string> checked;
  for (const ExperimentPoint& p : points) {
    const RunSpec& r = p.run;
    // What the inputs of a run depend on; the seed only for the built-in and generated workloads.
    const bool seeded = r.trace.empty() && r.workload.empty();
    std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", r.cluster, r.cluster_scale, r.trace,
                                  static_cast<int>(r.format), r.trace_options.heet_round_s, r.throughputs, r.model,
                                  r.workload, fmt::join(r.profiles, ","), r.step_model, seeded ? r.seed : 0);
    for (const auto& [k, v] : r.model_params) key += "|" + k + "=" + v;
    if (r.generator)
      key += fmt::format("|{}|{}|{}|{}", r.generator->jobs, r.generator->jobs_per_hour, r.generator->multi_gpu,
                         r.generator->reference_gpu);
    key += fmt::format("|{}|{}|{}", r.mechanism.interval_s, r.mechanism.restart_overhead_s, r.profiling);
    if (!checked.insert(key).second) continue;
    try {
      check_run_inputs(r);
    } catch (const InputError& e) {
      throw InputError(spec.path, 0, "", fmt::format("point {}: {}", p.id, e.what()));
    }
  }
}

}  // namespace hetsim
