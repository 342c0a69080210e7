#pragma once
/// Admission: why a job can never run on a cluster under a throughput model (shared by the
/// mechanisms).
#include <optional>
#include <string>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// The reason `spec` must be rejected at admission (invalid trace row, including a priority weight
/// <= 0; unknown to the model; more GPUs than the cluster or any one type has; zero throughput on
/// every type with enough GPUs), or nullopt when it can run. The reason starts with the job's
/// trace file and line when the job came from a file.
std::optional<std::string> admission_error(const JobSpec& spec, const Cluster& cluster, const ThroughputModel& model);

}  // namespace hetsim
