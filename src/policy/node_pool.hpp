#pragma once
// Free GPUs per node as a policy plans one pass (private to src/policy/): the GPUs free now plus
// those of jobs the policy is taking GPUs from, handed out node by node the way the Pollux
// simulator's policies do (petuum/adaptdl osdi21-artifact simulator/tiresias.py, optimus.py:
// repeatedly the node with the most free GPUs).
#include <map>
#include <span>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/policy/policy.hpp"

namespace hetsim::policy_detail {

/// An overlay on the ClusterState: only the nodes the pass gives GPUs to or takes GPUs from are
/// copied, the rest is read from the state's ordered indexes, so a pass costs what it changes and
/// not the size of the cluster.
class NodePool {
 public:
  /// Starts from the free GPUs of `state`, which must outlive the pool and not change meanwhile.
  explicit NodePool(const ClusterState& state);
  /// Adds GPUs back (a job the policy stops or moves).
  void release(std::span<const GpuId> gpus);
  /// The keep-or-release pass of the Pollux simulator's policies: each running job among `jobs`
  /// whose planned count replicas[i] and type types[i] equal what it holds keeps its GPUs; every
  /// other running job gives its GPUs back to the pool and, when replicas[i] is 0, is appended to
  /// `preempt`. Returns per row 1 = kept (always 0 for jobs not running). The spans are parallel.
  std::vector<char> keep_or_release(const PolicyView& ctx, std::span<const JobIndex> jobs,
                                    std::span<const GpuTypeId> types, std::span<const int> replicas,
                                    std::vector<JobIndex>& preempt);
  /// Free GPUs of a type over all nodes.
  int free_of_type(GpuTypeId type) const;
  /// Takes `count` GPUs of `type`: repeatedly the node with the most free GPUs (ties: lowest node
  /// index), min(free there, still needed) GPUs from it, lowest GPU ids first. The result lists
  /// the GPUs in pick order (a node's GPUs together). Empty, and nothing taken, if too few are free.
  std::vector<GpuId> take_most_free(GpuTypeId type, int count);
  /// Takes `count` GPUs of `type` on as few nodes as possible: the fullest-fitting node first (the
  /// node with the fewest free GPUs that still holds the rest), else the node with the most free.
  std::vector<GpuId> take_packed(GpuTypeId type, int count);

 private:
  // A node with free GPUs as a candidate: its free count and index; node < 0 = none.
  struct Candidate {
    std::size_t free = 0;
    NodeId node = -1;
  };
  // The pool's free GPUs of `node`, ascending, copied from the state on first use.
  std::vector<GpuId>& touch(NodeId node);
  // Node of `type` with the most free GPUs (ties: lowest index).
  Candidate most_free(GpuTypeId type) const;
  // Node of `type` with the fewest free GPUs that still has `need` (ties: lowest index).
  Candidate fullest_fit(GpuTypeId type, std::size_t need) const;
  // Moves min(free, still needed) of `node`'s lowest GPUs to `out`.
  void take_from(NodeId node, std::size_t need, std::vector<GpuId>& out);

  const ClusterState& state_;
  const Cluster& cluster_;
  std::vector<int> free_type_;
  std::map<NodeId, std::vector<GpuId>> touched_;  // the nodes this pass changed, in node order
};

}  // namespace hetsim::policy_detail
