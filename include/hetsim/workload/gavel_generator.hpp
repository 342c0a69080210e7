#pragma once
/// A synthetic workload generator in the style of Gavel's (Narayanan et al., OSDI'20;
/// stanford-futuredata/gavel, scheduler/utils.py generate_job and scheduler.py simulate), so load
/// sweeps need no trace file.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Settings of the Gavel-style generator (spec keys `generator.*`, docs/experiment-spec.md).
struct GavelWorkloadConfig {
  int jobs = 1000;               ///< number of jobs generated
  double jobs_per_hour = 4.0;    ///< Poisson arrival rate (Gavel's "lam" is the mean gap 3600 / rate s)
  bool multi_gpu = true;         ///< draw GPU counts from the Philly mix; false = every job on 1 GPU
  std::string reference_gpu = "v100";  ///< durations become steps at this type's measured rate
  std::uint64_t seed = 0;
};

/// One job type the generator can draw: measured steps/s on the reference GPU per scale factor.
struct GeneratorJobType {
  std::string name;                      ///< Gavel job key, e.g. "ResNet-18 (batch size 16)"
  std::map<int, double> steps_per_s;     ///< scale factor -> steps/s (only factors with rate > 0)
};

/// Reads the job types of a Gavel throughput table (GAVEL-TPUT JSON) as measured on
/// `reference_gpu` ("null" = isolated throughput). Sorted by name. Throws InputError naming the file
/// when the file is unreadable, has no such GPU type, or holds a malformed key or rate.
std::vector<GeneratorJobType> read_generator_job_types(const std::string& throughputs_path,
                                                       const std::string& reference_gpu);

/// Draws the workload. Job i: arrival = 0 for the first job, then exponential gaps with mean
/// 3600 / jobs_per_hour s; GPU count 1/2/4/8 with probabilities 0.70/0.10/0.15/0.05 (Gavel's
/// Philly-derived scale factors; 1 when multi_gpu is false); duration (s) 60 * 10^U(1.5, 3) with
/// probability 0.8, else 60 * 10^U(3, 4) (Gavel's Philly durations: 31.6 min to 16.7 h, and 16.7 h
/// to 6.9 days); job type uniform among `types` with a rate for that GPU count (Gavel redraws until
/// one fits: the same distribution); work = duration * steps/s in iterations. Arrivals and job
/// attributes come from two independent streams of the seed, so changing the rate moves arrivals
/// but keeps the same jobs. Deterministic for a seed (mt19937_64, hand-written draws). Throws
/// InputError (field "generator.*") for a non-positive job count or rate, or when no type has a
/// 1-GPU rate.
Workload make_gavel_workload(const GavelWorkloadConfig& config, const std::vector<GeneratorJobType>& types,
                             const std::string& source);

}  // namespace hetsim
