#include "hetsim/workload/synthetic.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <random>

#include "hetsim/util/random.hpp"

namespace hetsim {

Workload make_synthetic_workload(const SyntheticWorkloadConfig& config) {
  std::mt19937_64 rng(config.seed);
  Workload w;
  w.source = fmt::format("builtin:synthetic(jobs={},seed={})", config.jobs, config.seed);
  const auto source_file = std::make_shared<const std::string>(w.source);  // one copy for all jobs
  w.format = "synthetic";
  double t = 0.0;
  for (int i = 0; i < config.jobs; ++i) {
    if (i > 0) t += -std::log(1.0 - uniform01(rng)) * config.mean_interarrival_s;
    double u = uniform01(rng);
    int gpus = u < 0.70 ? 1 : u < 0.85 ? 2 : u < 0.95 ? 4 : 8;
    double lo = std::log(config.min_duration_s), hi = std::log(config.max_duration_s);
    double duration = std::round(std::exp(lo + (hi - lo) * uniform01(rng)));
    JobSpec job;
    job.id = fmt::format("job-{}", i);
    job.submit = SimTime::from_seconds(std::round(t));
    job.requested_gpus = job.min_gpus = job.max_gpus = gpus;
    job.work = duration;
    job.unit = WorkUnit::ReferenceSeconds;
    job.source_file = source_file;
    job.source_line = static_cast<std::size_t>(i + 1);
    w.jobs.push_back(std::move(job));
  }
  return w;
}

}  // namespace hetsim
