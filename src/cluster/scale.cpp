#include <fmt/format.h>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {

Cluster scale_cluster(const Cluster& cluster, int copies) {
  if (copies < 1) throw InputError("", 0, "cluster_scale", "must be at least 1");
  if (static_cast<long long>(cluster.total_gpus()) * copies > kMaxClusterGpus)
    throw InputError("", 0, "cluster_scale",
                     fmt::format("{} copies of {} GPUs exceed the limit of {} GPUs per cluster", copies,
                                 cluster.total_gpus(), kMaxClusterGpus));
  std::vector<Node> nodes;
  nodes.reserve(cluster.nodes().size() * static_cast<std::size_t>(copies));
  // Copies of one node sit next to it, so GPU ids keep the original node order by type and rack.
  for (const Node& node : cluster.nodes())
    for (int k = 0; k < copies; ++k) {
      Node copy = node;
      if (k > 0) copy.name = fmt::format("{}#{}", node.name, k);
      nodes.push_back(std::move(copy));
    }
  const std::string name = fmt::format("{}x{}", cluster.name(), copies);
  return Cluster(name, cluster.gpu_types(), cluster.racks(), std::move(nodes), name);
}

}  // namespace hetsim
