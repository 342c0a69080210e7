#pragma once
// Private helper of the heet policy (src/policy/heet.cpp): jobs that ask for more GPUs than the
// largest host. The Heet prototype (mozizhao/elastic, our_scheduler.py) caps every job at one host
// (all_job_limit = 4), so a 64-GPU job of an ITP trace ran on 4 GPUs, 16x slower; here such a
// "wide" job gets its requested count on several hosts of one GPU type. Ours, not the paper's.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetsim/policy/policy.hpp"

namespace hetsim {

/// A wide job's GPUs for this round.
struct WidePlacement {
  JobIndex job = 0;
  GpuTypeId type = 0;
  std::vector<GpuId> gpus;
};

/// Rate of `job` on `count` GPUs of `type` taken host by host in node order (the hosts a wide job
/// fills first), by the planning model on those exact GPUs: a model with a topology (analytic)
/// charges the all-reduce across the hosts' NICs and uplinks.
double heet_spanning_rate(const PolicyView& ctx, const JobSpec& job, GpuTypeId type, int count);

/// GPUs of the cluster's largest host (jobs asking for more are wide).
int largest_host(const Cluster& cluster);

/// `count` GPUs of `type` not in `taken`: hosts with the most such GPUs (and not in `held`) first,
/// so whole hosts before pieces; sorted. Fewer when the type has fewer left.
std::vector<GpuId> heet_pick_gpus(const Cluster& cluster, GpuTypeId type, int count, const std::vector<char>& taken,
                                  const std::vector<char>& held);

/// A job's rates on n = 0..largest host GPUs of one host of each type: [type][n], as
/// PolicyView::rate_on_type gives them for n up to the type's host size (0 beyond).
using HeetRateTable = std::vector<std::vector<double>>;

/// Places the wide jobs among `active` (requested GPUs > the largest host) on whole hosts first,
/// in order of heet's weight remaining x T(w)^2 / T(1) on their best type (ties: job index); a
/// running wide job keeps its GPUs while none of them went to an earlier job. Marks their GPUs in
/// `taken` (indexed by GpuId) and returns the other active jobs in `narrow`, in `active` order.
/// `table(j)` is job j's rate table (kept by the policy, so the model is not asked every round).
class HeetWidePlacer {
 public:
  using TableOf = std::function<const HeetRateTable&(JobIndex)>;
  /// GPUs already marked in `taken` on entry (the tail rule's reservations) are not available.
  std::vector<WidePlacement> place(const PolicyView& ctx, const std::vector<JobIndex>& active, const TableOf& table,
                                   std::vector<char>& taken, std::vector<JobIndex>& narrow, bool* steady = nullptr);

  /// Job j's rate on its requested count spanning hosts, per GPU type (heet_spanning_rate), kept:
  /// the model's rate does not change with progress for the models heet plans with. The reference
  /// lives until the next call (the table grows by job index).
  const std::vector<double>& rates(const PolicyView& ctx, JobIndex j);

 private:
  std::vector<std::vector<double>> rates_;  // [job][type], empty = not computed
};

}  // namespace hetsim
