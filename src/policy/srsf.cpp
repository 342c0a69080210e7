// srsf: shortest remaining service first as the Heet prototype's baseline runs it
// (github.com/mozizhao/elastic, SRSF_scheduler.py; SRSF after Tiresias, Gu et al., NSDI'19, and
// Gandiva): every arriving job joins the queue of one GPU type drawn at random; every round, on
// each type, the jobs with the least remaining time at a host's worth of GPUs (remaining work /
// rate on H GPUs, H = GPUs per host: the prototype's all_job_limit = 4) get H GPUs each, as many
// jobs as there are whole hosts. Preemptive (re-decided every round); requested GPU counts are
// ignored, as in the prototype. Round length 120 s unless --interval is given.
#include <algorithm>
#include <set>

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
  bool shares_gpus() const override { return false; }  // chooses GPU counts itself (whole GPUs)
  std::optional<double> round_s() const override { return round_s_; }

  Decision schedule(const PolicyView& ctx) override {
    const Cluster& cluster = ctx.cluster();
    const auto ntypes = cluster.gpu_types().size();
    sync(ctx);
    // Running jobs are re-ranked every round (their remaining time moves); waiting ones are kept
    // ranked in waiting_ (issue 11: a round costs the running jobs and the slots handed out).
    std::vector<std::vector<Entry>> running(ntypes);
    for (JobIndex j : ctx.running()) {
      const GpuTypeId t = bound_type(ctx, j);
      const double rate = ctx.rate_on_type(*ctx.job(j).spec, t, cluster.max_gpus_per_node(t));
      if (rate > 0.0) running[static_cast<std::size_t>(t)].push_back({ctx.remaining_work(j) / rate, j});
    }
    Decision d;
    std::vector<JobIndex> chosen;
    for (std::size_t t = 0; t < ntypes; ++t) {
      auto& run = running[t];
      std::sort(run.begin(), run.end());
      const int h = cluster.max_gpus_per_node(static_cast<GpuTypeId>(t));
      const std::size_t slots = static_cast<std::size_t>(cluster.gpus_of_type(static_cast<GpuTypeId>(t)) / h);
      auto w = waiting_[t].begin();
      std::size_t r = 0;
      for (std::size_t k = 0; k < slots && (r < run.size() || w != waiting_[t].end()); ++k) {
        const bool take_run = r < run.size() && (w == waiting_[t].end() || run[r] < *w);
        const JobIndex j = take_run ? run[r++].second : (w++)->second;
        if (take_run) chosen.push_back(j);
        d.allocate.push_back({j, static_cast<GpuTypeId>(t), h, {}});
      }
    }
    std::sort(chosen.begin(), chosen.end());
    for (JobIndex j : ctx.running())
      if (!std::binary_search(chosen.begin(), chosen.end(), j)) d.preempt.push_back(j);
    return d;
  }

 private:
  using Entry = std::pair<double, JobIndex>;  // (remaining time s at a host's worth of GPUs, job)
  struct JobState {
    bool waiting = false;  // in waiting_[type] under key
    GpuTypeId type = 0;
    Entry key{};
  };

  GpuTypeId bound_type(const PolicyView& ctx, JobIndex j) {
    int largest = 0;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t)
      largest = std::max(largest, ctx.cluster().max_gpus_per_node(static_cast<GpuTypeId>(t)));
    return binding_.type_of(ctx, j, largest);
  }

  // Keeps waiting_ equal to the waiting jobs that can run on their type, keyed by their (fixed)
  // remaining time.
  void sync(const PolicyView& ctx) {
    waiting_.resize(ctx.cluster().gpu_types().size());
    for (JobIndex j : ctx.changed()) {
      const auto k = static_cast<std::size_t>(j);
      if (k >= state_.size()) state_.resize(k + 1);
      JobState& s = state_[k];
      if (s.waiting) waiting_[static_cast<std::size_t>(s.type)].erase(s.key);
      s.waiting = false;
      if (ctx.job(j).status != JobStatus::Pending) continue;
      s.type = bound_type(ctx, j);
      const double rate = ctx.rate_on_type(*ctx.job(j).spec, s.type, ctx.cluster().max_gpus_per_node(s.type));
      if (!(rate > 0.0)) continue;
      s.key = {ctx.remaining_work(j) / rate, j};
      s.waiting = true;
      waiting_[static_cast<std::size_t>(s.type)].insert(s.key);
    }
  }

  double round_s_;
  RandomTypeBinding binding_;
  std::vector<std::set<Entry>> waiting_;  // [type]
  std::vector<JobState> state_;           // [job]
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
