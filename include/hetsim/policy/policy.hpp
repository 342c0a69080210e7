#pragma once
/// The scheduling-policy interface: who runs, on how many GPUs of which type. Policies see const
/// views only and answer with a Decision; the mechanism validates and applies it.
#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/perf/throughput_model.hpp"
#include "hetsim/util/registry.hpp"
#include "hetsim/workload/job_index_set.hpp"
#include "hetsim/workload/job_state.hpp"

namespace hetsim {

/// One allocation a policy asks for. Either `gpus` lists exact GPUs (topology-aware policies), or it
/// is empty and the mechanism's placement policy picks `gpu_count` GPUs of `gpu_type`.
/// For a running job, the same type and count (and no exact GPUs) means "keep what you have".
/// `batch_size` > 0 sets the job's global batch size (elastic jobs whose policy picks it, within
/// the application's limits); 0 keeps the job's current one. Changing only the batch size of a
/// running job keeps its GPUs and pays no restart (the Pollux simulator rescales batch sizes
/// between epochs without a restart).
struct AllocationRequest {
  JobIndex job = 0;
  GpuTypeId gpu_type = 0;
  int gpu_count = 0;
  std::vector<GpuId> gpus;
  int batch_size = 0;
};

/// A policy's answer for one scheduling pass. Jobs in neither list keep their current state.
/// `preempt` lists running jobs to stop; `allocate` lists jobs to start, keep, move or resize, in
/// the order they should be placed.
struct Decision {
  std::vector<JobIndex> preempt;
  std::vector<AllocationRequest> allocate;
};

/// Read-only view of the simulation for a policy at one scheduling pass.
class PolicyView {
 public:
  PolicyView(SimTime now, const ClusterState& state, const ThroughputModel& model,
                   const std::vector<JobRuntime>& jobs, const JobIndexSet& pending,
                   const JobIndexSet& running, std::span<const JobIndex> changed = {},
                   const NetworkView* network = nullptr, double round_s = 0.0)
      : now_(now), state_(&state), model_(&model), jobs_(&jobs), pending_(&pending), running_(&running),
        changed_(changed), network_(network), round_s_(round_s) {}

  /// Current simulated time.
  SimTime now() const { return now_; }
  const Cluster& cluster() const { return state_->cluster(); }
  /// Free/used GPUs right now.
  const ClusterState& state() const { return *state_; }
  /// The throughput model policies plan with.
  const ThroughputModel& model() const { return *model_; }
  /// Admitted jobs waiting for GPUs, in arrival order (job index order).
  const JobIndexSet& pending() const { return *pending_; }
  /// Jobs holding GPUs, in arrival order.
  const JobIndexSet& running() const { return *running_; }
  /// Jobs whose status changed since this policy's previous pass (admitted, started, stopped,
  /// completed, ended), each once, in the order of their first change. A policy that keeps its own
  /// ordered structures updates them from this list instead of walking every active job, so its
  /// pass costs what changed, not the backlog. Progress of running jobs is not a change.
  std::span<const JobIndex> changed() const { return changed_; }
  /// State of any job.
  const JobRuntime& job(JobIndex j) const { return (*jobs_)[static_cast<std::size_t>(j)]; }
  /// Jobs of the run (valid indices are 0 .. job_count() - 1).
  std::size_t job_count() const { return jobs_->size(); }
  /// Remaining work of a job brought up to now (without changing it).
  double remaining_work(JobIndex j) const;
  /// Work done by a job brought up to now exactly (progress-dependent rates integrated piece by
  /// piece), without changing it.
  double work_done(JobIndex j) const;
  /// GPU-seconds a job has held, brought up to now (the mechanism's own accounting, extended over
  /// the time since `updated` for a running job), without changing it.
  double attained_gpu_s(JobIndex j) const;
  /// Rate of `job` on `count` GPUs of `type`, consolidated when the count fits on one node.
  double rate_on_type(const JobSpec& job, GpuTypeId type, int count) const;
  /// Under `--network shared`, the current sharing of NICs and uplinks (link loads, and what a
  /// job on given GPUs would get: NetworkView::join_effect with ThroughputModel::network_demand),
  /// for policies that choose exact GPUs; nullptr when every job has the network to itself.
  const NetworkView* network() const { return network_; }
  /// Seconds between passes in round mode (--interval); 0 when passes follow arrivals and
  /// completions. Round-based policies that count time in rounds (Gavel's priorities) read it.
  double round_s() const { return round_s_; }

 private:
  SimTime now_;
  const ClusterState* state_;
  const ThroughputModel* model_;
  const std::vector<JobRuntime>* jobs_;
  const JobIndexSet* pending_;
  const JobIndexSet* running_;
  std::span<const JobIndex> changed_;
  const NetworkView* network_;
  double round_s_;
};

/// Declared parameter of a policy, printed by `hetsim list policies` (the shared registry shape).
using PolicyParamInfo = ParamInfo;

/// Policy parameters given on the command line (`--param key=value`), checked against the
/// declared ones by the registry before a policy is built.
using PolicyParams = std::map<std::string, std::string>;

/// A scheduling policy. Implementations live one per file under src/policy/, each citing the
/// paper it follows, and are registered by name in policy_registry.cpp.
class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  /// Registered name.
  virtual std::string name() const = 0;
  /// Decides who runs now. Called after every instant at which jobs arrived or completed.
  virtual Decision schedule(const PolicyView& ctx) = 0;
  /// The policy's own admission control (ElasticFlow's), asked for a job that arrives and passes
  /// the run's checks, before it waits for GPUs: a reason rejects the job at its arrival (jobs.csv
  /// `reason`, exit code 3), nullopt admits it. `ctx` shows the run at that instant, without the
  /// job. Event mechanism only; most policies admit every job.
  virtual std::optional<std::string> reject_at_arrival(const JobSpec& /*job*/, const PolicyView& /*ctx*/) {
    return std::nullopt;
  }
  /// Round length (s) a round-based policy assumes when the run gives no --interval (Heet's
  /// prototype: 120 s); nullopt = event-driven.
  virtual std::optional<double> round_s() const { return std::nullopt; }
  /// Seconds of profiling every job pays (no progress, GPUs held) at its first start, which the
  /// policy's planning needs (Sia profiles each new job briefly on every GPU type to bootstrap its
  /// throughput models). Charged by the event mechanism when the run sets no profiling time; 0 = none.
  virtual double profiling_s(const Cluster& /*cluster*/) const { return 0.0; }
  /// Restart overhead (s) the policy's runs charge at every (re)start when the run gives none
  /// (--restart-overhead 0, the default); nullopt = the run's value. Heet's realistic per-resize
  /// cost is its own parameter, so `heet` and its 0 s variant compare under one command line.
  virtual std::optional<double> restart_overhead_s() const { return std::nullopt; }
  /// Time of a further pass the policy wants although nothing arrives or completes then (the
  /// queue-threshold crossings of the Tiresias simulator's dlas schedulers), asked after each pass;
  /// nullopt = none. A later pass cancels the request; the policy asks again from there.
  virtual std::optional<SimTime> next_pass_at() const { return std::nullopt; }
  /// Whether jobs asking for a fraction of a GPU (JobSpec::gpu_milli) may share GPUs under this
  /// policy. Policies that ask for GPUs by type and count get the mechanism's best-fit packing;
  /// those that pick exact GPUs from their own pools of free GPUs say false, and their runs give
  /// such jobs whole GPUs with one note (docs/policies.md).
  virtual bool shares_gpus() const { return true; }
};

}  // namespace hetsim
