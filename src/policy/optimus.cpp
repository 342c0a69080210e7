// optimus: greedy marginal-gain GPU allocation on predicted remaining time, after Optimus (Peng et
// al., "Optimus: An Efficient Dynamic Resource Scheduler for Deep Learning Clusters", EuroSys'18),
// as the "Optimus+Oracle" baseline of Pollux (Qiao et al., OSDI'21) implemented in its simulator
// (petuum/adaptdl, branch osdi21-artifact, simulator/optimus.py). Rules (docs/policies.md):
//  - every active job gets one GPU, in arrival order, while GPUs last;
//  - each further GPU goes to the job with the largest gain = (step time on r GPUs - step time on
//    r+1 GPUs) x remaining iterations (ties: earliest job), up to its elastic maximum
//    (batch size / smallest per-GPU batch; 1 for ncf), until GPUs or positive gains run out;
//  - step times are the oracle's: the measured profile on r GPUs packed onto full nodes, the fixed
//    batch split as the simulator's predict_step_time does (one GPU always accumulates at least
//    once); remaining iterations are interpolated from the validation curve at the job's batch
//    between its current epoch and its last (1 when it is in its last epoch);
//  - a running job whose GPU count is unchanged keeps its GPUs; the others are placed in
//    increasing GPU count, node by node on the node with the most free GPUs.
// GPU types (issue 14): a job uses one type at a time (a step profile measures one type). With
// `type_choice=fastest` (default) a job's first GPU is on its own type while that has room (a
// running job), else on the type with room where one GPU steps fastest; its further GPUs come
// from that type's pool. Gains are seconds of predicted remaining time, the same unit on every
// type, so the greedy compares jobs across types directly. `type_choice=largest` plans every job
// on the cluster's largest GPU type (the rule before; on one type both are the same).
// Needs the goodput model (a Pollux/Sia workload).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

class OptimusPolicy final : public SchedulingPolicy {
 public:
  explicit OptimusPolicy(bool largest_only) : largest_only_(largest_only) {}
  std::string name() const override { return "optimus"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself

  Decision schedule(const PolicyView& ctx) override {
    const auto* model = dynamic_cast<const GoodputModel*>(&ctx.model());
    if (!model) throw InputError("", 0, "--policy", "optimus needs a Pollux/Sia workload (--workload): it plans with the goodput model");
    const Cluster& cluster = ctx.cluster();
    const std::size_t ntypes = cluster.gpu_types().size();
    GpuTypeId largest = 0;
    for (std::size_t t = 1; t < ntypes; ++t)
      if (cluster.gpus_of_type(static_cast<GpuTypeId>(t)) > cluster.gpus_of_type(largest)) largest = static_cast<GpuTypeId>(t);

    Plan plan;
    plan.jobs.assign(ctx.pending().begin(), ctx.pending().end());
    plan.jobs.insert(plan.jobs.end(), ctx.running().begin(), ctx.running().end());
    std::sort(plan.jobs.begin(), plan.jobs.end());
    const std::size_t n = plan.jobs.size();
    plan.remaining.assign(n, 1.0);
    plan.apps.assign(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      const JobSpec& spec = *ctx.job(plan.jobs[i]).spec;
      plan.apps[i] = model->app(spec.job_type);
      const PolluxApplication& a = *plan.apps[i];
      int epoch = epoch_now(ctx, plan.jobs[i], a);
      int last = a.max_epochs() - 1;  // completion epoch: no target metric in the simulator
      if (last > epoch) plan.remaining[i] = a.iteration(spec.global_batch_size, last) - a.iteration(spec.global_batch_size, epoch);
    }
    plan.free.resize(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) plan.free[t] = cluster.gpus_of_type(static_cast<GpuTypeId>(t));
    plan.type.assign(n, largest);
    plan.replicas.assign(n, 0);
    plan.gain.assign(n, 0.0);
    // One GPU each in arrival order while GPUs last (on its type), then GPU by GPU to the largest gain.
    for (std::size_t i = 0; i < n; ++i) {
      if (!largest_only_) plan.type[i] = first_type(ctx, *model, plan, i);
      if (plan.type[i] < 0 || plan.free[static_cast<std::size_t>(plan.type[i])] < 1) continue;
      plan.replicas[i] = 1;
      --plan.free[static_cast<std::size_t>(plan.type[i])];
      update_gain(ctx, *model, plan, i);
    }
    while (true) {
      std::size_t best = n;
      for (std::size_t i = 0; i < n; ++i)
        if (plan.type[i] >= 0 && plan.free[static_cast<std::size_t>(plan.type[i])] > 0 &&
            (best == n ? plan.gain[i] > 0.0 : plan.gain[i] > plan.gain[best]))
          best = i;
      if (best == n) break;
      ++plan.replicas[best];
      --plan.free[static_cast<std::size_t>(plan.type[best])];
      update_gain(ctx, *model, plan, best);
    }
    return place(ctx, plan);
  }

 private:
  // One pass's plan, parallel over the active jobs in arrival (index) order.
  struct Plan {
    std::vector<JobIndex> jobs;
    std::vector<double> remaining;  // iterations left
    std::vector<const PolluxApplication*> apps;
    std::vector<GpuTypeId> type;    // -1 = runs nowhere this pass
    std::vector<int> replicas;
    std::vector<double> gain;       // seconds saved by one more GPU of its type
    std::vector<int> free;          // [type] GPUs not yet planned
  };

  // step_time_at, kept per (job, type, replicas): it depends on nothing else (the job's
  // application and batch size are fixed), and the greedy asks it for every job at every pass
  // (issue 19: the look-ups were most of an optimus run's own time).
  double step_time(const PolicyView& ctx, const GoodputModel& model, const Plan& plan, std::size_t i, GpuTypeId type,
                   int replicas) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    const std::size_t slot = static_cast<std::size_t>(plan.jobs[i]) * ntypes + static_cast<std::size_t>(type);
    if (slot >= step_s_.size()) step_s_.resize(slot + 1);
    std::vector<double>& by_count = step_s_[slot];
    const auto r = static_cast<std::size_t>(replicas);
    if (r >= by_count.size()) by_count.resize(r + 1, -1.0);
    if (by_count[r] < 0.0) by_count[r] = step_time_at(ctx, model, plan, i, type, replicas);
    return by_count[r];
  }

  // Oracle seconds per iteration of job i on r GPUs of `type` packed onto full nodes, the fixed
  // batch split as the simulator's predict_step_time does.
  static double step_time_at(const PolicyView& ctx, const GoodputModel& model, const Plan& plan, std::size_t i,
                             GpuTypeId type, int replicas) {
    const PolluxApplication& a = *plan.apps[i];
    const int batch = ctx.job(plan.jobs[i]).spec->global_batch_size;
    LocalBatch lb = split_batch(a, batch, replicas);
    if (replicas == 1) {
      // predict_step_time accumulates at least once on one GPU, whatever the batch.
      constexpr double kEps = 1e-8;
      int local = static_cast<int>(std::ceil(static_cast<double>(batch) - kEps));
      lb.accum_steps = std::max(1, static_cast<int>(std::ceil(local / static_cast<double>(a.max_local_bsz()) - kEps)) - 1);
      lb.atomic_bsz = static_cast<int>(std::ceil(local / static_cast<double>(lb.accum_steps + 1) - kEps));
      lb.atomic_bsz = std::min(lb.atomic_bsz, static_cast<int>(static_cast<double>(a.max_batch_size()) / (lb.accum_steps + 1)));
    }
    const std::string& type_name = ctx.cluster().gpu_types()[static_cast<std::size_t>(type)].name;
    return model.iteration_time_s(a, type_name, packed_placement(replicas, ctx.cluster().max_gpus_per_node(type)), lb);
  }

  // The type of job i's first GPU: its own while that has room (a running job), else the type with
  // room and a step profile where one GPU steps fastest (ties: the lower type); -1 if none.
  GpuTypeId first_type(const PolicyView& ctx, const GoodputModel& model, const Plan& plan, std::size_t i) {
    const JobRuntime& job = ctx.job(plan.jobs[i]);
    if (job.status == JobStatus::Running && plan.free[static_cast<std::size_t>(job.gpu_type)] > 0) return job.gpu_type;
    GpuTypeId best = -1;
    double best_s = 0.0;
    for (std::size_t t = 0; t < plan.free.size(); ++t) {
      if (plan.free[t] < 1 || !plan.apps[i]->profile(ctx.cluster().gpu_types()[t].name)) continue;
      const double s = step_time(ctx, model, plan, i, static_cast<GpuTypeId>(t), 1);
      if (s > 0.0 && (best < 0 || s < best_s)) {
        best = static_cast<GpuTypeId>(t);
        best_s = s;
      }
    }
    return best;
  }

  void update_gain(const PolicyView& ctx, const GoodputModel& model, Plan& plan, std::size_t i) {
    const int max_r = ctx.job(plan.jobs[i]).spec->max_gpus;
    const GpuTypeId t = plan.type[i];
    const int r = plan.replicas[i];
    if (r + 1 > max_r || plan.free[static_cast<std::size_t>(t)] < 1)
      plan.gain[i] = 0.0;
    else
      plan.gain[i] = (step_time(ctx, model, plan, i, t, r) - step_time(ctx, model, plan, i, t, r + 1)) * plan.remaining[i];
  }

  // Unchanged counts keep their GPUs; the rest in increasing count, most-free node first.
  static Decision place(const PolicyView& ctx, const Plan& plan) {
    const std::size_t n = plan.jobs.size();
    Decision d;
    policy_detail::NodePool pool(ctx.state());
    const std::vector<char> keep = pool.keep_or_release(ctx, plan.jobs, plan.type, plan.replicas, d.preempt);
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return plan.replicas[a] < plan.replicas[b]; });
    for (std::size_t i : order) {
      if (plan.replicas[i] == 0 || keep[i]) continue;
      AllocationRequest r{plan.jobs[i], plan.type[i], plan.replicas[i], pool.take_most_free(plan.type[i], plan.replicas[i]), 0};
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }

  // Where a running job's walk of its progress stood at the previous pass (epoch_now).
  struct ProgressMemo {
    SimTime from;                  // the walk's start: max(updated, resume_at)
    double done_from = -1.0;       // work done at `from` (< 0: no walk yet)
    std::uint64_t generation = 0;  // the allocation the walk is on
    int batch_size = 0;
    double seconds = 0.0;          // walked so far from `from`
    double done = 0.0;             // progress reached after `seconds`
  };

  // The job's epoch now. PolicyView::work_done walks a running job's progress from its last update
  // epoch by epoch at every pass, so a job running for n epochs costs O(n) per pass (issue 19: half
  // of an optimus run's instructions). Only the epoch is needed: each job's walk goes on from where
  // the previous pass left it. Two walks in pieces can differ from the single walk in their last
  // bits, so where the result lies within a relative 1e-9 of an epoch boundary the single walk
  // decides: the epoch is always the one work_done gives, and the outputs are unchanged.
  int epoch_now(const PolicyView& ctx, JobIndex j, const PolluxApplication& a) {
    const JobRuntime& job = ctx.job(j);
    const SimTime from = std::max(job.updated, job.resume_at);
    if (job.status != JobStatus::Running || ctx.now() <= from) return a.epoch_of(job.work_done);
    const double seconds = (ctx.now() - from).seconds();
    if (static_cast<std::size_t>(j) >= progress_.size()) progress_.resize(static_cast<std::size_t>(j) + 1);
    ProgressMemo& m = progress_[static_cast<std::size_t>(j)];
    if (m.done_from != job.work_done || m.from != from || m.generation != job.generation ||
        m.batch_size != job.batch_size || seconds < m.seconds)
      m = ProgressMemo{from, job.work_done, job.generation, job.batch_size, 0.0, job.work_done};
    m.done = progress_after(ctx.model(), *job.spec, ctx.cluster(), job.gpus, job.batch_size, m.done, seconds - m.seconds);
    m.seconds = seconds;
    const double slack = 1e-9 * std::max(std::abs(m.done), 1.0);
    const int epoch = a.epoch_of(m.done);
    const bool clear = (epoch == 0 || a.progress_at_epoch(epoch) <= m.done - slack) &&
                       (epoch >= a.max_epochs() || m.done + slack < a.progress_at_epoch(epoch + 1));
    return clear ? epoch : a.epoch_of(ctx.work_done(j));
  }

  bool largest_only_;
  std::vector<std::vector<double>> step_s_;  // [job * types + type][replicas]: step_time, < 0 = not yet
  std::vector<ProgressMemo> progress_;       // [job]
};

}  // namespace

void register_optimus(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "optimus",
      "greedy GPU-by-GPU allocation by marginal reduction of predicted remaining time (oracle step times)",
      "Optimus (Peng et al., EuroSys'18), as Optimus+Oracle in the Pollux simulator (petuum/adaptdl osdi21-artifact)",
      {{"type_choice", "fastest",
        "GPU type of a job's first GPU: 'fastest' (its own while it has room, else the type where one GPU steps "
        "fastest) or 'largest' (every job on the cluster's largest type, the rule before issue 14)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        const std::string& choice = param_string(p, "type_choice");
        if (choice != "fastest" && choice != "largest")
          throw InputError("", 0, "--param type_choice", fmt::format("expected 'fastest' or 'largest', got '{}'", choice));
        return std::make_unique<OptimusPolicy>(choice == "largest");
      },
      {}});
}

}  // namespace hetsim
