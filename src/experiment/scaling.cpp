// The scaling experiment of the ISORC'24 seed paper: Wang, Geng, da Silva, Gaudiot, "a dynamically
// hybrid (hierarchy) distribution structure for distributed deep learning", ISORC 2024,
// doi:10.1109/ISORC61049.2024.10551324. The paper trains on hierarchical heterogeneous GPU
// clusters and reports speed-up against the number of nodes with a parameter server, all-reduce
// and its hybrid (centralised or decentralised synchronisation chosen per level of the hierarchy).
// Here one job grows node by node over a hetsim cluster and every scheme is priced by the analytic
// model (compute profile + communication over the topology, docs/models.md); contention with
// background jobs uses the shared-network model's max-min fair speeds. Simulated, not measured.
#include "hetsim/experiment/scaling.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "hetsim/perf/link_sharing.hpp"
#include "hetsim/util/csv.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

std::string levels_name(const std::array<LevelSync, 3>& levels) {
  std::string out = "hybrid";
  for (LevelSync s : levels) out += s == LevelSync::AllReduce ? "-ar" : "-ps";
  return out;
}

// Single-GPU compute time of the job on each GPU type present in the cluster, or nullopt where it
// cannot run; the model's own step() on the first GPU of the type's first node.
std::vector<std::optional<double>> single_gpu_step_s(const Cluster& cluster, const AnalyticModel& model,
                                                     const JobSpec& job) {
  std::vector<std::optional<double>> out(cluster.gpu_types().size());
  std::vector<bool> seen(cluster.gpu_types().size(), false);
  for (const Node& node : cluster.nodes()) {
    const auto t = static_cast<std::size_t>(node.gpu_type);
    if (seen[t] || node.gpu_count < 1) continue;
    seen[t] = true;
    const GpuId g = node.first_gpu;
    if (const auto b = model.step(job, std::span<const GpuId>(&g, 1))) out[t] = b->compute_s;
  }
  return out;
}

// Round robin over `types`; for each, the next node of that type on the rack the job has the
// fewest nodes in so far (ties: lower rack), so both the GPU mix and the racks stay balanced.
std::vector<NodeId> round_robin_nodes(const Cluster& cluster, const std::vector<GpuTypeId>& types) {
  // Per type, per rack, the nodes in cluster order.
  std::map<GpuTypeId, std::map<RackId, std::vector<NodeId>>> pending;
  for (NodeId n = 0; n < static_cast<NodeId>(cluster.nodes().size()); ++n) {
    const Node& node = cluster.nodes()[static_cast<std::size_t>(n)];
    if (std::find(types.begin(), types.end(), node.gpu_type) != types.end() && node.gpu_count > 0)
      pending[node.gpu_type][node.rack].push_back(n);
  }
  std::vector<int> per_rack(cluster.racks().size(), 0);
  std::map<GpuTypeId, std::map<RackId, std::size_t>> next;
  std::vector<NodeId> order;
  for (bool added = true; added;) {
    added = false;
    for (GpuTypeId t : types) {
      std::optional<RackId> best;
      for (const auto& [rack, nodes] : pending[t])
        if (next[t][rack] < nodes.size() && (!best || per_rack[static_cast<std::size_t>(rack)] <
                                                          per_rack[static_cast<std::size_t>(*best)]))
          best = rack;
      if (!best) continue;
      order.push_back(pending[t][*best][next[t][*best]++]);
      ++per_rack[static_cast<std::size_t>(*best)];
      added = true;
    }
  }
  return order;
}

std::vector<GpuId> gpus_of_nodes(const Cluster& cluster, std::span<const NodeId> nodes) {
  std::vector<GpuId> out;
  for (NodeId n : nodes) {
    const Node& node = cluster.nodes()[static_cast<std::size_t>(n)];
    for (int i = 0; i < node.gpu_count; ++i) out.push_back(node.first_gpu + i);
  }
  return out;
}

// "v100x4+p100x4": GPUs per type, types in order of first appearance.
std::string gpu_mix(const Cluster& cluster, std::span<const GpuId> gpus) {
  std::vector<std::pair<GpuTypeId, int>> counts;
  for (GpuId g : gpus) {
    const GpuTypeId t = cluster.type_of(g);
    auto it = std::find_if(counts.begin(), counts.end(), [t](const auto& c) { return c.first == t; });
    if (it == counts.end()) counts.emplace_back(t, 1);
    else ++it->second;
  }
  std::string out;
  for (const auto& [t, k] : counts)
    out += fmt::format("{}{}x{}", out.empty() ? "" : "+", cluster.gpu_types()[static_cast<std::size_t>(t)].name, k);
  return out;
}

// The job's row on `gpus` under one scheme; with background demands, its transfer runs at its
// max-min fair speed among them (the same rule as --network shared, docs/models.md).
ScalingRow price_point(const AnalyticModel& model, const JobSpec& job, std::span<const GpuId> gpus,
                       const std::vector<NetworkDemand>& background) {
  const auto step = model.step(job, gpus);
  if (!step || !(step->step_s > 0.0))
    throw InputError("", 0, "--job-type",
                     fmt::format("job type '{}' cannot run on {} GPUs of the chosen nodes", job.job_type, gpus.size()));
  ScalingRow row;
  row.gpus = static_cast<int>(gpus.size());
  row.choice = gpus.size() > 1 ? step->comm_choice : "-";
  row.compute_s = step->compute_s;
  row.comm_s = step->comm_s;
  row.step_s = step->step_s;
  const auto demand = background.empty() ? std::nullopt : model.network_demand(job, gpus);
  if (demand) {
    std::vector<std::vector<LinkBytes>> users{demand->use_bytes_per_s()};
    for (const NetworkDemand& d : background) users.push_back(d.use_bytes_per_s());
    const Topology& topo = *model.topology();
    const double speed = max_min_speeds(users, [&topo](LinkId l) { return topo.link_bytes_per_s(l); }).front();
    if (speed < 1.0) {  // at speed 1 the alone figures stand, bit for bit
      row.net_speed = speed;
      row.comm_s = demand->latency_s + demand->transfer_s / speed;
      row.step_s = static_cast<double>(gpus.size()) / demand->rate_at_speed(speed);
    }
  }
  row.throughput_iters_per_s = static_cast<double>(gpus.size()) / row.step_s;
  return row;
}

}  // namespace

std::vector<ScalingScheme> scaling_schemes(int ps_shards, std::span<const std::array<LevelSync, 3>> hybrids) {
  std::vector<ScalingScheme> out;
  for (CommAlgorithm a :
       {CommAlgorithm::ParameterServer, CommAlgorithm::Ring, CommAlgorithm::Hierarchical, CommAlgorithm::Auto}) {
    CommConfig c;
    c.algorithm = a;
    c.ps_shards = ps_shards;
    out.push_back({to_string(a), c});
  }
  for (const auto& levels : hybrids) {
    CommConfig c;
    c.algorithm = CommAlgorithm::Hybrid;
    c.ps_shards = ps_shards;
    c.levels = levels;
    out.push_back({levels_name(levels), c});
  }
  return out;
}

std::vector<NodeId> scaling_node_order(const Cluster& cluster, const AnalyticModel& model, const JobSpec& job,
                                       const std::string& order) {
  const auto step_s = single_gpu_step_s(cluster, model, job);
  std::vector<GpuTypeId> types;
  if (order == "mixed") {
    for (std::size_t t = 0; t < step_s.size(); ++t)
      if (step_s[t]) types.push_back(static_cast<GpuTypeId>(t));
    // Fastest type first, so the 1-node baseline is the job's best node.
    std::stable_sort(types.begin(), types.end(), [&](GpuTypeId a, GpuTypeId b) {
      return *step_s[static_cast<std::size_t>(a)] < *step_s[static_cast<std::size_t>(b)];
    });
    if (types.empty())
      throw InputError("", 0, "--job-type", fmt::format("job type '{}' runs on no GPU type of cluster {}",
                                                        job.job_type, cluster.name()));
  } else if (order.rfind("type:", 0) == 0) {
    const std::string name = order.substr(5);
    const auto t = cluster.find_gpu_type(name);
    if (!t) throw InputError("", 0, "--nodes-order", fmt::format("cluster {} has no GPU type '{}'", cluster.name(), name));
    if (!step_s[static_cast<std::size_t>(*t)])
      throw InputError("", 0, "--nodes-order",
                       fmt::format("job type '{}' cannot run on {} (no step time or gradient size)", job.job_type, name));
    types.push_back(*t);
  } else {
    throw InputError("", 0, "--nodes-order", fmt::format("'{}': expected mixed or type:NAME", order));
  }
  return round_robin_nodes(cluster, types);
}

std::vector<std::vector<GpuId>> background_placements(const Cluster& cluster, std::span<const NodeId> order,
                                                      int job_nodes, int count) {
  const auto job_count = std::clamp<std::ptrdiff_t>(job_nodes, 0, std::ssize(order));
  std::vector<NodeId> free(order.begin() + job_count, order.end());
  for (NodeId n = 0; n < static_cast<NodeId>(cluster.nodes().size()); ++n)
    if (std::find(order.begin(), order.end(), n) == order.end()) free.push_back(n);
  std::vector<std::vector<GpuId>> out;
  std::vector<bool> used(free.size(), false);
  auto rack = [&](std::size_t i) { return cluster.nodes()[static_cast<std::size_t>(free[i])].rack; };
  for (std::size_t a = 0; a < free.size() && std::ssize(out) < count; ++a) {
    if (used[a]) continue;
    for (std::size_t b = a + 1; b < free.size(); ++b)
      if (!used[b] && rack(b) != rack(a)) {
        used[a] = used[b] = true;
        const std::array<NodeId, 2> pair{free[a], free[b]};
        out.push_back(gpus_of_nodes(cluster, pair));
        break;
      }
  }
  if (std::ssize(out) < count)
    throw InputError("", 0, "--background",
                     fmt::format("{} background jobs need {} nodes outside the job's {} nodes, in pairs on two racks; "
                                 "cluster {} has {} such pairs (lower --max-nodes or --background)",
                                 count, 2 * static_cast<long long>(count), job_count, cluster.name(), out.size()));
  return out;
}

std::vector<ScalingRow> run_scaling(const Cluster& cluster, const SchemeModelMaker& make_model,
                                    const ScalingConfig& config) {
  if (config.max_nodes < 1 || config.max_nodes > std::ssize(config.node_order))
    throw InputError("", 0, "--max-nodes",
                     fmt::format("must be in [1, {}] (the nodes the order offers), got {}", config.node_order.size(),
                                 config.max_nodes));
  if (config.background_jobs < 0) throw InputError("", 0, "--background", "must be >= 0");
  CommConfig ring;
  ring.algorithm = CommAlgorithm::Ring;
  const auto ring_model = make_model(ring);
  if (auto problem = ring_model->check_job(config.job, cluster)) throw InputError("", 0, "--job-type", *problem);
  // Each background job runs the experiment's job type as a ring over its two nodes.
  std::vector<NetworkDemand> background;
  if (config.background_jobs > 0)
    for (const auto& gpus : background_placements(cluster, config.node_order, config.max_nodes, config.background_jobs)) {
      auto d = ring_model->network_demand(config.job, gpus);
      if (!d)
        throw InputError("", 0, "--background",
                         fmt::format("job type '{}' cannot run on a background job's GPUs {}..{}", config.job.job_type,
                                     gpus.front(), gpus.back()));
      background.push_back(std::move(*d));
    }
  std::vector<int> settings{0};
  if (config.background_jobs > 0) settings.push_back(config.background_jobs);
  std::vector<ScalingRow> rows;
  for (int k : settings) {
    const std::vector<NetworkDemand> sharing = k == 0 ? std::vector<NetworkDemand>{} : background;
    for (const ScalingScheme& scheme : config.schemes) {
      const auto model = make_model(scheme.comm);
      double one_node = 0.0;
      for (int n = 1; n <= config.max_nodes; ++n) {
        const auto nodes = std::span<const NodeId>(config.node_order).first(static_cast<std::size_t>(n));
        const std::vector<GpuId> gpus = gpus_of_nodes(cluster, nodes);
        ScalingRow row = price_point(*model, config.job, gpus, sharing);
        row.nodes = n;
        row.gpu_mix = gpu_mix(cluster, gpus);
        row.background = k;
        row.scheme = scheme.name;
        if (n == 1) one_node = row.throughput_iters_per_s;
        row.speedup = row.throughput_iters_per_s / one_node;
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

void write_scaling_csv(std::ostream& out, std::span<const ScalingRow> rows) {
  out << "nodes,gpus,gpu_mix,background,scheme,choice,compute_s,comm_s,step_s,net_speed,throughput_iters_per_s,"
         "speedup\n";
  for (const ScalingRow& r : rows)
    out << fmt::format("{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.6g},{:.9g},{:.6f}\n", r.nodes, r.gpus,
                       csv_cell(r.gpu_mix), r.background, csv_cell(r.scheme), csv_cell(r.choice), r.compute_s,
                       r.comm_s, r.step_s, r.net_speed, r.throughput_iters_per_s, r.speedup);
}

}  // namespace hetsim
