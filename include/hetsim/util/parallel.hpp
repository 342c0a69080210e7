#pragma once
/// A minimal thread pool for independent runs: experiments run whole simulations in parallel, each
/// on its own inputs, so a shared work counter is all the coordination needed.
#include <cstddef>
#include <functional>

namespace hetsim {

/// Calls body(i) for every i in [0, count) on min(threads, count) threads (threads < 1 counts as
/// 1; 1 runs inline). Indices are handed out in increasing order; completion order is unspecified,
/// so callers store results by index to keep output order deterministic. If bodies throw, every
/// index still runs and the exception of the lowest failing index is rethrown at the end.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body);

}  // namespace hetsim
