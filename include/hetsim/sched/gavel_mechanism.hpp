#pragma once
/// Gavel's round-based time-sharing mechanism (Narayanan et al., OSDI'20, section 5;
/// stanford-futuredata/gavel, scheduler/scheduler.py: simulate(), _update_priorities(),
/// _schedule_jobs_on_workers()), re-implemented with Gavel's simulator semantics so that its
/// numbers can be compared with Gavel's. `--mechanism gavel`; docs/policies.md describes it.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hetsim/metrics/job_event.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/policy/allocation.hpp"
#include "hetsim/engine/simulation.hpp"
#include "hetsim/sched/gavel_placement.hpp"
#include "hetsim/sched/job_table.hpp"
#include "hetsim/util/py_random.hpp"

namespace hetsim {

/// Settings of the time-sharing mechanism.
struct GavelConfig {
  double round_s = 360.0;               ///< Gavel's time_per_iteration
  double min_reset_interval_s = 1920.0; ///< Gavel's minimum_time_between_allocation_resets
  double restart_overhead_s = 0.0;      ///< charged at every change of a job's placement (unless the job has its own)
  std::optional<double> until_s;        ///< horizon; jobs not done become unfinished
  double max_rounds = kMaxRounds;       ///< rounds after which the run stops with an InputError naming --interval
  std::uint64_t seed = 0;               ///< GPU-type shuffling uses CPython's generator at seed + 5, as Gavel
  bool check_invariants = kCheckInvariantsByDefault;  ///< sched/invariants.hpp, after every round's placement
  bool skip_steady_rounds = true;       ///< jump over rounds in which nothing can change (gavel_round_skip.cpp)
};

/// Solver effort of one run (summed over allocation computations).
struct SolverStats {
  std::uint64_t rounds = 0;
  std::uint64_t allocations = 0;  ///< allocation computations
  std::uint64_t solves = 0;       ///< LP/ILP solves
  std::uint64_t failures = 0;     ///< computations that fell back to the isolated allocation
  std::uint64_t node_limits = 0;  ///< solves stopped at a MIP node limit (deterministic)
  std::uint64_t time_limits = 0;  ///< solves stopped at a wall-time safety net (not deterministic)
  double solver_s_total = 0.0;
  double solver_s_max = 0.0;      ///< largest solver time of one computation
};

/// Gavel's per-type priority bookkeeping: time each job received on each type since the last
/// reset (starting at half a round, as Gavel does), total time per type, and deficits.
/// priority(j, t) = x / (job time / type time), x * 1e9 while the job has no share yet, 0 when
/// x = 0, the job is not in X, or it has zero throughput on t.
class GavelPriorities {
 public:
  GavelPriorities(std::size_t types, double round_s) : worker_s_(types, 0.0), types_(types), round_s_(round_s) {}
  void add_job(JobIndex j);
  /// Adds a combination key (space sharing: a job pair) whose time starts at `initial_s` on every
  /// type (Gavel starts a pair at 0, a job at half a round).
  void add_job(JobIndex j, double initial_s);
  void remove_job(JobIndex j);
  /// Adds `seconds` of run time of job j on `type`.
  void record_run(JobIndex j, std::size_t type, double seconds);
  /// Gavel's _reset_time_run_so_far: deficit += x_old * elapsed - (time received - round/2);
  /// every job's time back to round/2, type totals to the sum of those.
  void reset(double elapsed_s, const std::map<JobIndex, std::vector<double>>& old_allocation);
  double fraction(JobIndex j, std::size_t type) const;
  double priority(JobIndex j, std::size_t type, const std::map<JobIndex, std::vector<double>>& allocation,
                  double throughput) const;
  double deficit(JobIndex j, std::size_t type) const;
  /// priority() and deficit() of job j on every type at once (one lookup per job instead of one
  /// per type; same arithmetic). `x` is the job's row of X, nullptr when it has none;
  /// `throughput` is [type]. Writes [type] into `priority_out` and `deficit_out`.
  void priorities_of(JobIndex j, const std::vector<double>* x, const std::vector<double>& throughput,
                     std::vector<double>& priority_out, std::vector<double>& deficit_out) const;
  /// Jobs in the order they were added (Gavel's dict order).
  const std::vector<JobIndex>& order() const { return order_; }
  /// Whether key j is in the books (added and not removed).
  bool contains(JobIndex j) const { return has(j); }
  /// Round skipping (gavel_round_skip.cpp) adds a skipped round's run times itself, in a tight
  /// loop: job j's time per type (nullptr if j is not in the books) and the totals per type. The
  /// pointers stay valid until the next add_job().
  double* run_time_of(JobIndex j) { return has(j) ? row(job_s_, j) : nullptr; }
  double* type_run_times() { return worker_s_.data(); }

 private:
  // Flat [key * types + type] books (issue 19: a map lookup per job and round was a fifth of a
  // fifo run); present_[key] says whether the key is in them.
  bool has(JobIndex j) const { return static_cast<std::size_t>(j) < present_.size() && present_[static_cast<std::size_t>(j)]; }
  double* row(std::vector<double>& books, JobIndex j) { return books.data() + static_cast<std::size_t>(j) * types_; }
  const double* row(const std::vector<double>& books, JobIndex j) const {
    return books.data() + static_cast<std::size_t>(j) * types_;
  }
  std::vector<double> job_s_;
  std::vector<double> deficit_;
  std::vector<char> present_;
  std::vector<double> worker_s_;
  std::vector<JobIndex> order_;
  std::size_t types_;
  double round_s_;
};

/// Runs one simulation under the time-sharing mechanism, on the engine's clock and event queue:
/// arrivals and completions are events at their own times, a RoundTick ends one round and starts
/// the next. Construct, then call run() once.
class GavelMechanism final : public EventHandler {
 public:
  GavelMechanism(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                 AllocationPolicy& policy, GavelConfig config, std::vector<JobEventSink*> sinks);
  MechanismStats run();
  const SolverStats& solver() const { return solver_; }
  /// Rounds done by arithmetic (round skipping) rather than in full; counted in solver().rounds too.
  std::uint64_t skipped_rounds() const { return skipped_rounds_; }
  const std::vector<JobRuntime>& jobs() const { return table_.jobs(); }

  void handle(const Event& event) override;

 private:
  struct Dispatch {
    JobIndex job;
    std::size_t type;
    double steps;
    SimTime finish;          // nearest microsecond
    double finish_frac_us;   // exact finish - finish, in [-0.5, 0.5] us
    double gavel_finish_s;  // the same finish in Gavel's double arithmetic (priority accounting only)
    // Space sharing (gavel_packing.cpp): the pair's key, its second job and that job's steps.
    JobIndex key = -1;
    JobIndex partner = -1;
    double partner_steps = 0.0;
  };
  // A job pair that may share GPUs (packing policies): its priority/allocation key is
  // workload size + slot. `usable[t]` is 1 where both pair rates are > 0.
  struct PairCombo {
    JobIndex first = -1, second = -1;  // first < second; first hosts the GPUs
    std::vector<double> first_rate, second_rate, usable;
  };
  // Space sharing (gavel_packing.cpp).
  bool is_pair_key(JobIndex key) const { return key >= static_cast<JobIndex>(workload_.jobs.size()); }
  PairCombo& pair_of(JobIndex key) { return pairs_[static_cast<std::size_t>(key) - workload_.jobs.size()]; }
  const std::vector<double>& combo_throughput(JobIndex key);
  int combo_gpus(JobIndex key) const;
  void add_pairs_of(JobIndex j);
  void remove_job_and_pairs(JobIndex j);
  void fill_pairs(AllocationView& view);
  void read_pair_allocation(const AllocationView& view, AllocationResult& r);
  std::vector<RoundChoice>& choose_combos(const std::vector<std::size_t>& order);
  void set_previous_packed(bool set);
  void apply_placements_packed(const std::vector<const RoundPlacement*>& next);
  void dispatch_pair(JobIndex key);
  void end_round_packed();
  void stop_sharers(SimTime now, StopReason why);
  double steps_in_round(const JobRuntime& job, double rate, double& overhead_s) const;
  void on_arrival(JobIndex j);
  void on_completion(JobIndex j, std::uint64_t generation);
  void on_round_tick();
  void end_round();
  void join_arrivals();
  void start_round();
  void request_round();
  void compute_allocation();
  void store_allocation(const AllocationView& view, AllocationMatrix& x);
  const std::vector<std::size_t>& type_order();
  std::vector<RoundChoice>& choose_jobs(const std::vector<std::size_t>& order);
  void apply_placements(const std::vector<const RoundPlacement*>& next);
  void dispatch(JobIndex j) { dispatch_at(j, sim_.now()); }
  void dispatch_at(JobIndex j, SimTime now);
  void schedule_round_end();
  // True when no job has progressed for so many rounds in a row that the run is a livelock
  // (gavel_stall.cpp); end_stalled_run() then ends it.
  bool stalled();
  void end_stalled_run();
  // Round skipping (gavel_round_skip.cpp).
  bool skipping_allowed() const;
  bool reset_due(double now_s) const;
  bool skip_steady_rounds();
  void begin_skipped_round(SimTime start);
  void note_round_choice(bool contended, bool several_types);

  const Cluster& cluster_;
  const Workload& workload_;
  const ThroughputModel& model_;
  AllocationPolicy& policy_;
  GavelConfig config_;
  Simulation sim_;
  JobTable table_;
  std::vector<std::vector<double>> throughput_;  // [job][type], planning = progress rates
  std::vector<int> placement_changes_;
  std::set<std::string> warned_;  // the policy's warnings already shown (each once per run)
  std::vector<char> taken_in_round_;  // per job, all 0 between rounds (cleared for the chosen jobs only)
  std::set<JobIndex> active_;         // jobs that joined a round (arrivals join at the end of one)
  std::size_t joined_upto_ = 0;       // jobs [0, joined_upto_) have joined or were final at arrival
  std::size_t arrived_upto_ = 0;      // jobs [0, arrived_upto_) have had their arrival event
  std::map<JobIndex, std::vector<double>> allocation_; // X by job
  AllocationView view_;                                // compute_allocation's input, kept for its memory
  AllocationMatrix spare_x_;                           // the last X, whose rows the next one reuses
  std::vector<const std::vector<double>*> x_row_;      // [job]: its row of allocation_ (choose_jobs)
  std::vector<JobIndex> x_jobs_;                       // the jobs with an x_row_, ascending
  GavelPriorities priorities_;
  PyRandom shuffler_;
  std::vector<Dispatch> dispatched_;  // this round's jobs, in placement order
  // Working memory of a round, kept so that a round allocates nothing once the run is warm.
  GavelPlacement placement_;
  std::vector<const std::vector<GpuId>*> previous_;  // [job]: its GPUs while a round is placed, else nullptr
  std::vector<RoundChoice> chosen_;
  struct ChoiceEntry {
    JobIndex job;
    double priority, deficit, x;
  };
  std::vector<std::vector<ChoiceEntry>> per_type_;  // [type]: choose_jobs' candidates
  std::vector<double> priority_buf_, deficit_buf_;  // [type]
  std::vector<int> left_;                           // [type]: GPUs not yet given this round
  std::vector<std::size_t> type_order_;
  std::vector<std::size_t> base_type_order_;  // v100, p100, k80, then the others (type_order() shuffles a copy)
  // Round skipping: steady_ = the last round's choice of jobs did not depend on priorities (or, when
  // types are shuffled, on the type order) and placed every chosen job of X, so while the active set
  // and X stay, every round places the same jobs on the same GPUs. active_changed_ = a job joined
  // or finished at this round end. skip_ = the running jobs of a skipped stretch (flat, in job order).
  bool steady_ = false;
  bool active_changed_ = false;
  struct SkipJob {
    double steps;       // whole steps a full round gives the job
    double seconds;     // steps / rate: its run time in a round
    double remaining;   // its remaining work, replayed round by round
    double* run_time;   // its row of Gavel's per-type run times
    std::size_t type;
  };
  std::vector<SkipJob> skip_;
  std::uint64_t skipped_rounds_ = 0;
  std::vector<JobIndex> running_copy_;
  std::optional<SimTime> round_end_;  // end of the round in progress (or of the last one)
  double round_end_frac_us_ = 0.0;    // its sub-microsecond remainder
  double now_frac_us_ = 0.0;          // the remainder of the round starting now
  // Gavel's double arithmetic, for its priority accounting only (the .cpp says why): the time of
  // the round in progress, its end, and the end of the round before it.
  double gavel_s_ = 0.0;
  double gavel_round_end_s_ = 0.0;
  double gavel_round_start_s_ = 0.0;
  double last_reset_s_ = 0.0;
  bool need_update_ = false;
  bool forced_ = false;
  std::uint64_t stalled_rounds_ = 0;  // rounds in a row in which no dispatched job progressed
  double longest_restart_s_ = 0.0;    // the longest restart left to a job at a dispatch so far
  bool tick_pending_ = false;
  SolverStats solver_;
  // Space sharing (only when the policy packs; empty otherwise).
  bool packing_ = false;
  std::vector<PairCombo> pairs_;                         // [slot]
  std::vector<std::size_t> free_slots_;                  // slots of removed pairs, reused smallest first
  std::map<std::pair<JobIndex, JobIndex>, JobIndex> pair_key_;  // (first, second) -> key
  std::vector<JobIndex> running_as_;                     // [job]: key it runs under, -1 = none
  std::vector<JobIndex> host_of_;                        // [job]: the job whose GPUs it shares, -1 = none
};

}  // namespace hetsim
