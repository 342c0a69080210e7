#pragma once
/// The static cluster: GPU types, racks, nodes and the GPUs on them. Immutable once built; which
/// GPUs are busy lives in ClusterState.
#include <optional>
#include <string>
#include <vector>

namespace hetsim {

using GpuId = int;      ///< Index of a GPU, 0..total_gpus()-1; GPUs of one node are contiguous.
using NodeId = int;     ///< Index into Cluster::nodes().
using RackId = int;     ///< Index into Cluster::racks().
using GpuTypeId = int;  ///< Index into Cluster::gpu_types().

/// A GPU model. `name` is matched case-insensitively against throughput tables (stored lower-case).
struct GpuType {
  std::string name;
  double memory_gb = 0.0;       ///< 0 = unknown
  double relative_speed = 1.0;  ///< speed relative to the reference GPU, used by the duration model
};

/// A rack (a ToR switch and the nodes under it).
struct Rack {
  std::string name;
};

/// A server holding `gpu_count` GPUs of one type.
struct Node {
  std::string name;
  GpuTypeId gpu_type = 0;
  int gpu_count = 0;
  RackId rack = 0;
  GpuId first_gpu = 0;  ///< set by Cluster: GPUs first_gpu .. first_gpu+gpu_count-1
};

/// The cluster model. Construction validates (non-empty, every node on an existing rack and type,
/// gpu_count > 0, unique names) and throws InputError naming `source` and the bad field.
class Cluster {
 public:
  /// Builds and validates a cluster; `source` names the spec (file or preset) for errors.
  Cluster(std::string name, std::vector<GpuType> gpu_types, std::vector<Rack> racks,
          std::vector<Node> nodes, const std::string& source = "<cluster>");

  const std::string& name() const { return name_; }
  const std::vector<GpuType>& gpu_types() const { return gpu_types_; }
  const std::vector<Rack>& racks() const { return racks_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  /// Total number of GPUs.
  int total_gpus() const { return static_cast<int>(gpu_node_.size()); }
  /// Number of GPUs of one type.
  int gpus_of_type(GpuTypeId type) const { return gpus_by_type_.at(static_cast<std::size_t>(type)); }
  /// Largest number of GPUs on any single node of this type.
  int max_gpus_per_node(GpuTypeId type) const { return max_per_node_.at(static_cast<std::size_t>(type)); }
  /// Node holding a GPU.
  NodeId node_of(GpuId gpu) const { return gpu_node_.at(static_cast<std::size_t>(gpu)); }
  /// Type of a GPU.
  GpuTypeId type_of(GpuId gpu) const { return nodes_[static_cast<std::size_t>(node_of(gpu))].gpu_type; }
  /// Looks a GPU type up by name, case-insensitively.
  std::optional<GpuTypeId> find_gpu_type(const std::string& name) const;

 private:
  std::string name_;
  std::vector<GpuType> gpu_types_;
  std::vector<Rack> racks_;
  std::vector<Node> nodes_;
  std::vector<NodeId> gpu_node_;
  std::vector<int> gpus_by_type_;
  std::vector<int> max_per_node_;
};

}  // namespace hetsim
