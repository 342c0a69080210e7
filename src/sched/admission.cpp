#include "hetsim/sched/admission.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hetsim/perf/type_constraint.hpp"

namespace hetsim {

namespace {

std::optional<std::string> why_never_runs(const JobSpec& spec, const Cluster& cluster, const ThroughputModel& model) {
  if (!spec.invalid_reason.empty()) return spec.invalid_reason;
  if (!(spec.submit.seconds() <= kMaxSimSeconds))
    return fmt::format("job {} arrives at {:.3g} s, beyond the simulation horizon of {:.0e} s", spec.id,
                       spec.submit.seconds(), kMaxSimSeconds);
  // Readers already reject these with file:line; jobs built in code reach here unchecked.
  if (!(spec.priority_weight > 0.0))
    return fmt::format("job {}: priority weight must be positive (got {})", spec.id, spec.priority_weight);
  if (auto reason = model.check_job(spec, cluster)) return reason;
  if (spec.requested_gpus > cluster.total_gpus())
    return fmt::format("job {} requests {} GPUs; cluster '{}' has {}", spec.id, spec.requested_gpus, cluster.name(),
                       cluster.total_gpus());
  // A job limited to some GPU types (OpenB's gpu_spec) is measured against those only, and the
  // message says so: "the largest type has 16" misleads when that type is not allowed.
  const bool limited = !spec.allowed_gpu_types.empty();
  int largest = 0;
  double fastest_rate = 0.0;  // over the types that can hold the request (the job may run on any)
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
    auto type = static_cast<GpuTypeId>(t);
    if (limited && !type_allowed(spec, cluster, type)) continue;
    int have = cluster.gpus_of_type(type);
    largest = std::max(largest, have);
    if (have < spec.requested_gpus) continue;
    AllocationShape shape{type, spec.requested_gpus, spec.requested_gpus <= cluster.max_gpus_per_node(type)};
    fastest_rate = std::max(fastest_rate, model.rate(spec, shape));
  }
  if (fastest_rate > 0.0) {
    // Measured from its arrival: a job that arrives at the horizon (1e12 s exactly) with work to do
    // could never finish either. Shortest round-trip digits: "{:.3g}" printed 1.0000001e12 as 1e+12.
    const double needed_s = spec.work / fastest_rate;
    if (!(spec.submit.seconds() + needed_s <= kMaxSimSeconds))
      return fmt::format("job {} arrives at {} s and needs {} s even on its fastest GPU type: it would finish "
                         "beyond the simulation horizon of {:.0e} s (work {:.3g} {} at {:.3g}/s)",
                         spec.id, spec.submit.seconds(), needed_s, kMaxSimSeconds, spec.work, to_string(spec.unit),
                         fastest_rate);
    return std::nullopt;
  }
  if (limited && largest < spec.requested_gpus)
    return fmt::format("job {} requests {} GPUs of one type; of the GPU types its gpu_spec allows ({}), cluster '{}' "
                       "has at most {}",
                       spec.id, spec.requested_gpus, fmt::join(spec.allowed_gpu_types, "|"), cluster.name(), largest);
  if (largest < spec.requested_gpus)
    return fmt::format("job {} requests {} GPUs of one type; the largest GPU type of cluster '{}' has {}", spec.id,
                       spec.requested_gpus, cluster.name(), largest);
  return fmt::format("job {} has zero throughput on {} GPUs of every GPU type with that many GPUs", spec.id,
                     spec.requested_gpus);
}

}  // namespace

std::optional<std::string> admission_error(const JobSpec& spec, const Cluster& cluster, const ThroughputModel& model) {
  auto reason = why_never_runs(spec, cluster, model);
  if (!reason || !spec.source_file || spec.source_file->empty()) return reason;
  // Point the user at the trace row (reasons found while reading already start with it).
  std::string where = fmt::format("{}:{}: ", *spec.source_file, spec.source_line);
  if (reason->rfind(where, 0) != 0) *reason = where + *reason;
  return reason;
}

}  // namespace hetsim
