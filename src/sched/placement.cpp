#include "hetsim/sched/placement.hpp"

namespace hetsim {

PlacementRegistry make_default_placement_registry() {
  PlacementRegistry r("placement");
  r.add({"consolidate",
         "fewest nodes, then fewest racks, best fit (keeps traffic off NICs and whole nodes free)",
         "Gavel's and Tiresias's consolidated placement",
         {},
         [](std::uint64_t) { return std::make_unique<ConsolidatePlacement>(); }});
  r.add({"spread", "one GPU per node per pass, nodes with the most free GPUs first, alternating racks",
         "load-balancing placement (Tiresias-style spread); the communication worst case", {},
         [](std::uint64_t) { return std::make_unique<SpreadPlacement>(); }});
  r.add({"topology-aware", "the candidate placement with the highest rate predicted by the run's throughput model",
         "hetsim (weighs NIC and uplink bottlenecks with --model analytic)", {},
         [](std::uint64_t) { return std::make_unique<TopologyAwarePlacement>(); }});
  r.add({"network-aware",
         "under --network shared, the candidate with the least slowdown to itself and to the jobs it shares links with",
         "hetsim; contention-aware placement as argued by CASSINI (NSDI'24) and Crux (SIGCOMM'24)", {},
         [](std::uint64_t) { return std::make_unique<NetworkAwarePlacement>(); }});
  r.add({"yarn",
         "a job of up to one node's GPUs on the first node with room; larger: whole idle nodes, then the rest on one node",
         "Tiresias' simulator, scheme 'yarn' (Gu et al., NSDI'19; SymbioticLab/Tiresias simulator/switch.py)", {},
         [](std::uint64_t) { return std::make_unique<YarnPlacement>(); }});
  r.add({"random", "uniformly random free GPUs of the type, seeded by --seed and the job id", "baseline", {},
         [](std::uint64_t seed) { return std::make_unique<RandomPlacement>(seed); }});
  return r;
}

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, std::uint64_t seed) {
  const PlacementRegistry registry = make_default_placement_registry();
  const PlacementInfo* info = registry.find(name);
  return info ? info->make(seed) : nullptr;
}

std::vector<std::string> placement_names() { return make_default_placement_registry().names(); }

}  // namespace hetsim
