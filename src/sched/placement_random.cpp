// random: uniformly random free GPUs of the requested type, the baseline of placement studies
// (e.g. the "random" placement in Tiresias, Gu et al., NSDI 2019). Seeded per run and job.
#include <algorithm>
#include <cassert>
#include <limits>
#include <random>

#include "hetsim/sched/placement.hpp"
#include "placement_util.hpp"

namespace hetsim {
namespace {

// FNV-1a, 64 bit: a stable hash of the job id (std::hash is not stable across libraries).
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

// Uniform integer in [0, bound) by rejection, so no modulo bias (std distributions differ between
// standard libraries, which would break byte-identical outputs).
std::uint64_t draw_below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % bound;
}

}  // namespace

std::vector<GpuId> RandomPlacement::place(const ClusterState& state, const JobSpec& job, GpuTypeId type, int count,
                                          const ThroughputModel&) const {
  std::vector<GpuId> out;
  if (count <= 0 || state.free_of_type(type) < count) return out;
  std::vector<GpuId> free;
  for (NodeId n : placement_detail::nodes_with_free(state, type))
    placement_detail::take_free_gpus(state, n, state.free_on_node(n), free);
  std::mt19937_64 rng(seed_ ^ fnv1a(job.id));
  // Partial Fisher-Yates: the first `count` entries become a uniform sample.
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    const std::size_t j = i + static_cast<std::size_t>(draw_below(rng, free.size() - i));
    std::swap(free[i], free[j]);
  }
  out.assign(free.begin(), free.begin() + count);
  std::sort(out.begin(), out.end());
  assert(placement_detail::distinct(out));
  return out;
}

}  // namespace hetsim
