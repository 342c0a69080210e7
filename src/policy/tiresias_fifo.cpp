// tiresias-fifo: the `fifo` scheduler of Tiresias' own simulator (Gu et al., "Tiresias: A GPU
// Cluster Manager for Distributed Deep Learning", NSDI'19; github.com/SymbioticLab/Tiresias,
// simulator/run_sim.py one_queue_fifo_sim_jobs) with its `yarn` placement (simulator/switch.py):
//  - at each instant, completions free their GPUs, arrivals join the end of the queue, then the
//    queue is walked in order and each job is placed by the yarn rule (yarn_fit) on the GPUs free
//    at that moment; the first job yarn cannot place stops the walk (no backfilling), even when
//    enough GPUs are free on fragmented nodes;
//  - non-preemptive: a job keeps its GPUs (the exact ones yarn chose) until it completes.
#include <algorithm>
#include <set>

#include "hetsim/policy/builtin.hpp"
#include "tiresias_sim.hpp"

namespace hetsim {
namespace {

using policy_detail::kTiresiasType;
using policy_detail::YarnNodes;

class TiresiasFifoPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "tiresias-fifo"; }

  Decision schedule(const PolicyView& ctx) override {
    for (JobIndex j : ctx.pending())
      if (known_.insert(j).second) queue_.push_back(j);
    Decision d;
    if (ctx.state().free_of_type(kTiresiasType) <= 0) return d;
    YarnNodes pool(ctx.state(), false);
    std::vector<int> taken(pool.nodes.size(), 0);  // GPUs of each node handed out in this pass
    std::size_t started = 0;
    for (JobIndex j : queue_) {
      std::vector<std::pair<std::size_t, int>> fit;
      if (!pool.take(ctx.job(j).spec->requested_gpus, &fit)) break;  // the head blocks the queue
      AllocationRequest r{j, kTiresiasType, ctx.job(j).spec->requested_gpus, {}, 0};
      for (const auto& [at, n] : fit) {
        take_node_gpus(ctx.state(), pool.nodes[at], taken[at], n, r.gpus);
        taken[at] += n;
      }
      d.allocate.push_back(std::move(r));
      ++started;
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(started));
    return d;
  }

 private:
  // Appends `count` free GPUs of `node`, skipping the first `skip` free ones (taken earlier in the pass).
  static void take_node_gpus(const ClusterState& state, NodeId node, int skip, int count, std::vector<GpuId>& out) {
    const Node& n = state.cluster().nodes()[static_cast<std::size_t>(node)];
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && count > 0; ++g) {
      if (state.owner(g) != ClusterState::kFree || skip-- > 0) continue;
      out.push_back(g);
      --count;
    }
  }

  std::set<JobIndex> known_;
  std::vector<JobIndex> queue_;  // waiting jobs in arrival order
};

}  // namespace

void register_tiresias_fifo(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "tiresias-fifo",
      "Tiresias' simulator's fifo: arrival order, each job placed by the yarn rule; the first that yarn cannot place "
      "blocks the queue; non-preemptive",
      "Tiresias (Gu et al., NSDI'19), simulator 'fifo' + 'yarn' (github.com/SymbioticLab/Tiresias)",
      {},
      [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<TiresiasFifoPolicy>();
      },
      nullptr});
}

}  // namespace hetsim
