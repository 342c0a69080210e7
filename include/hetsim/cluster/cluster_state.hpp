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
/// policies look only at nodes with room instead of scanning the whole cluster every time. The
/// node indexes are built at their first use and kept in step from then on: a run whose placement
/// never asks for them (Gavel's round mechanism walks servers itself) pays no tree update per
/// start and stop (issue 19: a seventh of a Gavel MSR fifo run).
class ClusterState {
 public:
  /// Marker for a free GPU in owner().
  static constexpr std::int64_t kFree = -1;
  /// Marker in owner() for a GPU shared by jobs that each hold a fraction of it (sharers()).
  static constexpr std::int64_t kShared = -2;
  /// Thousandths of one GPU: a whole GPU is 1000 milli (Alibaba OpenB's `gpu_milli` unit).
  static constexpr int kWholeMilli = 1000;

  explicit ClusterState(const Cluster& cluster);

  const Cluster& cluster() const { return *cluster_; }
  /// Job index owning `gpu`, kFree, or kShared when fractional jobs share it.
  std::int64_t owner(GpuId gpu) const { return owner_[static_cast<std::size_t>(gpu)]; }
  /// Free GPUs on a node.
  int free_on_node(NodeId node) const { return free_node_[static_cast<std::size_t>(node)]; }
  /// Free GPUs of a type, over all nodes.
  int free_of_type(GpuTypeId type) const { return free_type_[static_cast<std::size_t>(type)]; }
  /// Free GPUs in the whole cluster.
  int free_total() const { return free_total_; }
  /// Nodes of `type` with at least one free GPU, in node order.
  const std::set<NodeId>& nodes_with_free(GpuTypeId type) const {
    if (!indexed_) build_node_indexes();
    return nodes_with_free_[static_cast<std::size_t>(type)];
  }
  /// The same nodes keyed by (free GPUs, node index), ascending: lower_bound({k, 0}) is the node
  /// with the fewest free GPUs that still has k (ties: lowest node index).
  const std::set<std::pair<int, NodeId>>& nodes_by_free(GpuTypeId type) const {
    if (!indexed_) build_node_indexes();
    return nodes_by_free_[static_cast<std::size_t>(type)];
  }
  /// Gives `gpus` to `job`. Throws std::logic_error if any GPU is out of range or not free.
  void assign(std::int64_t job, std::span<const GpuId> gpus);
  /// Frees `gpus`, which must all be owned by `job` (std::logic_error otherwise).
  void release(std::int64_t job, std::span<const GpuId> gpus);

  // Fractional GPUs. A GPU is free, owned whole by one job, or shared by jobs that each hold
  // `milli` thousandths of it, the shares summing to at most kWholeMilli. A shared GPU is not free:
  // it counts as used in every free count above, so whole-GPU jobs never land on it.

  /// Gives `milli` (1 .. 999) of `gpu` to `job`; the GPU must be free or shared with that much room.
  void assign_share(std::int64_t job, GpuId gpu, int milli);
  /// Takes back `job`'s `milli` of `gpu`; the GPU becomes free with its last sharer gone.
  void release_share(std::int64_t job, GpuId gpu, int milli);
  /// Thousandths of `gpu` held by its sharers (0 unless shared).
  int shared_milli(GpuId gpu) const { return shared_milli_[static_cast<std::size_t>(gpu)]; }
  /// Jobs sharing `gpu`, in the order they got their share (empty unless shared).
  const std::vector<std::int64_t>& sharers(GpuId gpu) const { return sharers_[static_cast<std::size_t>(gpu)]; }
  /// The best fit for a share of `milli` among the shared GPUs of `type`: the GPU with the least
  /// room left that still has `milli` (ties: lowest GPU index); -1 if none.
  GpuId best_shared_gpu(GpuTypeId type, int milli) const;
  /// Shared GPUs of `type` with room left, keyed by (room in milli, GPU index), ascending.
  const std::set<std::pair<int, GpuId>>& shared_by_room(GpuTypeId type) const {
    return shared_by_room_[static_cast<std::size_t>(type)];
  }
  /// GPUs shared right now, and the thousandths their sharers hold, over the whole cluster.
  int shared_gpus() const { return shared_gpus_; }
  std::int64_t shared_milli_total() const { return shared_milli_total_; }

 private:
  const Cluster* cluster_;
  std::vector<std::int64_t> owner_;
  std::vector<int> free_node_;
  std::vector<int> free_type_;
  int free_total_ = 0;
  // The node indexes, empty until indexed_ (a const accessor builds them: one state is read by
  // one run's thread only).
  mutable bool indexed_ = false;
  mutable std::vector<std::set<NodeId>> nodes_with_free_;                // [gpu type]
  mutable std::vector<std::set<std::pair<int, NodeId>>> nodes_by_free_;  // [gpu type]
  std::vector<int> shared_milli_;                                  // [gpu] sum of the shares
  std::vector<std::vector<std::int64_t>> sharers_;                 // [gpu] jobs sharing it
  std::vector<std::set<std::pair<int, GpuId>>> shared_by_room_;    // [gpu type] (room, gpu), room > 0
  int shared_gpus_ = 0;
  std::int64_t shared_milli_total_ = 0;

  // Fills both node indexes from the free counts and keeps them in step from then on.
  void build_node_indexes() const;
  // Moves `node`'s free count by `delta` and keeps both node indexes in step (once built).
  void change_free(NodeId node, int delta);
  // Moves `gpu`'s shared thousandths by `delta`, keeping the room index in step.
  void change_share(GpuId gpu, int delta);
};

}  // namespace hetsim
