// fifo-perf: heterogeneity-aware FIFO, Gavel's FIFO_Perf (Narayanan et al., OSDI'20;
// stanford-futuredata/gavel, scheduler/policies/fifo.py, FIFOPolicyWithPerf): arrival order,
// each job on the GPU type with the highest throughput among those with room, the head blocks.
// Allocation form only: it runs under the round-based time-sharing mechanism.
#include "gavel_fifo.hpp"
#include "hetsim/policy/builtin.hpp"

namespace hetsim {

void register_fifo_perf(PolicyRegistry& registry) {
  PolicyInfo info{"fifo-perf",
                  "heterogeneity-aware FIFO: arrival order, each job on its fastest type with room; the head blocks",
                  "Gavel FIFO_Perf (Narayanan et al., OSDI'20)",
                  {},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams&, std::uint64_t seed) {
    return make_gavel_fifo_allocation(true, seed);
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
