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

// A scheme's cost and, when asked, its bytes per shared link. `repeat` identical phases cost
// repeat x phase_time_s, the expression every scheme used before the split, so times stay bitwise.
struct Priced {
  double time_s = 0.0;
  double transfer_s = 0.0;
  double latency_s = 0.0;
  std::vector<LinkBytes> links;
};

void add_phases(const Topology& topo, std::span<const Flow> flows, double repeat, bool with_links, Priced& out) {
  const PhaseCost c = with_links ? topo.phase_cost(flows, repeat, out.links) : topo.phase_cost(flows);
  out.time_s += repeat * c.total_s();
  out.transfer_s += repeat * c.transfer_s;
  out.latency_s += repeat * c.latency_s;
}

// A push phase and its pull: the same flows reversed, which cost the same on full-duplex links
// (x + x == 2x exactly, so the time is the one of 2 x push) but load the opposite directions.
void add_push_pull(const Topology& topo, const std::vector<Flow>& push, bool with_links, Priced& out) {
  add_phases(topo, push, 1.0, with_links, out);
  std::vector<Flow> pull;
  pull.reserve(push.size());
  for (const Flow& f : push) pull.push_back(Flow{f.dst, f.src, f.bytes});
  add_phases(topo, pull, 1.0, with_links, out);
}

// Ring all-reduce among participants: 2(p-1) identical steps of bytes/p to the next participant.
Priced level_ring(const Topology& topo, const std::vector<Participant>& group, double bytes, bool with_links) {
  Priced out;
  const std::size_t p = group.size();
  if (p < 2) return out;
  std::vector<Flow> step;
  for (std::size_t i = 0; i < p; ++i) add_spread_flows(group[i], group[(i + 1) % p], bytes / static_cast<double>(p), step);
  add_phases(topo, step, 2.0 * static_cast<double>(p - 1), with_links, out);
  return out;
}

// Parameter server among participants: the first min(k, p) participants host one shard each;
// every other participant pushes bytes/k' to each shard, then pulls the same back (same cost on
// full-duplex links). A shard's own participant exchanges nothing over the network for it.
Priced level_ps(const Topology& topo, const std::vector<Participant>& group, double bytes, int shards, bool with_links) {
  Priced out;
  if (group.size() < 2) return out;
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(shards), group.size());
  std::vector<Flow> push;
  for (std::size_t i = 0; i < group.size(); ++i)
    for (std::size_t j = 0; j < k; ++j)
      if (i != j) add_spread_flows(group[i], group[j], bytes / static_cast<double>(k), push);
  add_push_pull(topo, push, with_links, out);
  return out;
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

// Groups of one level run at once on disjoint links: the level costs its slowest group and
// loads the links of all of them.
void add_slowest(const std::vector<Priced>& groups, Priced& out) {
  const Priced* slowest = nullptr;
  for (const Priced& g : groups) {
    if (!slowest || g.time_s > slowest->time_s) slowest = &g;
    out.links.insert(out.links.end(), g.links.begin(), g.links.end());
  }
  if (!slowest) return;
  out.time_s += slowest->time_s;
  out.transfer_s += slowest->transfer_s;
  out.latency_s += slowest->latency_s;
}

// The flat ring is a ring level whose participants are single GPUs.
Priced ring_priced(const Topology& topo, std::span<const VertexId> ring, double bytes, bool with_links) {
  std::vector<Participant> group;
  group.reserve(ring.size());
  for (VertexId v : ring) group.push_back(Participant{v});
  return level_ring(topo, group, bytes, with_links);
}

// Flat PS with aggregation in the node (MXNet's KVStore device mode and BytePS reduce a machine's
// GPUs before talking to the servers): a node-level ring reduce-scatter and all-gather (nodes in
// parallel), and between them one push and one pull phase of each node's aggregated gradient.
Priced ps_priced(const Topology& topo, std::span<const GpuId> gpus, double bytes, int shards, bool with_links) {
  if (shards < 1) throw std::invalid_argument("parameter server needs at least one shard");
  Priced out;
  if (gpus.size() < 2 || bytes <= 0.0) return out;
  // The job's nodes in ring order (shard j on the (j mod m)-th), each with its GPUs.
  std::vector<VertexId> hosts;
  std::vector<std::vector<Participant>> nodes;
  for (GpuId g : topo.ring_order(gpus)) {
    const VertexId host = topo.node_vertex(topo.cluster().node_of(g));
    if (hosts.empty() || hosts.back() != host) {
      hosts.push_back(host);
      nodes.emplace_back();
    }
    nodes.back().push_back(Participant{topo.gpu_vertex(g)});
  }
  std::vector<Priced> node_rings;
  for (const auto& node : nodes) node_rings.push_back(level_ring(topo, node, bytes, with_links));
  add_slowest(node_rings, out);
  std::vector<Flow> push;
  for (const auto& node : nodes) {
    const double each = bytes / static_cast<double>(node.size()) / static_cast<double>(shards);
    for (const Participant& gpu : node)
      for (int j = 0; j < shards; ++j)
        push.push_back(Flow{gpu.front(), hosts[static_cast<std::size_t>(j) % hosts.size()], each});
  }
  add_push_pull(topo, push, with_links, out);
  return out;
}

Priced hierarchical_priced(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                           const std::array<std::optional<LevelSync>, 3>& fixed, int ps_shards, bool with_links,
                           std::string& choice) {
  if (ps_shards < 1) throw std::invalid_argument("parameter server needs at least one shard");
  Priced out;
  if (gpus.empty()) return out;
  const auto groups = level_groups(topo, gpus);
  for (std::size_t level = 0; level < 3; ++level) {
    std::vector<Priced> ar;
    std::vector<Priced> ps;
    for (const auto& group : groups[level]) {
      if (group.size() < 2) continue;
      // At each level, every participant holds the level's whole gradient (spread over the GPUs
      // below it after the lower levels' reduce-scatter), so each level moves `bytes`.
      if (!fixed[level] || *fixed[level] == LevelSync::AllReduce) ar.push_back(level_ring(topo, group, bytes, with_links));
      if (!fixed[level] || *fixed[level] == LevelSync::ParameterServer)
        ps.push_back(level_ps(topo, group, bytes, ps_shards, with_links));
    }
    if (!choice.empty()) choice += ' ';
    choice += kCommLevels[level];
    if (ar.empty() && ps.empty()) {
      choice += "=-";
      continue;
    }
    Priced ar_level;
    Priced ps_level;
    add_slowest(ar, ar_level);
    add_slowest(ps, ps_level);
    const bool use_ps = fixed[level] ? *fixed[level] == LevelSync::ParameterServer : ps_level.time_s < ar_level.time_s;
    const Priced& used = use_ps ? ps_level : ar_level;
    out.time_s += used.time_s;
    out.transfer_s += used.transfer_s;
    out.latency_s += used.latency_s;
    out.links.insert(out.links.end(), used.links.begin(), used.links.end());
    choice += use_ps ? "=ps" : "=ar";
  }
  return out;
}

CommEstimate to_estimate(Priced p, std::string choice, bool with_links) {
  CommEstimate e{p.time_s, p.transfer_s, p.latency_s, std::move(choice), {}};
  if (!with_links) return e;
  // Merge repeated links (levels and groups were appended), keeping the order of first use.
  for (const LinkBytes& l : p.links) {
    auto it = std::find_if(e.link_bytes.begin(), e.link_bytes.end(), [&](const LinkBytes& x) { return x.link == l.link; });
    if (it == e.link_bytes.end())
      e.link_bytes.push_back(l);
    else
      it->bytes += l.bytes;
  }
  return e;
}

std::vector<VertexId> ring_vertices(const Topology& topo, std::span<const GpuId> gpus) {
  std::vector<VertexId> ring;
  for (GpuId g : topo.ring_order(gpus)) ring.push_back(topo.gpu_vertex(g));
  return ring;
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
  return ring_priced(topo, ring, bytes, false).time_s;
}

double parameter_server_s(const Topology& topo, std::span<const GpuId> gpus, double bytes, int shards) {
  return ps_priced(topo, gpus, bytes, shards, false).time_s;
}

CommEstimate hierarchical_sync(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                               const std::array<std::optional<LevelSync>, 3>& fixed, int ps_shards) {
  std::string choice;
  Priced p = hierarchical_priced(topo, gpus, bytes, fixed, ps_shards, false, choice);
  return to_estimate(std::move(p), std::move(choice), false);
}

CommEstimate estimate_communication(const Topology& topo, std::span<const GpuId> gpus, double bytes,
                                    const CommConfig& config, bool with_links) {
  const std::optional<LevelSync> ar = LevelSync::AllReduce;
  std::string choice;
  switch (config.algorithm) {
    case CommAlgorithm::Ring:
      return to_estimate(ring_priced(topo, ring_vertices(topo, gpus), bytes, with_links), "ring", with_links);
    case CommAlgorithm::ParameterServer:
      return to_estimate(ps_priced(topo, gpus, bytes, config.ps_shards, with_links), "ps", with_links);
    case CommAlgorithm::Hierarchical: {
      Priced p = hierarchical_priced(topo, gpus, bytes, {ar, ar, ar}, config.ps_shards, with_links, choice);
      return to_estimate(std::move(p), std::move(choice), with_links);
    }
    case CommAlgorithm::Hybrid: {
      Priced p = hierarchical_priced(topo, gpus, bytes, {config.levels[0], config.levels[1], config.levels[2]},
                                     config.ps_shards, with_links, choice);
      return to_estimate(std::move(p), std::move(choice), with_links);
    }
    case CommAlgorithm::Auto: {
      // The per-level best is the best hybrid (levels add up), but a flat scheme crosses the
      // hierarchy once and can beat it (3 nodes over 2 racks: the rack and the cluster level
      // each move the whole gradient over the NICs). Ties keep the hybrid.
      Priced best = hierarchical_priced(topo, gpus, bytes, {}, config.ps_shards, with_links, choice);
      Priced ring = ring_priced(topo, ring_vertices(topo, gpus), bytes, with_links);
      if (ring.time_s < best.time_s) {
        best = std::move(ring);
        choice = "ring";
      }
      Priced ps = ps_priced(topo, gpus, bytes, config.ps_shards, with_links);
      if (ps.time_s < best.time_s) {
        best = std::move(ps);
        choice = "ps";
      }
      return to_estimate(std::move(best), std::move(choice), with_links);
    }
  }
  return {};
}

}  // namespace hetsim
