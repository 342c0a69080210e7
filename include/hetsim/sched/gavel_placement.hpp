#pragma once
/// Gavel's exact-GPU placement of one round (stanford-futuredata/gavel, scheduler/scheduler.py:
/// _assign_workers_to_job and the server walk of _schedule_jobs_on_workers), re-implemented as a
/// placement of its own: the round mechanism chooses which jobs run on which GPU type, this picks
/// their GPUs.
#include <map>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Jobs chosen for one GPU type in one round, as (job, GPUs it needs), in the order chosen.
using RoundChoice = std::vector<std::pair<JobIndex, int>>;

/// Places the jobs chosen per type (`chosen[type]`), types in `type_order`. Per type, jobs by GPU
/// count descending (stable); for each count, first every job keeps last round's GPUs (`previous`)
/// when they are of this type and none is taken yet; then the others get GPUs walking the type's
/// servers in cluster order; only jobs with a row in `allocation` (Gavel's X) take new GPUs. A job that cannot get all its GPUs gets none (never half-placed).
std::map<JobIndex, std::vector<GpuId>> gavel_place_round(const Cluster& cluster,
                                                          const std::vector<std::size_t>& type_order,
                                                          std::vector<RoundChoice> chosen,
                                                          const std::map<JobIndex, std::vector<GpuId>>& previous,
                                                          const std::map<JobIndex, std::vector<double>>& allocation);

}  // namespace hetsim
