#include "hetsim/cluster/cluster_spec.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <initializer_list>
#include <map>
#include <string_view>

#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

using nlohmann::json;

// Upper bound on "count" and "gpus": far above any real cluster, low enough that a typo cannot
// make the simulator allocate gigabytes of per-GPU state.
constexpr long long kMaxCount = 100'000;

std::string child(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key);
}

std::string element(std::string_view array, std::size_t i) { return fmt::format("{}[{}]", array, i); }

// A misspelt optional key would otherwise be silently ignored and its default used instead.
void reject_unknown_keys(const json& obj, std::initializer_list<std::string_view> allowed, const std::string& prefix,
                         const std::string& source) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw InputError(source, 0, child(prefix, key), fmt::format("unknown key; expected one of: {}", fmt::join(allowed, ", ")));
  }
}

const json& require_object(const json& v, const std::string& field, const std::string& source) {
  if (!v.is_object()) throw InputError(source, 0, field, fmt::format("expected an object, got {}", v.type_name()));
  return v;
}

const json& require_array(const json& v, const std::string& field, const std::string& source) {
  if (!v.is_array()) throw InputError(source, 0, field, fmt::format("expected an array, got {}", v.type_name()));
  return v;
}

std::string as_name(const json& v, const std::string& field, const std::string& source) {
  if (!v.is_string()) throw InputError(source, 0, field, fmt::format("expected a string, got {}", v.type_name()));
  std::string s = v.get<std::string>();
  if (trim(s).empty()) throw InputError(source, 0, field, "must not be empty");
  return s;
}

double as_number(const json& v, const std::string& field, const std::string& source) {
  if (!v.is_number()) throw InputError(source, 0, field, fmt::format("expected a number, got {}", v.type_name()));
  return v.get<double>();
}

// Counts must be whole; 4.0 is accepted because JSON writers in other languages emit it.
int as_count(const json& v, const std::string& field, const std::string& source) {
  if (!v.is_number()) throw InputError(source, 0, field, fmt::format("expected a whole number, got {}", v.type_name()));
  const double d = v.get<double>();
  if (std::floor(d) != d) throw InputError(source, 0, field, fmt::format("expected a whole number, got {}", v.dump()));
  if (d < 1 || d > static_cast<double>(kMaxCount))
    throw InputError(source, 0, field, fmt::format("must be between 1 and {}, got {}", kMaxCount, v.dump()));
  return static_cast<int>(d);
}

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// Plausible ranges, far wider than any hardware: a value outside them is a typo (a denormal speed, a
// latency of 1e300 us) that would otherwise surface only as every job "needing inf s" at admission.
constexpr double kMinBandwidth = 1e-6, kMaxBandwidth = 1e9;  // Gbit/s or GB/s
constexpr double kMaxLatencyUs = 1e9;                        // 1,000 s
constexpr double kMinRatio = 1e-6, kMaxRatio = 1e6;          // relative speed, oversubscription

// Bandwidths must be positive: a zero would make every transfer take forever.
double as_bandwidth(const json& v, const std::string& field, const std::string& source, const char* unit) {
  const double d = as_number(v, field, source);
  if (!(d >= kMinBandwidth && d <= kMaxBandwidth))
    throw InputError(source, 0, field,
                     fmt::format("bandwidth must be a number of {} in [{:g}, {:g}], got {}", unit, kMinBandwidth,
                                 kMaxBandwidth, v.dump()));
  return d;
}

double as_latency(const json& v, const std::string& field, const std::string& source) {
  const double d = as_number(v, field, source);
  if (!(d >= 0.0 && d <= kMaxLatencyUs))
    throw InputError(source, 0, field,
                     fmt::format("latency must be a number of microseconds in [0, {:g}], got {}", kMaxLatencyUs, v.dump()));
  return d;
}

double as_ratio(const json& v, const std::string& field, const std::string& source) {
  const double d = as_number(v, field, source);
  if (!(d >= kMinRatio && d <= kMaxRatio))
    throw InputError(source, 0, field, fmt::format("must be a ratio in [{:g}, {:g}], got {}", kMinRatio, kMaxRatio, v.dump()));
  return d;
}

// "interconnect": "nvlink" or {"kind": "nvlink", "gbytes_per_s": 150, "latency_us": 2}. Bandwidth
// and latency default per kind.
void read_interconnect(const json& v, const std::string& at, const std::string& source, Node& node) {
  const json* kind_json = &v;
  if (v.is_object()) {
    reject_unknown_keys(v, {"kind", "gbytes_per_s", "latency_us"}, at, source);
    kind_json = find(v, "kind");
    if (!kind_json) throw InputError(source, 0, child(at, "kind"), "missing; one of nvswitch, nvlink, pcie");
  } else if (!v.is_string()) {
    throw InputError(source, 0, at, fmt::format("expected a kind string or an object, got {}", v.type_name()));
  }
  const std::string kind_field = v.is_object() ? child(at, "kind") : at;
  const std::string kind_name = as_name(*kind_json, kind_field, source);
  const auto kind = parse_interconnect_kind(kind_name);
  if (!kind)
    throw InputError(source, 0, kind_field, fmt::format("unknown interconnect kind '{}'; expected nvswitch, nvlink or pcie", kind_name));
  node.interconnect = *kind;
  node.interconnect_gbytes_per_s = default_interconnect_gbytes_per_s(*kind);
  node.interconnect_latency_us = default_interconnect_latency_us(*kind);
  if (v.is_object()) {
    if (const json* b = find(v, "gbytes_per_s")) node.interconnect_gbytes_per_s = as_bandwidth(*b, child(at, "gbytes_per_s"), source, "GB/s");
    if (const json* l = find(v, "latency_us")) node.interconnect_latency_us = as_latency(*l, child(at, "latency_us"), source);
  }
}

}  // namespace

Cluster cluster_from_json(const json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "", fmt::format("a cluster spec must be a JSON object, got {}", j.type_name()));
  reject_unknown_keys(j, {"name", "gpu_types", "racks", "nodes"}, "", source);

  std::string name = std::filesystem::path(source).stem().string();
  if (const json* v = find(j, "name")) name = as_name(*v, "name", source);
  if (name.empty()) name = "cluster";

  // GPU types. Names are matched case-insensitively, as the Cluster stores them lower-case.
  const json* types_json = find(j, "gpu_types");
  if (!types_json) throw InputError(source, 0, "gpu_types", "missing; list the GPU types the nodes use");
  std::vector<GpuType> types;
  std::map<std::string, GpuTypeId> type_ids;
  for (std::size_t i = 0; i < require_array(*types_json, "gpu_types", source).size(); ++i) {
    const std::string at = element("gpu_types", i);
    const json& t = require_object((*types_json)[i], at, source);
    reject_unknown_keys(t, {"name", "memory_gb", "relative_speed"}, at, source);
    GpuType type;
    const json* n = find(t, "name");
    if (!n) throw InputError(source, 0, child(at, "name"), "missing");
    type.name = as_name(*n, child(at, "name"), source);
    if (const json* m = find(t, "memory_gb")) {
      type.memory_gb = as_number(*m, child(at, "memory_gb"), source);
      if (!(type.memory_gb >= 0.0 && type.memory_gb <= 1e6))
        throw InputError(source, 0, child(at, "memory_gb"), fmt::format("must be a number of GB in [0, 1e+06], got {}", m->dump()));
    }
    if (const json* s = find(t, "relative_speed")) {
      type.relative_speed = as_ratio(*s, child(at, "relative_speed"), source);
    }
    if (!type_ids.emplace(to_lower(type.name), static_cast<GpuTypeId>(i)).second)
      throw InputError(source, 0, child(at, "name"), fmt::format("duplicate GPU type '{}'", type.name));
    types.push_back(std::move(type));
  }
  if (types.empty()) throw InputError(source, 0, "gpu_types", "must list at least one GPU type");

  // Racks: optional, because most specs only need one.
  std::vector<Rack> racks;
  std::map<std::string, RackId> rack_ids;
  if (const json* racks_json = find(j, "racks")) {
    for (std::size_t i = 0; i < require_array(*racks_json, "racks", source).size(); ++i) {
      const std::string at = element("racks", i);
      const json& r = require_object((*racks_json)[i], at, source);
      reject_unknown_keys(r, {"name", "uplink_gbps", "oversubscription", "uplink_latency_us"}, at, source);
      const json* n = find(r, "name");
      if (!n) throw InputError(source, 0, child(at, "name"), "missing");
      Rack rack{as_name(*n, child(at, "name"), source)};
      const json* up = find(r, "uplink_gbps");
      const json* over = find(r, "oversubscription");
      if (up && over)
        throw InputError(source, 0, child(at, "oversubscription"), "give either uplink_gbps or oversubscription, not both");
      if (up) rack.uplink_gbps = as_bandwidth(*up, child(at, "uplink_gbps"), source, "Gbit/s");
      if (over) {
        rack.oversubscription = as_ratio(*over, child(at, "oversubscription"), source);
      }
      if (const json* l = find(r, "uplink_latency_us")) rack.uplink_latency_us = as_latency(*l, child(at, "uplink_latency_us"), source);
      if (!rack_ids.emplace(rack.name, static_cast<RackId>(i)).second)
        throw InputError(source, 0, child(at, "name"), fmt::format("duplicate rack '{}'", rack.name));
      racks.push_back(std::move(rack));
    }
    if (racks.empty())
      throw InputError(source, 0, "racks", "must list at least one rack (or be left out for a single rack \"rack0\")");
  } else {
    racks.push_back(Rack{"rack0"});
    rack_ids.emplace("rack0", 0);
  }

  // Nodes, expanded by "count". Names are checked here rather than by Cluster so that the error
  // points at the spec entry, not at the expanded node index.
  const json* nodes_json = find(j, "nodes");
  if (!nodes_json) throw InputError(source, 0, "nodes", "missing; list the nodes of the cluster");
  std::vector<Node> nodes;
  std::map<std::string, std::string> name_origin;  // node name -> spec entry that produced it
  std::vector<int> unnamed_per_type(types.size(), 0);
  for (std::size_t i = 0; i < require_array(*nodes_json, "nodes", source).size(); ++i) {
    const std::string at = element("nodes", i);
    const json& n = require_object((*nodes_json)[i], at, source);
    reject_unknown_keys(n, {"name", "gpu_type", "gpus", "rack", "count", "interconnect", "nic_gbps", "nic_latency_us"}, at,
                        source);
    Node net;  // network settings shared by every node of this entry
    if (const json* ic = find(n, "interconnect")) read_interconnect(*ic, child(at, "interconnect"), source, net);
    if (const json* nic = find(n, "nic_gbps")) net.nic_gbps = as_bandwidth(*nic, child(at, "nic_gbps"), source, "Gbit/s");
    if (const json* l = find(n, "nic_latency_us")) net.nic_latency_us = as_latency(*l, child(at, "nic_latency_us"), source);

    const json* type_json = find(n, "gpu_type");
    if (!type_json) throw InputError(source, 0, child(at, "gpu_type"), "missing");
    const std::string type_name = as_name(*type_json, child(at, "gpu_type"), source);
    auto type_it = type_ids.find(to_lower(type_name));
    if (type_it == type_ids.end()) {
      std::vector<std::string> declared;
      for (const auto& t : types) declared.push_back(to_lower(t.name));
      throw InputError(source, 0, child(at, "gpu_type"),
                       fmt::format("unknown GPU type '{}'; gpu_types declares: {}", type_name, fmt::join(declared, ", ")));
    }
    const GpuTypeId type = type_it->second;

    const json* gpus_json = find(n, "gpus");
    if (!gpus_json) throw InputError(source, 0, child(at, "gpus"), "missing");
    const int gpus = as_count(*gpus_json, child(at, "gpus"), source);

    RackId rack = 0;
    if (const json* r = find(n, "rack")) {
      const std::string rack_name = as_name(*r, child(at, "rack"), source);
      auto rack_it = rack_ids.find(rack_name);
      if (rack_it == rack_ids.end())
        throw InputError(source, 0, child(at, "rack"), fmt::format("unknown rack '{}'", rack_name));
      rack = rack_it->second;
    } else if (racks.size() > 1) {
      throw InputError(source, 0, child(at, "rack"), "missing; required when the cluster has more than one rack");
    }

    const int count = find(n, "count") ? as_count(n["count"], child(at, "count"), source) : 1;
    std::optional<std::string> base;
    if (const json* nm = find(n, "name")) base = as_name(*nm, child(at, "name"), source);

    for (int k = 0; k < count; ++k) {
      std::string node_name;
      if (!base)
        node_name = fmt::format("{}-{}", types[static_cast<std::size_t>(type)].name,
                                unnamed_per_type[static_cast<std::size_t>(type)]++);
      else
        node_name = count > 1 ? fmt::format("{}-{}", *base, k) : *base;
      if (auto [it, fresh] = name_origin.emplace(node_name, at); !fresh)
        throw InputError(source, 0, child(at, "name"),
                         fmt::format("node name '{}' is already used by {}", node_name, it->second));
      Node node = net;
      node.name = std::move(node_name);
      node.gpu_type = type;
      node.gpu_count = gpus;
      node.rack = rack;
      nodes.push_back(std::move(node));
    }
  }
  return Cluster(std::move(name), std::move(types), std::move(racks), std::move(nodes), source);
}

Cluster load_cluster_spec(const std::string& path) { return cluster_from_json(parse_json_file(path), path); }

Cluster load_cluster_spec(const std::string& name, std::string_view text) {
  return cluster_from_json(parse_json_text(name, text), name);
}

Cluster resolve_cluster(const std::string& preset_or_file, std::vector<std::string>* notes) {
  if (auto preset = make_preset(preset_or_file)) return std::move(*preset);
  if (auto inventory = detect_node_inventory(preset_or_file)) {
    if (inventory->second.empty())
      throw InputError("", 0, "--cluster",
                       fmt::format("'{}' names no inventory file: the path after the colon is empty", preset_or_file));
    ImportedCluster imported = import_node_inventory(inventory->first, inventory->second);
    if (notes) notes->insert(notes->end(), imported.notes.begin(), imported.notes.end());
    return std::move(imported.cluster);
  }
  std::error_code ec;
  if (!preset_or_file.empty() && std::filesystem::exists(preset_or_file, ec)) return load_cluster_spec(preset_or_file);
  std::vector<std::string> names;
  for (const auto& [name, description] : list_presets()) names.push_back(name);
  throw InputError(preset_or_file, 0, "cluster",
                   fmt::format("neither a cluster preset ({}) nor an existing cluster spec file or node inventory "
                               "(alibaba-openb:, alibaba-pai:, alibaba-spot:)",
                               fmt::join(names, ", ")));
}

}  // namespace hetsim
