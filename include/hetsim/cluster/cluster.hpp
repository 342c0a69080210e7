#pragma once
/// The static cluster: GPU types, racks, nodes and the GPUs on them. Immutable once built; which
/// GPUs are busy lives in ClusterState.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsim {

using GpuId = int;      ///< Index of a GPU, 0..total_gpus()-1; GPUs of one node are contiguous.
using NodeId = int;     ///< Index into Cluster::nodes().
using RackId = int;     ///< Index into Cluster::racks().
using GpuTypeId = int;  ///< Index into Cluster::gpu_types().

/// Most GPUs one cluster may have (ten times the largest public trace's cluster): a typo in a spec
/// must fail with an error, not exhaust the machine's memory.
inline constexpr long long kMaxClusterGpus = 1'000'000;

/// True when `name` is a usable GPU type name: non-empty, only ASCII letters, digits and `._+-`
/// ("a100-sxm4-80gb", "gpu-series-1"). Type names become CSV cells and column names (jobs.csv
/// joins a job's types with '|', utilization.csv has one busy_<type> column per type), so commas,
/// quotes, '|' and spaces are refused where a cluster is loaded rather than escaped in every output.
bool is_valid_gpu_type_name(std::string_view name);

/// The rule above in words, for error messages.
inline constexpr const char* kGpuTypeNameRule = "use only letters, digits and . _ + -";

/// A GPU model. `name` is matched case-insensitively against throughput tables (stored lower-case).
struct GpuType {
  std::string name;
  double memory_gb = 0.0;       ///< 0 = unknown
  double relative_speed = 1.0;  ///< speed relative to the reference GPU, used by the duration model
};

/// How the GPUs inside one node talk to each other. Modelled as a switch inside the node with one
/// full-duplex link per GPU (for NVLink meshes this is a simplification, see docs/models.md).
enum class InterconnectKind : std::uint8_t { NvSwitch, NvLink, Pcie };

/// "nvswitch", "nvlink" or "pcie".
const char* to_string(InterconnectKind kind);
/// Parses "nvswitch", "nvlink" or "pcie" (case-insensitive); nullopt otherwise.
std::optional<InterconnectKind> parse_interconnect_kind(std::string_view text);
/// Per-GPU, per-direction bandwidth (GB/s, 1 GB = 1e9 bytes) used when a spec names only the
/// kind: nvswitch 300 (A100 NVLink3, 12 links x 25 GB/s), nvlink 150 (V100 NVLink2, 6 x 25 GB/s),
/// pcie 12 (PCIe 3.0 x16, ~16 GB/s raw, ~12 GB/s achieved).
double default_interconnect_gbytes_per_s(InterconnectKind kind);
/// One-hop latency (µs) used when a spec gives none: nvswitch and nvlink 2, pcie 5.
double default_interconnect_latency_us(InterconnectKind kind);

/// Network defaults for nodes and racks that do not say (docs/cluster-format.md).
inline constexpr double kDefaultNicGbps = 25.0;
inline constexpr double kDefaultNicLatencyUs = 5.0;
inline constexpr double kDefaultUplinkLatencyUs = 5.0;

/// A rack: a ToR switch and the nodes under it, connected to the spine by one uplink.
struct Rack {
  Rack() = default;
  /// A rack with a non-blocking uplink (oversubscription 1) and the default latency.
  explicit Rack(std::string rack_name) : name(std::move(rack_name)) {}
  std::string name;
  /// ToR-to-spine bandwidth per direction (Gbps). nullopt = derived by Cluster from
  /// `oversubscription`: sum of the rack's NIC bandwidths / oversubscription.
  std::optional<double> uplink_gbps;
  /// Sum of NIC bandwidth over uplink bandwidth (>= 1 is oversubscribed); used only when
  /// uplink_gbps is not given. 1 = non-blocking.
  double oversubscription = 1.0;
  double uplink_latency_us = kDefaultUplinkLatencyUs;
};

/// A server holding `gpu_count` GPUs of one type.
struct Node {
  Node() = default;
  /// A node with the default network (PCIe 12 GB/s, 25 Gbit/s NIC).
  Node(std::string node_name, GpuTypeId type, int gpus, RackId rack_id, GpuId first = 0)
      : name(std::move(node_name)), gpu_type(type), gpu_count(gpus), rack(rack_id), first_gpu(first) {}
  std::string name;
  GpuTypeId gpu_type = 0;
  int gpu_count = 0;
  RackId rack = 0;
  GpuId first_gpu = 0;  ///< set by Cluster: GPUs first_gpu .. first_gpu+gpu_count-1
  InterconnectKind interconnect = InterconnectKind::Pcie;
  double interconnect_gbytes_per_s = 12.0;  ///< per GPU link, per direction (GB/s)
  double interconnect_latency_us = 5.0;     ///< GPU to node switch, one hop
  double nic_gbps = kDefaultNicGbps;        ///< node to ToR, per direction (Gbit/s)
  double nic_latency_us = kDefaultNicLatencyUs;
};

/// The cluster model. Construction validates (non-empty, every node on an existing rack and type,
/// gpu_count > 0, unique names, positive finite bandwidths, non-negative latencies, every rack
/// with a node) and throws InputError naming `source` and the bad field. Racks without an
/// explicit uplink get sum(NIC Gbps of their nodes) / oversubscription.
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
