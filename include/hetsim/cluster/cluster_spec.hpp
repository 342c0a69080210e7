#pragma once
/// Building a Cluster from a JSON cluster spec (format in docs/cluster-format.md) or from a named
/// preset. The spec loader is strict: unknown keys and wrong types are errors naming the key path.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster.hpp"

namespace hetsim {

/// Reads a JSON cluster spec file. Throws InputError naming the file (missing file, invalid JSON
/// with its line, or a bad field as in cluster_from_json()).
Cluster load_cluster_spec(const std::string& path);
/// The same over a spec already in memory (the file version calls it); `name` is used in errors
/// and, without a "name" key, gives the cluster its name, as the path does.
Cluster load_cluster_spec(const std::string& name, std::string_view text);

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

/// A preset when `preset_or_file` names one; else a node inventory (`<kind>:<path>`, or a CSV file
/// whose header or companion `.header` file identifies one, see import_node_inventory()); else the
/// JSON spec file at that path. Throws InputError listing the preset names when it is none of
/// these, or the loader's error for a bad file. When `notes` is given, the inventory importer's
/// notes (rows skipped, rules applied) are appended to it.
Cluster resolve_cluster(const std::string& preset_or_file, std::vector<std::string>* notes = nullptr);

/// Node-inventory formats of public cluster traces that import as heterogeneous clusters
/// (docs/cluster-format.md "Node inventories").
enum class InventoryFormat {
  AlibabaOpenb,  ///< `sn,cpu_milli,memory_mib,gpu,model` (clusterdata cluster-trace-gpu-v2023)
  AlibabaPai,    ///< headerless `machine,gpu_type,cap_cpu,cap_mem,cap_gpu` (cluster-trace-gpu-v2020)
  AlibabaSpot,   ///< `gpu_model,gpu_capacity_num,cpu_num,node_name` (cluster-trace-v2026-spot-gpu)
};

/// A cluster built from a node inventory, with the importer's notes (skipped rows and why).
struct ImportedCluster {
  Cluster cluster;
  std::vector<std::string> notes;
};

/// Recognises `alibaba-openb:PATH`, `alibaba-pai:PATH`, `alibaba-spot:PATH`, or a plain PATH to a
/// CSV whose first line is an OpenB or spot header, or whose companion `<stem>.header` (the PAI
/// layout) exists. Returns the format and the path, or nullopt when `arg` is none of these.
std::optional<std::pair<InventoryFormat, std::string>> detect_node_inventory(const std::string& arg);

/// Builds a cluster from an inventory CSV: one node per GPU row (CPU-only and unknown-model rows
/// are skipped and counted in a note), GPU types named after the model in lower case, nodes of one
/// type grouped into racks of at most kInventoryNodesPerRack in file order, interconnect by model.
/// Throws InputError "file:line: field 'x': ..." for a row it cannot understand.
ImportedCluster import_node_inventory(InventoryFormat format, const std::string& path);
/// The same over text already in memory (the file version reads the files and calls it); `path`
/// names the inventory in errors and gives the cluster its name. `pai_header` is the text of the
/// PAI list's companion `.header` file (ignored for the other formats).
ImportedCluster import_node_inventory(InventoryFormat format, const std::string& path, std::string_view text,
                                      std::string_view pai_header = {});

/// Most nodes per rack of an imported inventory (a 32-server rack under one ToR switch).
inline constexpr int kInventoryNodesPerRack = 32;

}  // namespace hetsim
