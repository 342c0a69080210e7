#pragma once
/// Building a Cluster from a JSON cluster spec (format in docs/cluster-format.md) or from a named
/// preset. The spec loader is strict: unknown keys and wrong types are errors naming the key path.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster.hpp"

namespace hetsim {

/// Reads a JSON cluster spec file. Throws InputError naming the file (missing file, invalid JSON
/// with its line, or a bad field as in cluster_from_json()).
Cluster load_cluster_spec(const std::string& path);

/// Builds a cluster from a parsed spec; `source` names it in errors and, without a "name" key,
/// gives the cluster its name (the file stem). Throws InputError whose field is the key path, e.g.
/// "nodes[2].gpu" for an unknown key or "nodes[0].gpu_type" for an undeclared GPU type.
Cluster cluster_from_json(const nlohmann::json& j, const std::string& source);

/// A built-in cluster by name ("default", "gavel-24", "gavel-108", "heet-12", "philly-2048"), or
/// nullopt for an unknown name.
std::optional<Cluster> make_preset(const std::string& name);

/// Every preset as (name, one-line description), in a stable order for `hetsim list`.
std::vector<std::pair<std::string, std::string>> list_presets();

/// The cluster with every node repeated `copies` times (copy k >= 1 of node "n" is "n#k", on the
/// same rack), named "<name>x<copies>": the "cluster scale" axis of experiments. Throws InputError
/// (field "cluster_scale") when copies < 1.
Cluster scale_cluster(const Cluster& cluster, int copies);

/// A preset when `preset_or_file` names one, else the spec file at that path. Throws InputError
/// listing the preset names when it is neither, or the loader's error for a bad file.
Cluster resolve_cluster(const std::string& preset_or_file);

}  // namespace hetsim
