#pragma once
/// A directed network link, named by id, and bytes over it: the vocabulary shared by the topology
/// (cluster/topology.hpp), the communication models and the shared-network model.
#include <cstddef>

namespace hetsim {

/// A directed link of the topology tree: id 2*v is the link from vertex v up to its parent,
/// 2*v+1 the link from the parent down to v (v is never the spine).
using LinkId = std::size_t;

/// Bytes over one directed link (per step, or per second, as the user says).
struct LinkBytes {
  LinkId link = 0;
  double bytes = 0.0;
};

}  // namespace hetsim
