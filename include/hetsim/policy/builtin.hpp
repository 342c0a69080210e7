#pragma once
/// Registration hooks of the built-in policies: each policy file defines one, and
/// make_default_registry() calls them in a fixed order (registration order = listing order).
#include "hetsim/policy/registry.hpp"

namespace hetsim {

/// fifo: strict arrival order, no backfilling (src/policy/fifo.cpp).
void register_fifo(PolicyRegistry& registry);
/// srtf: preemptive shortest remaining time first (src/policy/srtf.cpp).
void register_srtf(PolicyRegistry& registry);
/// tiresias: discretized 2D-LAS as in the Pollux simulator (src/policy/tiresias.cpp).
void register_tiresias(PolicyRegistry& registry);
/// optimus: greedy marginal-gain allocation, Optimus+Oracle (src/policy/optimus.cpp).
void register_optimus(PolicyRegistry& registry);
/// pollux: goodput-maximising elastic allocation (src/policy/pollux.cpp).
void register_pollux(PolicyRegistry& registry);

}  // namespace hetsim
