#pragma once
/// Registration hooks of the built-in policies: each policy file defines one, and
/// make_default_registry() calls them in a fixed order (registration order = listing order).
#include "hetsim/policy/registry.hpp"

namespace hetsim {

/// fifo: strict arrival order, no backfilling (src/policy/fifo.cpp).
void register_fifo(PolicyRegistry& registry);
/// srtf: preemptive shortest remaining time first (src/policy/srtf.cpp).
void register_srtf(PolicyRegistry& registry);

}  // namespace hetsim
