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
// Needs the goodput model (a Pollux/Sia workload). Plans on the cluster's largest GPU type.
#include <algorithm>
#include <cmath>

#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

class OptimusPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "optimus"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself

  Decision schedule(const PolicyView& ctx) override {
    const auto* model = dynamic_cast<const GoodputModel*>(&ctx.model());
    if (!model) throw InputError("", 0, "--policy", "optimus needs a Pollux/Sia workload (--workload): it plans with the goodput model");
    const Cluster& cluster = ctx.cluster();
    GpuTypeId type = 0;
    for (std::size_t t = 1; t < cluster.gpu_types().size(); ++t)
      if (cluster.gpus_of_type(static_cast<GpuTypeId>(t)) > cluster.gpus_of_type(type)) type = static_cast<GpuTypeId>(t);
    const std::string& type_name = cluster.gpu_types()[static_cast<std::size_t>(type)].name;
    const int per_node = cluster.max_gpus_per_node(type);

    std::vector<JobIndex> jobs(ctx.pending().begin(), ctx.pending().end());
    jobs.insert(jobs.end(), ctx.running().begin(), ctx.running().end());
    std::sort(jobs.begin(), jobs.end());
    const std::size_t n = jobs.size();
    std::vector<double> remaining(n, 1.0);
    std::vector<const PolluxApplication*> apps(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      const JobSpec& spec = *ctx.job(jobs[i]).spec;
      apps[i] = model->app(spec.job_type);
      const PolluxApplication& a = *apps[i];
      int epoch = a.epoch_of(ctx.work_done(jobs[i]));
      int last = a.max_epochs() - 1;  // completion epoch: no target metric in the simulator
      if (last > epoch) remaining[i] = a.iteration(spec.global_batch_size, last) - a.iteration(spec.global_batch_size, epoch);
    }
    auto step_time = [&](std::size_t i, int replicas) {
      const PolluxApplication& a = *apps[i];
      const int batch = ctx.job(jobs[i]).spec->global_batch_size;
      LocalBatch lb = split_batch(a, batch, replicas);
      if (replicas == 1) {
        // predict_step_time accumulates at least once on one GPU, whatever the batch.
        constexpr double kEps = 1e-8;
        int local = static_cast<int>(std::ceil(static_cast<double>(batch) - kEps));
        lb.accum_steps = std::max(1, static_cast<int>(std::ceil(local / static_cast<double>(a.max_local_bsz()) - kEps)) - 1);
        lb.atomic_bsz = static_cast<int>(std::ceil(local / static_cast<double>(lb.accum_steps + 1) - kEps));
        lb.atomic_bsz = std::min(lb.atomic_bsz, static_cast<int>(static_cast<double>(a.max_batch_size()) / (lb.accum_steps + 1)));
      }
      return model->iteration_time_s(a, type_name, packed_placement(replicas, per_node), lb);
    };
    int free_gpus = cluster.gpus_of_type(type);
    std::vector<int> replicas(n, 0);
    std::vector<double> gain(n, 0.0);
    auto update_gain = [&](std::size_t i) {
      const int max_r = ctx.job(jobs[i]).spec->max_gpus;
      if (replicas[i] + 1 > max_r || free_gpus < 1)
        gain[i] = 0.0;
      else
        gain[i] = (step_time(i, replicas[i]) - step_time(i, replicas[i] + 1)) * remaining[i];
    };
    for (std::size_t i = 0; i < n; ++i) {
      if (free_gpus < 1) continue;
      replicas[i] = 1;
      --free_gpus;
      update_gain(i);
    }
    while (free_gpus > 0) {
      std::size_t best = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (gain[i] > gain[best]) best = i;
      if (n == 0 || !(gain[best] > 0.0)) break;
      ++replicas[best];
      update_gain(best);
      --free_gpus;
    }
    // Placement: unchanged counts keep their GPUs; the rest in increasing count, most-free node first.
    Decision d;
    policy_detail::NodePool pool(ctx.state());
    const std::vector<GpuTypeId> types(n, type);
    const std::vector<char> keep = pool.keep_or_release(ctx, jobs, types, replicas, d.preempt);
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return replicas[a] < replicas[b]; });
    for (std::size_t i : order) {
      if (replicas[i] == 0 || keep[i]) continue;
      AllocationRequest r{jobs[i], type, replicas[i], pool.take_most_free(type, replicas[i]), 0};
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }
};

}  // namespace

void register_optimus(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "optimus",
      "greedy GPU-by-GPU allocation by marginal reduction of predicted remaining time (oracle step times)",
      "Optimus (Peng et al., EuroSys'18), as Optimus+Oracle in the Pollux simulator (petuum/adaptdl osdi21-artifact)",
      {},
      [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<OptimusPolicy>();
      },
      {}});
}

}  // namespace hetsim
