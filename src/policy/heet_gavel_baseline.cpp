// heet-gavel-baseline: the baseline the Heet prototype calls "Gavel" (github.com/mozizhao/elastic,
// Gavel_scheduler.py; Heet: Mo, Xu, Xu, ASPLOS'24, section 6): each arriving job joins the queue of
// one GPU type drawn at random and stays there; every round (120 s), on each type, the queued jobs
// in ascending order of remaining time at their requested GPU count (remaining work / rate on that
// count) get their requested count while the type has that many GPUs left; a job that does not fit
// is skipped and the next, shorter-fitting ones still get GPUs. Preemptive (re-decided every
// round), rigid at the requested count. It is not Gavel's heterogeneity-aware LP (gavel-maxmin).
// Ours: the random type is drawn among the types that have the job's count in all and a non-zero
// rate for it (the prototype draws among all); a job no type can hold is rejected at admission
// (sched/admission.cpp), as under every policy.
#include <algorithm>
#include <fmt/format.h>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "random_binding.hpp"

namespace hetsim {
namespace {

int demand_of(const JobSpec& job) { return std::max(1, job.requested_gpus); }

class HeetGavelBaseline final : public SchedulingPolicy {
 public:
  HeetGavelBaseline(double round_s, std::uint64_t seed) : round_s_(round_s), binding_(seed) {}
  std::string name() const override { return "heet-gavel-baseline"; }
  std::optional<double> round_s() const override { return round_s_; }

  Decision schedule(const PolicyView& ctx) override {
    const Cluster& cluster = ctx.cluster();
    const auto ntypes = static_cast<GpuTypeId>(cluster.gpu_types().size());
    std::vector<std::vector<std::pair<double, JobIndex>>> queue(static_cast<std::size_t>(ntypes));
    auto enqueue = [&](JobIndex j) {
      const JobSpec& spec = *ctx.job(j).spec;
      const GpuTypeId t = binding_.type_among(j, fitting_types(ctx, spec), ntypes);
      const double rate = ctx.rate_on_type(spec, t, demand_of(spec));
      if (rate > 0.0) queue[static_cast<std::size_t>(t)].push_back({ctx.remaining_work(j) / rate, j});
    };
    for (JobIndex j : ctx.running()) enqueue(j);
    for (JobIndex j : ctx.pending()) enqueue(j);
    Decision d;
    std::vector<JobIndex> chosen;
    for (GpuTypeId t = 0; t < ntypes; ++t) {
      auto& q = queue[static_cast<std::size_t>(t)];
      std::sort(q.begin(), q.end());  // shortest remaining time first; ties: lower job index
      int left = cluster.gpus_of_type(t);
      for (const auto& [time_s, j] : q) {
        const int n = demand_of(*ctx.job(j).spec);
        if (n > left) continue;
        left -= n;
        chosen.push_back(j);
        d.allocate.push_back({j, t, n, {}});
      }
    }
    std::sort(chosen.begin(), chosen.end());
    for (JobIndex j : ctx.running())
      if (!std::binary_search(chosen.begin(), chosen.end(), j)) d.preempt.push_back(j);
    return d;
  }

 private:
  // Types with the job's requested count in all and a non-zero rate on it.
  static std::vector<GpuTypeId> fitting_types(const PolicyView& ctx, const JobSpec& job) {
    std::vector<GpuTypeId> ok;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      if (ctx.cluster().gpus_of_type(type) >= demand_of(job) && ctx.rate_on_type(job, type, demand_of(job)) > 0.0)
        ok.push_back(type);
    }
    return ok;
  }

  double round_s_;
  RandomTypeBinding binding_;
};

}  // namespace

void register_heet_gavel_baseline(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "heet-gavel-baseline",
      "the Heet prototype's 'Gavel' baseline: random GPU type per job, shortest remaining time first per type, "
      "requested GPU count (rigid), skipping jobs that do not fit",
      "Heet prototype baseline mozizhao/elastic Gavel_scheduler.py (Mo, Xu, Xu, ASPLOS'24)",
      {{"round_s", "120", "round length in seconds when the run gives no --interval"}},
      [](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<SchedulingPolicy> {
        const double round = param_double(p, "round_s", 1e-3, kMaxSimSeconds);
        return std::make_unique<HeetGavelBaseline>(round, seed);
      },
      nullptr});
}

}  // namespace hetsim
