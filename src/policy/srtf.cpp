// srtf: preemptive shortest remaining time first. At every arrival and completion the active jobs
// are ranked by remaining time (remaining work over their best rate at the requested GPU count;
// ties by arrival order) and GPUs are handed out greedily in that order, each job on the fastest
// GPU type that still has room for it; jobs that no longer fit are preempted. Shorter jobs may pass
// a blocked longer one (greedy fill). Follows the SRTF/SRSF baselines of Tiresias (Gu et al.,
// NSDI'19) and Gandiva/Heet comparisons; restart costs come from the mechanism's
// --restart-overhead.
#include <algorithm>

#include "hetsim/policy/builtin.hpp"

namespace hetsim {
namespace {

class SrtfPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "srtf"; }

  Decision schedule(const PolicyView& ctx) override {
    const auto ntypes = ctx.cluster().gpu_types().size();
    struct Candidate {
      double remaining_s;
      JobIndex job;
    };
    std::vector<Candidate> order;
    order.reserve(ctx.pending().size() + ctx.running().size());
    auto add = [&](JobIndex j) {
      const JobSpec& spec = *ctx.job(j).spec;
      double best = 0.0;
      for (std::size_t t = 0; t < ntypes; ++t)
        best = std::max(best, ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), spec.requested_gpus));
      order.push_back({best > 0.0 ? ctx.remaining_work(j) / best : 1e300, j});
    };
    for (JobIndex j : ctx.running()) add(j);
    for (JobIndex j : ctx.pending()) add(j);
    std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
      return a.remaining_s != b.remaining_s ? a.remaining_s < b.remaining_s : a.job < b.job;
    });

    // Plan against the whole cluster: every running job's GPUs are up for grabs.
    std::vector<int> pool(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) pool[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    Decision d;
    for (const Candidate& c : order) {
      const JobRuntime& job = ctx.job(c.job);
      const int n = job.spec->requested_gpus;
      GpuTypeId pick = -1;
      if (job.status == JobStatus::Running && pool[static_cast<std::size_t>(job.gpu_type)] >= n) {
        pick = job.gpu_type;  // staying put avoids a needless restart
      } else {
        double best = 0.0;
        for (std::size_t t = 0; t < ntypes; ++t) {
          if (pool[t] < n) continue;
          double rate = ctx.rate_on_type(*job.spec, static_cast<GpuTypeId>(t), n);
          if (rate > best) {
            best = rate;
            pick = static_cast<GpuTypeId>(t);
          }
        }
      }
      if (pick < 0) {
        if (job.status == JobStatus::Running) d.preempt.push_back(c.job);
        continue;
      }
      pool[static_cast<std::size_t>(pick)] -= n;
      d.allocate.push_back({c.job, pick, n, {}});
    }
    return d;
  }
};

}  // namespace

void register_srtf(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "srtf",
      "preemptive shortest remaining time first, greedy fill, each job on the fastest GPU type with room",
      "SRTF baseline (Tiresias, Gu et al., NSDI'19)",
      {},
      [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<SrtfPolicy>();
      },
      nullptr});
}

}  // namespace hetsim
