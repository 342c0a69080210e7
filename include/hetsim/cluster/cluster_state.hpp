#pragma once
/// Which GPU belongs to which job right now. Owned by the scheduling mechanism; policies get a
/// const view. Every change is checked, so a GPU is never given twice.
#include <cstdint>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster.hpp"

namespace hetsim {

/// Free/used bookkeeping over a Cluster. O(1) counts per node and per GPU type, and per type the
/// nodes with free GPUs kept ordered as GPUs are assigned and released, so that placements and
/// policies look only at nodes with room instead of scanning the whole cluster every time.
class ClusterState {
 public:
  /// Marker for a free GPU in owner().
  static constexpr std::int64_t kFree = -1;

  explicit ClusterState(const Cluster& cluster);

  const Cluster& cluster() const { return *cluster_; }
  /// Job index owning `gpu`, or kFree.
  std::int64_t owner(GpuId gpu) const { return owner_[static_cast<std::size_t>(gpu)]; }
  /// Free GPUs on a node.
  int free_on_node(NodeId node) const { return free_node_[static_cast<std::size_t>(node)]; }
  /// Free GPUs of a type, over all nodes.
  int free_of_type(GpuTypeId type) const { return free_type_[static_cast<std::size_t>(type)]; }
  /// Free GPUs in the whole cluster.
  int free_total() const { return free_total_; }
  /// Nodes of `type` with at least one free GPU, in node order.
  const std::set<NodeId>& nodes_with_free(GpuTypeId type) const {
    return nodes_with_free_[static_cast<std::size_t>(type)];
  }
  /// The same nodes keyed by (free GPUs, node index), ascending: lower_bound({k, 0}) is the node
  /// with the fewest free GPUs that still has k (ties: lowest node index).
  const std::set<std::pair<int, NodeId>>& nodes_by_free(GpuTypeId type) const {
    return nodes_by_free_[static_cast<std::size_t>(type)];
  }
  /// Gives `gpus` to `job`. Throws std::logic_error if any GPU is out of range or not free.
  void assign(std::int64_t job, std::span<const GpuId> gpus);
  /// Frees `gpus`, which must all be owned by `job` (std::logic_error otherwise).
  void release(std::int64_t job, std::span<const GpuId> gpus);

 private:
  const Cluster* cluster_;
  std::vector<std::int64_t> owner_;
  std::vector<int> free_node_;
  std::vector<int> free_type_;
  int free_total_ = 0;
  std::vector<std::set<NodeId>> nodes_with_free_;                  // [gpu type]
  std::vector<std::set<std::pair<int, NodeId>>> nodes_by_free_;    // [gpu type]

  // Moves `node`'s free count by `delta` and keeps both node indexes in step.
  void change_free(NodeId node, int delta);
};

}  // namespace hetsim
