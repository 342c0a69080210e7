#pragma once
/// Gavel's exact-GPU placement of one round (stanford-futuredata/gavel, scheduler/scheduler.py:
/// _assign_workers_to_job and the server walk of _schedule_jobs_on_workers), re-implemented as a
/// placement of its own: the round mechanism chooses which jobs run on which GPU type, this picks
/// their GPUs.
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// Jobs chosen for one GPU type in one round, as (job, GPUs it needs), in the order chosen.
using RoundChoice = std::vector<std::pair<JobIndex, int>>;

/// One job's GPUs for a round.
struct RoundPlacement {
  JobIndex job = 0;
  std::vector<GpuId> gpus;
};

/// The placement of every round of a run. It keeps its working memory from round to round: a
/// round runs every 360 s of simulated time, and allocating per round (a list per server, a flag
/// per GPU, a map of placements) cost more than the placement itself (issue 19).
class GavelPlacement {
 public:
  explicit GavelPlacement(const Cluster& cluster);

  /// Places the jobs chosen per type (`chosen[type]`, reordered in place), types in `type_order`.
  /// Per type, jobs by GPU count descending (stable); for each count, first every job keeps last
  /// round's GPUs (`previous[job]`, nullptr = it ran nowhere) when they are of this type and none
  /// is taken yet; then the others get GPUs walking the type's servers in cluster order; only jobs
  /// with a row in `allocation` (Gavel's X) take new GPUs. A job that cannot get all its GPUs gets
  /// none (never half-placed). Returns the placements in job order, valid until the next call.
  const std::vector<const RoundPlacement*>& place(const std::vector<std::size_t>& type_order,
                                                  std::vector<RoundChoice>& chosen,
                                                  const std::vector<const std::vector<GpuId>*>& previous,
                                                  const std::map<JobIndex, std::vector<double>>& allocation);

  /// The GPUs the last place() gave job `j`, or nullptr.
  const std::vector<GpuId>* find(JobIndex j) const;

 private:
  std::vector<GpuId>& entry(JobIndex j);  // j's placement of this round, created empty
  void drop(JobIndex j);
  void place_type(std::size_t type, RoundChoice& list, const std::vector<const std::vector<GpuId>*>& previous,
                  const std::map<JobIndex, std::vector<double>>& allocation);

  const Cluster& cluster_;
  std::vector<std::vector<NodeId>> servers_;  // [type]: its nodes in cluster order
  std::vector<char> assigned_;                // [GPU]: taken this type; all 0 between types
  std::vector<GpuId> marked_;                 // the GPUs set in assigned_, to clear them
  std::vector<std::size_t> front_;            // [server of the type]: next GPU to try
  std::vector<RoundPlacement> pool_;          // entries [0, used_) hold this round's placements
  std::size_t used_ = 0;
  std::vector<int> entry_of_job_;             // [job]: index in pool_, -1 = none
  std::vector<const RoundPlacement*> result_;
};

}  // namespace hetsim
