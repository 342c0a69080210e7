#pragma once
/// Allocation policies: Gavel-style policies that answer with a matrix X[job][gpu type] = fraction
/// of wall time the job should spend on that type (Narayanan et al., "Heterogeneity-Aware Cluster
/// Scheduling Policies for Deep Learning Workloads", OSDI'20). The round-based time-sharing
/// mechanism (sched/gavel_mechanism.hpp) turns X into per-round placements.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/policy.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// One active job as an allocation policy sees it (a copy: policies cannot touch the simulation).
struct AllocationJob {
  JobIndex job = 0;
  const JobSpec* spec = nullptr;
  int scale_factor = 1;                ///< GPUs it needs at a time (rigid)
  double priority_weight = 1.0;        ///< > 0 (admission rejects the rest)
  std::vector<double> throughput;      ///< [type] work units/s on scale_factor GPUs of the type; 0 = cannot run there
  double remaining_work = 0.0;         ///< in spec->unit
  double age_s = 0.0;                  ///< now - submit
  int current_type = -1;               ///< type it ran on in the last round, -1 = none
  int placement_changes = 0;           ///< times its placement changed (first start included)
};

/// A pair of active jobs that may share the same GPUs (space sharing, Gavel OSDI'20 section 3.1;
/// Gavel's JobIdPair combinations): same scale factor, and the throughput model has a pair rate
/// for them on some type. Only in views for policies whose packing() is true.
struct AllocationPair {
  std::size_t first = 0, second = 0;  ///< rows of AllocationView::jobs, first < second
  std::vector<double> first_rate;     ///< [type] work units/s of `first` while sharing; 0 = not there
  std::vector<double> second_rate;    ///< [type] the same of `second`
};

/// X[row][type], one row per AllocationView::jobs entry.
using AllocationMatrix = std::vector<std::vector<double>>;

/// Read-only input of one allocation computation. `jobs` are in arrival order.
struct AllocationView {
  SimTime now;
  /// The same read-only view event policies get (every job's state, free GPUs, the model), for
  /// allocation policies that need more than the rows below. Valid during allocate() only.
  const PolicyView* base = nullptr;
  std::vector<std::string> type_names;  ///< [type]
  std::vector<int> gpus_per_type;       ///< [type] GPUs in the cluster
  std::vector<AllocationJob> jobs;
  /// Job pairs that may share GPUs (empty unless the policy packs), in (first, second) order.
  std::vector<AllocationPair> pairs;
  /// The caller's last X, which it no longer needs: zero_allocation() takes its rows' memory, so a
  /// policy that answers thousands of times per run allocates no rows (issue 19). May be null.
  AllocationMatrix* spare_x = nullptr;
};

/// An all-zero X for `view` (a row of view.gpus_per_type.size() zeros per job), built in
/// view.spare_x's memory when the caller left one.
AllocationMatrix zero_allocation(const AllocationView& view);

/// A view of `cluster`'s GPU types (names, GPUs per type) at `now`, without jobs: where the round
/// mechanism and gavel-maxmin's goodput form (policy/gavel_goodput.cpp) both start.
AllocationView allocation_view_of(const Cluster& cluster, SimTime now, const PolicyView* base);

/// Job `j`'s row as Gavel's policies see it: rigid at its requested GPUs with its priority weight,
/// `throughput` per type, the type it runs on now (-1 = not running).
AllocationJob allocation_row(JobIndex j, const JobRuntime& job, std::vector<double> throughput, double remaining_work,
                             double age_s, int placement_changes);

/// What a policy returns. When `ok` is false the mechanism reports `failure` and uses
/// isolated_allocation() instead of `x`.
struct AllocationResult {
  AllocationMatrix x;
  /// Packing policies: X[pair][type] for AllocationView::pairs (the time share the pair runs
  /// together on the type); empty = no pair shares.
  AllocationMatrix pair_x;
  bool ok = true;
  std::string failure;
  double solver_s = 0.0;  ///< wall time in the LP/ILP solver for this computation
  int solves = 0;         ///< LP/ILP solves made
  /// Solves whose MIP search stopped at its node limit (deterministic; the best incumbent was used).
  int node_limit_hits = 0;
  /// Solves stopped by a wall-time safety net: the answer then depends on machine speed and load.
  int time_limit_hits = 0;
  /// A note on this computation's inputs for the user (shown once per run as a warning), e.g.
  /// priority weights too far apart for the solver's precision.
  std::string warning;
};

/// An allocation policy. Implementations: one file per policy under src/policy/.
class AllocationPolicy {
 public:
  virtual ~AllocationPolicy() = default;
  virtual std::string name() const = 0;
  /// Computes X for the active jobs. Must not throw for solver trouble: report it in the result.
  virtual AllocationResult allocate(const AllocationView& view) = 0;
  /// True: recompute X every round (Sia). False: Gavel's rule (on a change in the active set, at
  /// most once per the mechanism's reset interval).
  virtual bool every_round() const { return false; }
  /// True: use a fixed GPU-type order each round (Gavel's "_Perf" policies); false: shuffle the
  /// type order every round with the run seed (Gavel's heterogeneity-agnostic policies).
  virtual bool fixed_type_order() const { return true; }
  /// True: a job with priority 0 on a type is never scheduled there (Gavel's FIFO rule); false:
  /// leftover GPUs go to zero-priority jobs too (work conservation, Gavel's LP policies).
  virtual bool skip_zero_priority() const { return false; }
  /// The policy's own admission test, asked for a job that arrives and passes the run's checks: a
  /// reason rejects the job at its arrival (jobs.csv `reason`, exit code 3) instead of stopping
  /// the run later (allox takes 1-GPU jobs only); nullopt admits it.
  virtual std::optional<std::string> reject_at_arrival(const JobSpec& /*job*/) const { return std::nullopt; }
  /// True: the policy allocates job pairs as well (AllocationView::pairs, AllocationResult::pair_x)
  /// and the mechanism runs scheduled pairs on the same GPUs (Gavel's packed policies).
  virtual bool packing() const { return false; }
  /// True: between two computations of X the policy's answer depends on nothing the mechanism
  /// does not see (X, the active set, Gavel's priorities), so the round mechanism may skip, by
  /// arithmetic, rounds in which no job arrives, finishes or changes its allocation and whose
  /// choice is provably the same (docs/policies.md, "Round skipping"). False (the default, e.g.
  /// Python policies): every round is run in full.
  virtual bool steady_rounds_skippable() const { return false; }
};

/// Gavel's isolated allocation (policies/isolated.py): every job gets an equal 1/N share of every
/// type, x[i][t] = G_t / (N s_i), rows scaled to sum <= 1; zero on types where the job has zero
/// throughput. The documented safe fallback when a solver fails.
AllocationMatrix isolated_allocation(const AllocationView& view);
/// Throughput of each job under isolated_allocation (sum_t T[i][t] x[i][t]).
std::vector<double> isolated_throughputs(const AllocationView& view);
/// Gavel's proportional-share throughput (policies/proportional.py): sum_t T[i][t] G_t / sum G.
std::vector<double> proportional_throughputs(const AllocationView& view);
/// Clips X into the feasible set: entries in [0, 1], 0 where throughput is 0 or NaN, rows summing
/// to <= 1, and per-type GPU use sum_i s_i x[i][t] <= G_t (scaled down when a solver's round-off
/// overshoots). With `scale_to_fit` false only the entry-wise clipping is done (the mechanism uses
/// X as priority weights, as Gavel does, so it must not rescale a policy's X). Returns the matrix.
AllocationMatrix sanitize_allocation(const AllocationView& view, AllocationMatrix x, bool scale_to_fit = true);

}  // namespace hetsim
