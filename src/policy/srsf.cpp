// srsf: shortest remaining service first as the Heet prototype's baseline runs it
// (github.com/mozizhao/elastic, SRSF_scheduler.py; SRSF after Tiresias, Gu et al., NSDI'19, and
// Gandiva): every arriving job joins the queue of one GPU type drawn at random; every round, on
// each type, the jobs with the least remaining time at a host's worth of GPUs (remaining work /
// rate on H GPUs, H = GPUs per host: the prototype's all_job_limit = 4) get H GPUs each, as many
// jobs as there are whole hosts. Preemptive (re-decided every round); requested GPU counts are
// ignored, as in the prototype. Round length 120 s unless --interval is given.
#include <algorithm>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "random_binding.hpp"

namespace hetsim {
namespace {

class SrsfPolicy final : public SchedulingPolicy {
 public:
  SrsfPolicy(double round_s, std::uint64_t seed) : round_s_(round_s), binding_(seed) {}
  std::string name() const override { return "srsf"; }
  std::optional<double> round_s() const override { return round_s_; }

  Decision schedule(const PolicyView& ctx) override {
    const Cluster& cluster = ctx.cluster();
    const auto ntypes = cluster.gpu_types().size();
    std::vector<std::vector<std::pair<double, JobIndex>>> queue(ntypes);
    std::vector<JobIndex> active(ctx.running().begin(), ctx.running().end());
    active.insert(active.end(), ctx.pending().begin(), ctx.pending().end());
    std::sort(active.begin(), active.end());
    int largest = 0;
    for (std::size_t t = 0; t < ntypes; ++t) largest = std::max(largest, cluster.max_gpus_per_node(static_cast<GpuTypeId>(t)));
    for (JobIndex j : active) {
      const GpuTypeId t = binding_.type_of(ctx, j, largest);
      const int h = cluster.max_gpus_per_node(t);
      const double rate = ctx.rate_on_type(*ctx.job(j).spec, t, h);
      if (rate > 0.0) queue[static_cast<std::size_t>(t)].push_back({ctx.remaining_work(j) / rate, j});
    }
    Decision d;
    std::vector<char> chosen(active.empty() ? 0 : static_cast<std::size_t>(active.back()) + 1, 0);
    for (std::size_t t = 0; t < ntypes; ++t) {
      auto& q = queue[t];
      std::sort(q.begin(), q.end());
      const int h = cluster.max_gpus_per_node(static_cast<GpuTypeId>(t));
      const std::size_t slots = static_cast<std::size_t>(cluster.gpus_of_type(static_cast<GpuTypeId>(t)) / h);
      for (std::size_t k = 0; k < q.size() && k < slots; ++k) {
        chosen[static_cast<std::size_t>(q[k].second)] = 1;
        d.allocate.push_back({q[k].second, static_cast<GpuTypeId>(t), h, {}});
      }
    }
    for (JobIndex j : ctx.running())
      if (!chosen[static_cast<std::size_t>(j)]) d.preempt.push_back(j);
    return d;
  }

 private:
  double round_s_;
  RandomTypeBinding binding_;
};

}  // namespace

void register_srsf(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "srsf",
      "shortest remaining service first per randomly bound GPU type, a whole host per job (Heet's baseline)",
      "Heet prototype baseline mozizhao/elastic SRSF_scheduler.py (SRSF: Tiresias, Gu et al., NSDI'19)",
      {{"round_s", "120", "round length in seconds when the run gives no --interval"}},
      [](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<SchedulingPolicy> {
        // As --interval: rounds under a millisecond would take billions of rounds.
        const double round = param_double(p, "round_s", 1e-3, kMaxSimSeconds);
        return std::make_unique<SrsfPolicy>(round, seed);
      },
      nullptr});
}

}  // namespace hetsim
