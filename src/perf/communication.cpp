// Communication models over the topology. Sources: ring all-reduce after Patarasuk & Yuan, "Bandwidth
// optimal all-reduce algorithms for clusters of workstations" (JPDC 2009) and Baidu's ring
// all-reduce / Horovod (Sergeev & Del Balso, 2018); hierarchical all-reduce after Jia et al.,
// "Highly scalable deep learning training system with mixed-precision" (2018) and NCCL's
// tree/hierarchical schemes; parameter server after Li et al., OSDI 2014; the per-level choice of
// centralised or decentralised synchronisation after Wang, Geng, da Silva, Gaudiot, "A dynamically
// hybrid (hierarchy) distribution structure for distributed deep learning", ISORC 2024,
// doi:10.1109/ISORC61049.2024.10551324. The formulas are hetsim's own (docs/models.md).
#include "hetsim/perf/communication.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

// A participant of a level is the set of the job's GPUs below it (one GPU at the node level, a
// node's GPUs at the rack level, a rack's GPUs at the cluster level): after the lower levels'
// reduce-scatter, its share of the gradient is spread evenly over those GPUs. So X bytes from
// participant P to Q travel as |P| x |Q| flows of X / (|P| |Q|), which loads every NIC and uplink
// the data really crosses.
using Participant = std::vector<VertexId>;

void add_spread_flows(const Participant& from, const Participant& to, double bytes, std::vector<Flow>& out) {
  const double each = bytes / static_cast<double>(from.size() * to.size());
  for (VertexId a : from)
    for (VertexId b : to) out.push_back(Flow{a, b, each});
}

// Ring all-reduce among participants: 2(p-1) identical steps of bytes/p to the next participant.
double level_ring_s(const Topology& topo, const std::vector<Participant>& group, double bytes) {
  const std::size_t p = group.size();
  if (p < 2) return 0.0;
  std::vector<Flow> step;
  for (std::size_t i = 0; i < p; ++i) add_spread_flows(group[i], group[(i + 1) % p], bytes / static_cast<double>(p), step);
  return 2.0 * static_cast<double>(p - 1) * topo.phase_time_s(step);
}

// Parameter server among participants: the first min(k, p) participants host one shard each;
// every other participant pushes bytes/k' to each shard, then pulls the same back (same cost on
// full-duplex links). A shard's own participant exchanges nothing over the network for it.
double level_ps_s(const Topology& topo, const std::vector<Participant>& group, double bytes, int shards) {
  if (group.size() < 2) return 0.0;
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(shards), group.size());
  std::vector<Flow> push;
  for (std::size_t i = 0; i < group.size(); ++i)
    for (std::size_t j = 0; j < k; ++j)
      if (i != j) add_spread_flows(group[i], group[j], bytes / static_cast<double>(k), push);
  return 2.0 * topo.phase_time_s(push);
}

// Groups of participants at each level, in ring order: per node its GPUs (one participant each);
// per rack its nodes; for the cluster its racks.
std::array<std::vector<std::vector<Participant>>, 3> level_groups(const Topology& topo, std::span<const GpuId> gpus) {
  const Cluster& c = topo.cluster();
  std::map<NodeId, std::vector<Participant>> per_node;  // node -> its GPUs as single participants
  std::map<NodeId, Participant> node_gpus;
  std::map<RackId, Participant> rack_gpus;
  std::map<RackId, std::vector<NodeId>> rack_nodes;
  for (GpuId g : topo.ring_order(gpus)) {
    const NodeId n = c.node_of(g);
    const RackId r = c.nodes()[static_cast<std::size_t>(n)].rack;
    if (node_gpus[n].empty()) rack_nodes[r].push_back(n);
    per_node[n].push_back(Participant{topo.gpu_vertex(g)});
    node_gpus[n].push_back(topo.gpu_vertex(g));
    rack_gpus[r].push_back(topo.gpu_vertex(g));
  }
  std::array<std::vector<std::vector<Participant>>, 3> out;
  for (auto& [n, group] : per_node) out[0].push_back(std::move(group));
  for (auto& [r, nodes] : rack_nodes) {
    std::vector<Participant> group;
    for (NodeId n : nodes) group.push_back(node_gpus[n]);
    out[1].push_back(std::move(group));
  }
  std::vector<Participant> racks;
  for (auto& [r, members] : rack_gpus) racks.push_back(std::move(members));
  out[2].push_back(std::move(racks));
  return out;
}

}  // namespace

const char* to_string(CommAlgorithm algorithm) {
  switch (algorithm) {
    case CommAlgorithm::Ring: return "ring";
    case CommAlgorithm::Hierarchical: return "hierarchical";
    case CommAlgorithm::ParameterServer: return "ps";
    case CommAlgorithm::Hybrid: return "hybrid";
    case CommAlgorithm::Auto: return "auto";
  }
  return "auto";
}

std::optional<CommAlgorithm> parse_comm_algorithm(std::string_view text) {
  for (CommAlgorithm a : {CommAlgorithm::Ring, CommAlgorithm::Hierarchical, CommAlgorithm::ParameterServer,
                          CommAlgorithm::Hybrid, CommAlgorithm::Auto})
    if (to_lower(text) == to_string(a)) return a;
  return std::nullopt;
}

std::optional<LevelSync> parse_level_sync(std::string_view text) {
  const std::string t = to_lower(text);
  if (t == "ar") return LevelSync::AllReduce;
  if (t == "ps") return LevelSync::ParameterServer;
  return std::nullopt;
}

double ring_allreduce_s(const Topology& topo, std::span<const VertexId> ring, double bytes) {
  const std::size_t p = ring.size();
  if (p < 2 || bytes <= 0.0) return 0.0;
  std::vector<Flow> step;
  for (std::size_t i = 0; i < p; ++i) step.push_back(Flow{ring[i], ring[(i + 1) % p], bytes / static_cast<double>(p)});
  // reduce-scatter (p-1 steps) + all-gather (p-1 steps), every step the same flows.
  return 2.0 * static_cast<double>(p - 1) * topo.phase_time_s(step);
}

double parameter_server_s(const Topology& topo, std::span<const GpuId> gpus, double bytes, int shards) {
  if (shards < 1) throw std::invalid_argument("parameter server needs at least one shard");
  if (gpus.size() < 2 || bytes <= 0.0) return 0.0;
  std::vector<VertexId> hosts;
  for (GpuId g : topo.ring_order(gpus)) {
    const VertexId host = topo.node_vertex(topo.cluster().node_of(g));
    if (hosts.empty() || hosts.back() != host) hosts.push_back(host);
  }
  std::vector<Flow> push;
  for (GpuId g : gpus)
    for (int j = 0; j < shards; ++j)
      push.push_back(Flow{topo.gpu_vertex(g), hosts[static_cast<std::size_t>(j) % hosts.size()],
                          bytes / static_cast<double>(shards)});
  return 2.0 * topo.phase_time_s(push);
}

CommEstimate hierarchical_sync(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                               const std::array<std::optional<LevelSync>, 3>& fixed, int ps_shards) {
  if (ps_shards < 1) throw std::invalid_argument("parameter server needs at least one shard");
  CommEstimate out;
  if (gpus.empty()) return out;
  const auto groups = level_groups(topo, gpus);
  for (std::size_t level = 0; level < 3; ++level) {
    double ar = 0.0;
    double ps = 0.0;
    bool active = false;
    for (const auto& group : groups[level]) {
      if (group.size() < 2) continue;
      active = true;
      // At each level, every participant holds the level's whole gradient (spread over the GPUs
      // below it after the lower levels' reduce-scatter), so each level moves `bytes`.
      if (!fixed[level] || *fixed[level] == LevelSync::AllReduce) ar = std::max(ar, level_ring_s(topo, group, bytes));
      if (!fixed[level] || *fixed[level] == LevelSync::ParameterServer)
        ps = std::max(ps, level_ps_s(topo, group, bytes, ps_shards));
    }
    if (!out.choice.empty()) out.choice += ' ';
    out.choice += kCommLevels[level];
    if (!active) {
      out.choice += "=-";
      continue;
    }
    const bool use_ps = fixed[level] ? *fixed[level] == LevelSync::ParameterServer : ps < ar;
    out.time_s += use_ps ? ps : ar;
    out.choice += use_ps ? "=ps" : "=ar";
  }
  return out;
}

CommEstimate estimate_communication(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                                    const CommConfig& config) {
  switch (config.algorithm) {
    case CommAlgorithm::Ring: {
      std::vector<VertexId> ring;
      for (GpuId g : topo.ring_order(gpus)) ring.push_back(topo.gpu_vertex(g));
      return CommEstimate{ring_allreduce_s(topo, ring, bytes), "ring"};
    }
    case CommAlgorithm::ParameterServer:
      return CommEstimate{parameter_server_s(topo, gpus, bytes, config.ps_shards), "ps"};
    case CommAlgorithm::Hierarchical: {
      const std::optional<LevelSync> ar = LevelSync::AllReduce;
      return hierarchical_sync(topo, gpus, bytes, {ar, ar, ar}, config.ps_shards);
    }
    case CommAlgorithm::Hybrid:
      return hierarchical_sync(topo, gpus, bytes, {config.levels[0], config.levels[1], config.levels[2]},
                               config.ps_shards);
    case CommAlgorithm::Auto: return hierarchical_sync(topo, gpus, bytes, {}, config.ps_shards);
  }
  return {};
}

}  // namespace hetsim
