// tiresias: discretized two-dimensional least-attained-service (2D-LAS) scheduling of rigid jobs,
// after Tiresias (Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning",
// NSDI'19), in the form the Pollux simulator uses as its baseline (petuum/adaptdl, branch
// osdi21-artifact, simulator/tiresias.py). Rules (docs/policies.md):
//  - every job enters queue 0 at its first pass; a job's attained service is the wall time it has
//    been marked running (counted in whole seconds between passes, restart time included) times
//    its requested GPUs; reaching `queue_threshold_gpu_s` (16 GPU-hours) moves it to the end of
//    queue 1 (demotion is checked only while it runs);
//  - each pass walks queue 0 then queue 1, FIFO within a queue, and marks a job running if its
//    requested GPU count still fits in the GPUs not yet promised (jobs behind a blocked one may
//    pass it); a running job that no longer fits is preempted;
//  - starvation: with `starvation_factor` > 0, a job of queue 1 that has waited at least that many
//    times its last run time returns to queue 0 with its run time reset (0 = off, the simulator's
//    setting);
//  - new jobs are placed node by node, each time on the node with the most free GPUs.
// On several GPU types a job uses one type: the one it runs on, else the type with the most GPUs
// still unpromised among those it can run on (a documented extension; the simulator has one type).
#include <algorithm>
#include <limits>
#include <cmath>
#include <map>

#include "hetsim/policy/builtin.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

class TiresiasPolicy final : public SchedulingPolicy {
 public:
  TiresiasPolicy(double threshold_gpu_s, double starvation) : threshold_gpu_s_(threshold_gpu_s), starvation_(starvation) {}
  std::string name() const override { return "tiresias"; }

  Decision schedule(const PolicyView& ctx) override {
    const auto now = static_cast<long long>(std::floor(ctx.now().seconds()));
    std::vector<JobIndex> active(ctx.pending().begin(), ctx.pending().end());
    active.insert(active.end(), ctx.running().begin(), ctx.running().end());
    std::sort(active.begin(), active.end());
    auto is_active = [&](JobIndex j) { return std::binary_search(active.begin(), active.end(), j); };
    // Forget finished jobs.
    std::erase_if(q0_, [&](JobIndex j) { return !is_active(j); });
    std::erase_if(q1_, [&](JobIndex j) { return !is_active(j); });
    std::erase_if(state_, [&](const auto& kv) { return !is_active(kv.first); });
    for (JobIndex j : active) {
      if (state_.count(j)) continue;
      state_[j] = State{};
      q0_.push_back(j);
    }
    // Account attained service and waiting time since the last pass.
    for (JobIndex j : active) {
      State& s = state_[j];
      long long delta = now - s.last_check_s;
      s.last_check_s = now;
      if (s.marked_running) {
        s.total_run_s += delta;
        s.run_s += delta;
        double gpu_s = static_cast<double>(s.run_s) * ctx.job(j).spec->requested_gpus;
        auto it = std::find(q0_.begin(), q0_.end(), j);
        if (it != q0_.end() && gpu_s >= threshold_gpu_s_) {
          q0_.erase(it);
          q1_.push_back(j);
        }
      } else {
        if (s.run_s > 0) s.waited_since_run_s += delta;
        if (starvation_ > 0 && s.total_run_s > 0 && s.run_s > 0 &&
            std::find(q0_.begin(), q0_.end(), j) == q0_.end() &&
            static_cast<double>(s.waited_since_run_s) >= static_cast<double>(s.run_s) * starvation_) {
          s.run_s = 0;
          s.waited_since_run_s = 0;
          std::erase(q1_, j);
          q0_.push_back(j);
        }
      }
    }
    // Decide who runs: queue 0 then queue 1, GPU counts only.
    const auto ntypes = ctx.cluster().gpu_types().size();
    std::vector<int> cap(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) cap[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    std::vector<std::pair<JobIndex, GpuTypeId>> to_start;
    std::vector<JobIndex> to_stop;
    for (const auto* queue : {&q0_, &q1_}) {
      for (JobIndex j : *queue) {
        const JobRuntime& job = ctx.job(j);
        const int n = job.spec->requested_gpus;
        GpuTypeId type = -1;
        if (job.status == JobStatus::Running) {
          if (cap[static_cast<std::size_t>(job.gpu_type)] >= n) type = job.gpu_type;
        } else {
          // A type on which the job cannot run (the table's measured 0) is never chosen.
          for (std::size_t t = 0; t < ntypes; ++t)
            if (cap[t] >= n && (type < 0 || cap[t] > cap[static_cast<std::size_t>(type)]) &&
                ctx.rate_on_type(*job.spec, static_cast<GpuTypeId>(t), n) > 0.0)
              type = static_cast<GpuTypeId>(t);
        }
        State& s = state_[j];
        s.marked_running = type >= 0;
        if (type < 0) {
          if (job.status == JobStatus::Running) to_stop.push_back(j);
          continue;
        }
        cap[static_cast<std::size_t>(type)] -= n;
        if (job.status != JobStatus::Running) to_start.emplace_back(j, type);
      }
    }
    Decision d;
    policy_detail::NodePool pool(ctx.state());
    for (JobIndex j : to_stop) {
      d.preempt.push_back(j);
      pool.release(ctx.job(j).gpus);
    }
    for (const auto& [j, type] : to_start) {
      AllocationRequest r{j, type, ctx.job(j).spec->requested_gpus, {}, 0};
      r.gpus = pool.take_most_free(type, r.gpu_count);
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }

 private:
  struct State {
    bool marked_running = false;
    long long last_check_s = 0;       // the simulator starts this at 0, not at the arrival
    long long run_s = 0;              // run time since the last starvation reset (decides the queue)
    long long total_run_s = 0;
    long long waited_since_run_s = 0;
  };
  double threshold_gpu_s_;
  double starvation_;
  std::vector<JobIndex> q0_, q1_;
  std::map<JobIndex, State> state_;
};

}  // namespace

void register_tiresias(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "tiresias",
      "discretized 2D-LAS: two FIFO queues split at a GPU-time threshold, greedy fill, most-free-node placement",
      "Tiresias (Gu et al., NSDI'19), as in the Pollux simulator (petuum/adaptdl osdi21-artifact)",
      {{"queue_threshold_gpu_s", "57600", "attained GPU-seconds that demote a job from queue 0 to queue 1"},
       {"starvation_factor", "0", "queue-1 job returns to queue 0 after waiting this many times its run time (0 = off)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        constexpr double any = std::numeric_limits<double>::max();
        return std::make_unique<TiresiasPolicy>(param_double(p, "queue_threshold_gpu_s", 0.0, any),
                                                param_double(p, "starvation_factor", 0.0, any));
      },
      {}});
}

}  // namespace hetsim
