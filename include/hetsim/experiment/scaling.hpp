#pragma once
/// The scaling experiment of the ISORC'24 seed paper (parameter server, all-reduce or a hybrid
/// chosen per level of the network hierarchy): one data-parallel job on n = 1..N nodes, its step
/// time, throughput and speed-up over one node under each synchronisation scheme, alone on the
/// network or sharing the rack uplinks with background ring jobs. Priced by the analytic model
/// (perf/analytic_model.hpp) and the shared-network model (perf/link_sharing.hpp); nothing else
/// is modelled here. Method and figures: docs/EXPERIMENTS.md, "ISORC'24".
#include <array>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/perf/analytic_model.hpp"
#include "hetsim/perf/communication.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// A synchronisation scheme of the experiment: its name in tables and the analytic model's
/// communication settings.
struct ScalingScheme {
  std::string name;  ///< "ps", "ring", "hierarchical", "auto", or "hybrid-ar-ps-ar"
  CommConfig comm;
};

/// ps, ring, hierarchical and auto (each with `ps_shards` shards), then one hybrid per entry of
/// `hybrids` (levels node, rack, cluster), named "hybrid-<node>-<rack>-<cluster>".
std::vector<ScalingScheme> scaling_schemes(int ps_shards, std::span<const std::array<LevelSync, 3>> hybrids);

/// Builds the analytic model that prices one scheme: the caller's compute profile and overlap and
/// rebalance settings with `comm` as the communication model.
using SchemeModelMaker = std::function<std::unique_ptr<AnalyticModel>(const CommConfig& comm)>;

/// Nodes in the order the job grows. `order` is:
/// - "mixed": round robin over the GPU types the job can run on, fastest first for the job (by
///   `model`'s single-GPU step time), each time on the rack the job has the fewest nodes in (ties:
///   the lower rack index), so the job is heterogeneous and spans racks from 2 nodes on;
/// - "type:NAME": only nodes of GPU type NAME, alternating racks the same way.
/// Throws InputError(field "--nodes-order") for another text, an unknown type, or a type the job
/// cannot run on.
std::vector<NodeId> scaling_node_order(const Cluster& cluster, const AnalyticModel& model, const JobSpec& job,
                                       const std::string& order);

/// Background jobs: pairs of nodes on two different racks, taken first from `order` after its
/// first `job_nodes` entries and then from the cluster's other nodes, so they never touch the
/// job's nodes. Each background job is a ring over every GPU of its two nodes, so its ring
/// crosses both racks' uplinks. Throws InputError(field "--background") when fewer than `count`
/// such pairs exist.
std::vector<std::vector<GpuId>> background_placements(const Cluster& cluster, std::span<const NodeId> order,
                                                      int job_nodes, int count);

/// Settings of one experiment.
struct ScalingConfig {
  JobSpec job;                          ///< the job type is what matters
  std::vector<NodeId> node_order;       ///< nodes in the order the job grows (scaling_node_order)
  int max_nodes = 1;                    ///< n = 1 .. max_nodes; at most node_order.size()
  int background_jobs = 0;              ///< K > 0 adds rows with K background ring jobs
  std::vector<ScalingScheme> schemes;   ///< scaling_schemes()
};

/// One point: a scheme on n nodes, alone (background 0) or with K background jobs.
struct ScalingRow {
  int nodes = 0;
  int gpus = 0;
  std::string gpu_mix;         ///< GPUs per type in the job, e.g. "v100x4+p100x4"
  int background = 0;          ///< background jobs sharing the network
  std::string scheme;
  std::string choice;          ///< what the scheme ran, e.g. "ring" or "node=ar rack=ps cluster=-"
  double compute_s = 0.0;      ///< compute part of a step
  double comm_s = 0.0;         ///< synchronisation part, after sharing
  double step_s = 0.0;         ///< step time, after sharing
  double net_speed = 1.0;      ///< the job's transfer speed relative to alone (1 = no slowdown)
  double throughput_iters_per_s = 0.0;  ///< gpus / step_s (iterations per worker, the analytic model's unit)
  double speedup = 0.0;        ///< throughput over the same scheme's throughput on 1 node
};

/// Every (background setting, scheme, n) row: background 0 first, then K if background_jobs > 0;
/// within one setting, schemes in config order, n ascending. Contention: the job and its K
/// background jobs (each priced by the ring scheme's model) get max-min fair transfer speeds over
/// the shared NICs and uplinks (max_min_speeds), as `--network shared` does in a run; each scheme
/// keeps the choice it makes alone. Throws InputError when the job cannot run on the nodes
/// (field "--job-type"), or when max_nodes is out of range ("--max-nodes").
std::vector<ScalingRow> run_scaling(const Cluster& cluster, const SchemeModelMaker& make_model,
                                    const ScalingConfig& config);

/// The rows as CSV with a header (docs/EXPERIMENTS.md, "ISORC'24", lists the columns).
void write_scaling_csv(std::ostream& out, std::span<const ScalingRow> rows);

}  // namespace hetsim
