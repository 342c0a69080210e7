#pragma once
/// Gradient synchronisation time of one data-parallel step over the cluster topology. Every model
/// is a sequence of phases of concurrent flows priced by Topology::phase_cost (most loaded
/// directed link + slowest route latency), so links shared by several workers of a job (a NIC
/// under four GPUs, an uplink under a rack) divide their bandwidth among the flows crossing them.
/// Formulas, derivations and sources: docs/models.md, "Communication models".
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsim/cluster/topology.hpp"

namespace hetsim {

/// Which synchronisation scheme a job uses.
enum class CommAlgorithm : std::uint8_t {
  Ring,             ///< flat ring all-reduce over all GPUs (Baidu/Horovod/NCCL ring)
  Hierarchical,     ///< ring all-reduce per level: node, rack, cluster (reduce-scatter up, all-gather down)
  ParameterServer,  ///< k parameter-server shards on the hosts of the job's nodes
  Hybrid,           ///< per level a fixed choice of all-reduce or parameter server (CommConfig::levels)
  Auto,             ///< the fastest of flat ring, flat parameter server and every per-level hybrid
};

/// Synchronisation inside one level of the hierarchy.
enum class LevelSync : std::uint8_t { AllReduce, ParameterServer };

/// The three levels of the hierarchy, bottom up.
inline constexpr std::array<const char*, 3> kCommLevels{"node", "rack", "cluster"};

/// "ring", "hierarchical", "ps", "hybrid", "auto".
const char* to_string(CommAlgorithm algorithm);
/// Parses the names of to_string(CommAlgorithm); nullopt otherwise.
std::optional<CommAlgorithm> parse_comm_algorithm(std::string_view text);
/// Parses "ar" or "ps"; nullopt otherwise.
std::optional<LevelSync> parse_level_sync(std::string_view text);

/// Settings of the communication model.
struct CommConfig {
  CommAlgorithm algorithm = CommAlgorithm::Auto;
  /// Parameter-server shards (>= 1). Flat PS: shards on the job's node hosts, round robin. Per
  /// level: servers on the first min(k, participants) participants of the group.
  int ps_shards = 1;
  /// Per-level choice for Hybrid, in kCommLevels order.
  std::array<LevelSync, 3> levels{LevelSync::AllReduce, LevelSync::AllReduce, LevelSync::AllReduce};
};

/// A synchronisation time and what ran: "ring", "ps", or for the hierarchical schemes each level,
/// e.g. "node=ar rack=ps cluster=-" ("-" = the level has one participant per group, nothing to do).
struct CommEstimate {
  double time_s = 0.0;
  /// The parts of time_s that scale with bandwidth and with latency (transfer_s + latency_s equals
  /// time_s up to rounding); the shared-network model slows only the transfer.
  double transfer_s = 0.0;
  double latency_s = 0.0;
  std::string choice;
  /// Bytes one synchronisation moves over each shared directed link (NICs, uplinks), when asked
  /// for (with_links); in order of first use.
  std::vector<LinkBytes> link_bytes;
};

/// Ring all-reduce of `bytes` through `ring` in that order: 2(p-1) steps, each moving bytes/p
/// from every participant to the next, all at once. Equals 2(p-1)/p * bytes / B + 2(p-1) * a with
/// B the ring bottleneck and a the slowest hop's latency. 0 for fewer than two participants.
double ring_allreduce_s(const Topology& topo, std::span<const VertexId> ring, double bytes);

/// Parameter server with `shards` shards (>= 1) hosted on the job's node hosts (node switch
/// vertices; shard j on the (j mod m)-th of the m nodes in ring order). The GPUs of a node first
/// reduce-scatter among themselves (a node-level ring), so each node pushes one aggregated
/// gradient: each of its g GPUs sends bytes/(g x shards) to every shard; pull and the node's
/// all-gather are the reverse, at the same cost on full-duplex links. Throws std::invalid_argument
/// when shards < 1. 0 for a single GPU.
double parameter_server_s(const Topology& topo, std::span<const GpuId> gpus, double bytes, int shards);

/// Hierarchical synchronisation over the levels node, rack, cluster. `fixed[l]` is the scheme of
/// level l, or nullopt to take the faster of all-reduce and parameter server there. Participants:
/// GPUs within a node, nodes within a rack, racks within the cluster; a participant's share of the
/// gradient is spread over its GPUs, so its traffic crosses every NIC and uplink below it. Each
/// level's groups run concurrently on disjoint links, so a level costs its slowest group. Levels
/// with one participant per group cost nothing.
CommEstimate hierarchical_sync(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                               const std::array<std::optional<LevelSync>, 3>& fixed, int ps_shards);

/// Dispatches on config.algorithm; `with_links` also fills CommEstimate::link_bytes. Auto takes
/// the per-level best hybrid unless the flat ring or the flat parameter server is strictly faster.
/// Throws std::invalid_argument for ps_shards < 1.
CommEstimate estimate_communication(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                                    const CommConfig& config, bool with_links = false);

}  // namespace hetsim
