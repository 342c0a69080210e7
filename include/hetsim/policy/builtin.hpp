#pragma once
/// Registration hooks of the built-in policies: each policy file defines one, and
/// make_default_registry() calls them in a fixed order (registration order = listing order).
#include "hetsim/policy/registry.hpp"

namespace hetsim {

/// fifo: strict arrival order, no backfilling (src/policy/fifo.cpp).
void register_fifo(PolicyRegistry& registry);
/// srtf: preemptive shortest remaining time first (src/policy/srtf.cpp).
void register_srtf(PolicyRegistry& registry);
/// heet: Heet's slot matching and resource trading (src/policy/heet.cpp).
void register_heet(PolicyRegistry& registry);
/// srsf: the Heet prototype's SRSF baseline (src/policy/srsf.cpp).
void register_srsf(PolicyRegistry& registry);
/// afs: AFS marginal-throughput sharing, heterogeneous as in Heet's baseline (src/policy/afs.cpp).
void register_afs(PolicyRegistry& registry);

}  // namespace hetsim
