#pragma once
/// The scheduling mechanism: turns engine events into job state changes, asks the policy what to
/// run, validates and applies its decision, keeps every job's progress exact and schedules
/// completions. It knows no particular policy.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/engine/simulation.hpp"
#include "hetsim/metrics/job_event.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/policy/policy.hpp"
#include "hetsim/sched/job_table.hpp"
#include "hetsim/sched/network_shares.hpp"
#include "hetsim/sched/placement.hpp"

namespace hetsim {

/// Mechanism settings (one struct, not a long argument list).
struct MechanismConfig {
  /// Seconds without progress paid at every start of an allocation (first start, resume after
  /// preemption, move, resize). 0 = free restarts (default).
  double restart_overhead_s = 0.0;
  /// 0 = event-driven (the policy runs after every instant with an arrival or completion).
  /// > 0 = round mode: the policy runs every interval_s seconds.
  double interval_s = 0.0;
  /// In round mode, also run the policy at arrivals.
  bool schedule_on_arrival = false;
  /// Round mode grid: false = anchored at the first arrival; true = rounds at k * interval_s,
  /// k >= 1, from time 0 (the Pollux simulator's clock: its first scheduling pass is at 60 s).
  bool round_grid_from_zero = false;
  /// Stop at this time (seconds); jobs not done are reported unfinished. nullopt = run to the end.
  std::optional<double> until_s;
  /// Rounds (with interval_s > 0) after which the run stops with an InputError naming --interval.
  double max_rounds = kMaxRounds;
  /// Seconds without progress paid once, at a job's first start, for its profiling runs (Heet's
  /// short runs that give the collaborative filter the job's row). 0 = none (--profiling oracle).
  double profiling_s = 0.0;
  /// The model policies plan with (e.g. the collaborative-filtering predictor); nullptr = the true
  /// model. The true model always advances progress, so wrong predictions cost JCT. Not owned.
  const ThroughputModel* planning_model = nullptr;
  /// Check the run's invariants after every pass (sched/invariants.hpp; `--check-invariants`).
  bool check_invariants = kCheckInvariantsByDefault;
  /// Jobs on several nodes share NIC and uplink bandwidth max-min fairly (`--network shared`,
  /// perf/link_sharing.hpp); needs a model that prices communication over the topology
  /// (ThroughputModel::topology()). false = each job sees the network alone.
  bool shared_network = false;
  /// Interference between jobs sharing one GPU by fractions (JobSpec::gpu_milli): while a job has
  /// a co-resident on its GPU it runs at (1 - share_slowdown) x its rate alone (`--share-slowdown`,
  /// docs/models.md). 0 = no interference (the default); must be in [0, 1).
  double share_slowdown = 0.0;
  /// The round mechanism (`--mechanism gavel`) jumps over rounds in which nothing can change
  /// (docs/policies.md, "Round skipping"); false runs every round in full (`--no-round-skip`).
  /// The outputs are the same either way.
  bool skip_steady_rounds = true;
};

/// Round mode: after this many consecutive rounds in which nothing runs and nothing is left to
/// arrive, the waiting jobs are reported unfinished. Such a round changes nothing but the clock, so
/// a policy that gives no GPUs in one would tick to the horizon (1e12 s) for ever otherwise.
inline constexpr int kMaxIdleRounds = 1000;

/// Runs one simulation. Construct, then call run() once.
class Mechanism final : public EventHandler {
 public:
  /// All references must outlive the Mechanism. `sinks` receive every JobEvent in order.
  Mechanism(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
            SchedulingPolicy& policy, const PlacementPolicy& placement, MechanismConfig config,
            std::vector<JobEventSink*> sinks);

  /// Replays the workload to the end (or the horizon) and returns the counters. Every job ends
  /// Completed, Rejected or Unfinished.
  MechanismStats run();
  /// Final per-job state (valid after run()).
  const std::vector<JobRuntime>& jobs() const { return table_.jobs(); }

  void handle(const Event& event) override;

 private:
  void on_arrival(JobIndex j);
  void on_completion(JobIndex j, std::uint64_t generation);
  void schedule_tick(SimTime at);
  void on_round_tick();
  void schedule_first_tick();
  void request_pass();
  void run_policy();
  /// What the policy sees now (its pass, or its admission test at an arrival).
  PolicyView view() const;
  void apply(const Decision& decision);
  std::vector<const AllocationRequest*> release_for(const Decision& decision);
  bool place(const AllocationRequest& req);
  void check_placement(const JobRuntime& job, const AllocationRequest& req, std::vector<GpuId> gpus) const;
  void advance(JobRuntime& job);
  void schedule_completion(JobRuntime& job);
  void change_batch(JobRuntime& job, int batch_size);
  bool start_if_it_runs(JobRuntime& job, const AllocationRequest& req, std::vector<GpuId> gpus);
  void start_job(JobRuntime& job, std::vector<GpuId> gpus);
  void stop_job(JobRuntime& job, StopReason why);
  void share_network();
  bool place_share(const AllocationRequest& req);
  /// Rate multiplier of a job from the jobs it shares its GPU with (1 = alone or whole GPUs).
  double share_factor_now(const JobRuntime& job) const;
  /// After a share of `gpu` was given or taken back: co-residents whose factor changed get their
  /// new rate from now (progress up to now at the old one). `except` = the job that just started.
  void reshare(GpuId gpu, JobIndex except);
  void refuse(const std::string& why);

  const Cluster& cluster_;
  const Workload& workload_;
  const ThroughputModel& model_;
  SchedulingPolicy& policy_;
  const PlacementPolicy& placement_;
  MechanismConfig config_;

  Simulation sim_;
  JobTable table_;
  std::optional<NetworkShares> network_;  // with config_.shared_network
  // One flag per job, all 0 between passes: apply() sets and clears only the jobs it sees, so a
  // pass costs O(decision), not O(trace) (a fresh vector per pass made 1M-job traces quadratic).
  std::vector<char> allocated_in_pass_;
  // Per job: the share factor its current rate includes (1 for whole GPUs; see share_factor_now).
  std::vector<double> share_factor_;
  bool pass_requested_ = false;
  // Generation of the pass the policy asked for with next_pass_at() (SchedulePass events carry it
  // as their tag; 0 = an ordinary pass). Every pass bumps it, so an older request is dropped.
  std::uint64_t wake_generation_ = 0;
  bool tick_scheduled_ = false;
  bool tick_beyond_horizon_ = false;  // a round was due after kMaxSimSeconds (so never came)
  std::size_t arrived_ = 0;  ///< arrivals handled so far (all of them: no arrival is left to come)
  int idle_rounds_ = 0;      ///< consecutive rounds with nothing running and nothing left to arrive
  std::uint64_t rounds_ = 0;  // RoundTicks handled (checked against config_.max_rounds)
  std::optional<SimTime> first_tick_;  // anchor of the round grid
  bool ended_ = false;
};

}  // namespace hetsim
