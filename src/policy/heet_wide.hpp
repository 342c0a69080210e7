#pragma once
// Private helper of the heet policy (src/policy/heet.cpp): jobs that ask for more GPUs than the
// largest host. The Heet prototype (mozizhao/elastic, our_scheduler.py) caps every job at one host
// (all_job_limit = 4), so a 64-GPU job of an ITP trace ran on 4 GPUs, 16x slower; here such a
// "wide" job gets its requested count on several hosts of one GPU type. Ours, not the paper's.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
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

/// One claim of the wide jobs' admission by weight (HeetWidePlacer): ordered by (weight, job) as a
/// pair is (jobs are distinct, so the order is total on the claims of one round).
struct HeetWideClaim {
  double weight = 0.0;
  JobIndex job = 0;
  int gpus = 0;
  bool wide = false;     ///< a wide candidate (else a narrow job at the round's slot size)
  bool running = false;  ///< the job runs now
  bool operator<(const HeetWideClaim& o) const { return weight < o.weight || (!(o.weight < weight) && job < o.job); }
};

/// Places the wide jobs among `active` (requested GPUs > the largest host) on whole hosts first,
/// in order of heet's weight remaining x T(w)^2 / T(1) on their best type (ties: job index); a
/// running wide job keeps its GPUs while none of them went to an earlier job. Marks their GPUs in
/// `taken` (indexed by GpuId) and returns the other active jobs in `narrow`, in `active` order
/// (after an indexed() pass `narrow` stays empty: ask cheapest_narrow or narrow_jobs instead).
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

  /// Brings the waiting jobs' ordered claims up to date from ctx.changed() (once per pass, before
  /// place; heet_wide_index.cpp). Only on a cluster with one GPU type (the ITP clusters), where a
  /// narrow job's claim and its matching weight are the same number; elsewhere it does nothing.
  void sync(const PolicyView& ctx, const TableOf& table);
  /// After place() on every active job (no tail reservation) of a synced one-type cluster: the
  /// narrow jobs (active jobs place left to the plan), counted, and the `count` cheapest of them
  /// by matching weight on an s-GPU slot with a finite weight, ascending by job (what heet_plan's
  /// one-type selection takes); false when place() did not run indexed (use its `narrow`).
  bool indexed() const { return indexed_pass_; }
  std::size_t narrow_count() const { return narrow_count_; }
  std::vector<JobIndex> cheapest_narrow(const PolicyView& ctx, const TableOf& table, int s, std::size_t count);
  /// The narrow jobs of an indexed pass, ascending (when the plan needs all of them: s > 1).
  std::vector<JobIndex> narrow_jobs(const std::vector<JobIndex>& active) const;

 private:
  // What place() derives from a job's remaining work and rates (fixed per job), kept by job: a
  // waiting job's remaining work does not change, so a round recomputes only the running and the
  // changed jobs (same values: the same function of the same inputs, checked bit for bit).
  struct Memo {
    signed char wide = -1;                    // requested GPUs > the largest host; -1 = not known
    std::uint64_t wide_bits = ~std::uint64_t{0};  // remaining work `wide_best` holds for (NaN = none)
    double wide_best = 0.0;                   // best weight spanning hosts; inf = planned as narrow
    bool near_tie = false;                    // spanning vs one host within rounding (unsteady)
    std::uint64_t claim_bits = ~std::uint64_t{0};  // remaining work `claim` holds for
    int claim_slot = 0;                       // slot size `claim` holds for
    double claim = 0.0;                       // a narrow job's best weight at that slot size
  };
  // Waiting jobs ordered by their claim at one slot size (a wide job's claim does not depend on it).
  struct Entry {
    double key = 0.0;
    JobIndex job = 0;
    int requested = 0;
    bool wide = false;
    bool operator<(const Entry& o) const { return key < o.key || (!(o.key < key) && job < o.job); }
  };
  struct Level {
    int slot = 0;
    std::set<Entry> sorted;      // ascending (key, job); a tree: no shifting on arrivals and starts
    std::vector<double> key_of;  // [job]: its entry's key while it waits
  };
  Memo& memo(JobIndex j);
  // A wide job's best weight spanning hosts (infinity: planned as a narrow job); `near_tie` when
  // that choice against one host's worth of GPUs is within rounding.
  double wide_weight(const PolicyView& ctx, JobIndex j, const HeetRateTable& own, double remaining, bool& near_tie);
  // Job j's memo with its wide classification brought to `remaining`; whether it is planned wide.
  bool classify(const PolicyView& ctx, JobIndex j, const TableOf& table, double remaining, int largest);
  // A narrow job's claim (best weight over types at slot size s), kept in its memo.
  double claim_at(const PolicyView& ctx, JobIndex j, const TableOf& table, double remaining, int s);
  void admit_by_weight(const PolicyView& ctx, std::size_t active, int largest, int capacity, const TableOf& table,
                       std::vector<std::pair<double, JobIndex>>& wide, const std::vector<JobIndex>& narrow, bool& steady);
  // place() from the ordered waiting claims (heet_wide_index.cpp): the running jobs are walked,
  // the waiting ones read in claim order only as far as admission goes.
  std::vector<std::pair<double, JobIndex>> admit_indexed(const PolicyView& ctx, const std::vector<JobIndex>& active,
                                                         const TableOf& table, std::vector<char>& held, int capacity,
                                                         bool& stable);
  std::vector<WidePlacement> place_admitted(const PolicyView& ctx, const std::vector<std::pair<double, JobIndex>>& wide,
                                            const TableOf& table, std::vector<char>& taken, const std::vector<char>& held,
                                            std::vector<int>& free_of_type, bool& stable);
  Entry entry_of(const PolicyView& ctx, JobIndex j, const TableOf& table, int s);
  Level& level(const PolicyView& ctx, const TableOf& table, int s);
  void add_waiting(const PolicyView& ctx, const TableOf& table, JobIndex j);
  void remove_waiting(JobIndex j);

  std::vector<std::vector<double>> rates_;  // [job][type], empty = not computed
  std::vector<Memo> memo_;                  // [job]
  std::vector<double> narrow_remaining_;    // this call's narrow jobs' remaining work (place)
  std::vector<char> narrow_running_;        // and whether each runs
  std::vector<HeetWideClaim> claims_;       // reused across rounds (no allocation per round)
  // The ordered waiting claims (one GPU type only): which jobs wait, how many of them are planned
  // wide or near a tie, and one ordered list per slot size asked for so far.
  bool synced_ = false;
  int largest_ = 0;
  std::vector<char> waiting_;               // [job]: 1 = in the lists
  std::vector<char> waiting_wide_;          // [job]: counted in wide_waiting_
  std::vector<char> waiting_tie_;           // [job]: counted in ties_waiting_
  std::size_t waiting_count_ = 0, wide_waiting_ = 0, ties_waiting_ = 0;
  std::vector<Level> levels_;
  // The last place(): indexed or not, its narrow count and the running narrow jobs' remaining work.
  bool indexed_pass_ = false;
  std::size_t narrow_count_ = 0;
  std::vector<std::pair<JobIndex, double>> running_narrow_;
};

}  // namespace hetsim
