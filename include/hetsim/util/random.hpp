#pragma once
/// Platform-independent random draws. std::*_distribution output differs between standard
/// libraries, so every seeded generator in hetsim draws through these helpers from std::mt19937_64.
#include <cstdint>
#include <random>

namespace hetsim {

/// Uniform double in [0, 1) from the top 53 bits of one draw: identical on every platform.
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// Derives an independent seed for a named stream of a run (SplitMix64 finaliser of seed + salt),
/// so two streams of one seed (arrivals, job attributes) do not share draws.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t salt) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (salt + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace hetsim
