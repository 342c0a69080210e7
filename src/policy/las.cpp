// las: preemptive least attained service (LAS, also "foreground-background"), the size-oblivious
// rule that favours the jobs that have received the least service so far (Nuyens and Wierman,
// "The Foreground-Background queue: A survey", Performance Evaluation 65(3-4), 2008), applied to
// GPU jobs with GPU-seconds as the service, as Tiresias does before discretising it into queues
// (Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI'19, sec. 4.2).
// Rules (docs/policies.md), written once here and once in Python (examples/python/las.py) so the
// two can be checked byte for byte:
//  - the active jobs are ordered by attained GPU-seconds brought up to now, ties by arrival order;
//  - walking that order, each job is promised its requested GPU count: a running job on its current
//    type when that type still has enough unpromised GPUs, else (running or not) on the type with
//    enough unpromised GPUs where its rate is highest (ties: lowest type index); a job that fits
//    nowhere is skipped (smaller jobs behind it may still fit); the walk stops when nothing is left;
//  - running jobs not promised are preempted; the others start or move in walk order.
// Event-driven: the mechanism asks after every instant with arrivals or completions.
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "fastest_type.hpp"
#include "hetsim/policy/builtin.hpp"

namespace hetsim {
namespace {

class LasPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "las"; }

  Decision schedule(const PolicyView& ctx) override {
    order_.clear();
    for (JobIndex j : ctx.pending()) order_.emplace_back(ctx.attained_gpu_s(j), j);
    for (JobIndex j : ctx.running()) order_.emplace_back(ctx.attained_gpu_s(j), j);
    std::sort(order_.begin(), order_.end());  // (attained, index): ties by arrival order
    const std::size_t types = ctx.cluster().gpu_types().size();
    std::vector<int> left(types);
    for (std::size_t t = 0; t < types; ++t) left[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    int left_total = std::accumulate(left.begin(), left.end(), 0);
    Decision d;
    std::vector<char> kept(ctx.running().empty() ? 0 : static_cast<std::size_t>(ctx.running().back()) + 1, 0);
    for (const auto& [attained, j] : order_) {
      if (left_total == 0) break;
      const JobRuntime& job = ctx.job(j);
      const int demand = job.spec->requested_gpus;
      const bool running = job.status == JobStatus::Running;
      if (running && left[static_cast<std::size_t>(job.gpu_type)] >= demand) {
        left[static_cast<std::size_t>(job.gpu_type)] -= demand;
        left_total -= demand;
        kept[static_cast<std::size_t>(j)] = 1;
        continue;
      }
      const GpuTypeId pick = policy_detail::fastest_type_with_room(ctx, *job.spec, left);
      if (pick < 0) continue;
      left[static_cast<std::size_t>(pick)] -= demand;
      left_total -= demand;
      if (running) kept[static_cast<std::size_t>(j)] = 1;  // moves: listed in allocate, not preempted
      d.allocate.push_back({j, pick, demand, {}});
    }
    for (JobIndex j : ctx.running())
      if (!kept[static_cast<std::size_t>(j)]) d.preempt.push_back(j);
    return d;
  }

 private:
  std::vector<std::pair<double, JobIndex>> order_;  // reused between passes
};

}  // namespace

void register_las(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "las",
      "preemptive least attained service: fewest GPU-seconds first, each on its current or fastest type with room",
      "LAS / foreground-background (Nuyens and Wierman, Perf. Eval. 2008), GPU-seconds as in Tiresias (NSDI'19)",
      {},
      [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<LasPolicy>();
      },
      nullptr});
}

}  // namespace hetsim
