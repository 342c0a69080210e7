#pragma once
/// A small seeded workload hetsim generates itself, so `hetsim run` works with no input files.
#include <cstdint>

#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Parameters of the built-in generator.
struct SyntheticWorkloadConfig {
  int jobs = 60;                  ///< number of jobs
  double mean_interarrival_s = 600.0;  ///< Poisson arrivals with this mean gap
  double min_duration_s = 300.0;  ///< durations log-uniform in [min, max]
  double max_duration_s = 4.0 * 3600.0;
  std::uint64_t seed = 0;
};

/// Poisson arrivals; GPU counts 1/2/4/8 with probabilities 0.70/0.15/0.10/0.05 (roughly the
/// Philly mix of Jeon et al., ATC'19); work in reference seconds (duration model). Deterministic
/// for a seed: uses std::mt19937_64 and hand-written draws (no std::*_distribution, whose output
/// differs between standard libraries).
Workload make_synthetic_workload(const SyntheticWorkloadConfig& config);

}  // namespace hetsim
