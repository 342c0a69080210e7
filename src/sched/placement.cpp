#include "hetsim/sched/placement.hpp"

namespace hetsim {

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, std::uint64_t seed) {
  if (name == "consolidate") return std::make_unique<ConsolidatePlacement>();
  if (name == "spread") return std::make_unique<SpreadPlacement>();
  if (name == "topology-aware") return std::make_unique<TopologyAwarePlacement>();
  if (name == "random") return std::make_unique<RandomPlacement>(seed);
  return nullptr;
}

std::vector<std::string> placement_names() { return {"consolidate", "spread", "topology-aware", "random"}; }

}  // namespace hetsim
