#pragma once
// Private to src/policy/: the allocation form of FIFO shared by `fifo` and `fifo-perf`.
#include <cstdint>
#include <memory>

#include "hetsim/policy/allocation.hpp"

namespace hetsim {

/// Gavel's FIFO allocation (scheduler/policies/fifo.py). `perf` = FIFO_Perf (fastest type,
/// allocation rebuilt on every call); otherwise base FIFO (sticky allocation, random draws with
/// CPython's generator seeded with `seed`).
std::unique_ptr<AllocationPolicy> make_gavel_fifo_allocation(bool perf, std::uint64_t seed);

}  // namespace hetsim
