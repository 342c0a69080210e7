// srtf: preemptive shortest remaining time first. At every arrival and completion the active jobs
// are ranked by remaining time (remaining work over their best rate at the requested GPU count;
// ties by arrival order) and GPUs are handed out greedily in that order, each job on the fastest
// GPU type that still has room for it; jobs that no longer fit are preempted. Shorter jobs may pass
// a blocked longer one (greedy fill). Follows the SRTF/SRSF baselines of Tiresias (Gu et al.,
// NSDI'19) and Gandiva/Heet comparisons; restart costs come from the mechanism's
// --restart-overhead.
// Pass cost (issue 11): a waiting job's remaining work does not change, so waiting jobs stay
// ranked between passes in a DemandQueue updated from PolicyView::changed(); only the
// running jobs (at most one per GPU) are re-ranked, and the fill stops visiting waiting jobs once
// none of their demands fits anywhere.
#include <algorithm>
#include <stdexcept>

#include "demand_queue.hpp"
#include "hetsim/policy/builtin.hpp"

namespace hetsim {
namespace {

class SrtfPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "srtf"; }

  Decision schedule(const PolicyView& ctx) override {
    const auto ntypes = ctx.cluster().gpu_types().size();
    sync(ctx);
    if (pending_.size() != ctx.pending().size())
      throw std::logic_error("srtf: waiting jobs out of step with PolicyView::changed()");
    const std::vector<Entry>& running = rank_running(ctx);

    // Plan against the whole cluster: every running job's GPUs are up for grabs. Running and
    // waiting jobs are merged in one (remaining time, index) order.
    std::vector<int> pool(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) pool[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    Decision d;
    Queue::Cursor waiting(pending_);
    for (std::size_t r = 0;;) {
      const Entry* w = waiting.peek(*std::max_element(pool.begin(), pool.end()));
      if (r < running.size() && (w == nullptr || running[r] < *w)) {
        place(ctx, running[r++].second, pool, d);
      } else if (w != nullptr) {
        const JobIndex j = w->second;
        waiting.pop();
        place(ctx, j, pool, d);
      } else {
        break;
      }
    }
    return d;
  }

 private:
  using Entry = std::pair<double, JobIndex>;  // (remaining time s, job)
  using Queue = policy_detail::DemandQueue<double>;
  struct JobState {
    bool rates_known = false;
    bool waiting = false;   // in pending_ under `key`
    bool ranked = false;    // in running_
    Entry key{};
  };

  // Keeps pending_ equal to the jobs waiting now, keyed by their (fixed) remaining time.
  void sync(const PolicyView& ctx) {
    for (JobIndex j : ctx.changed()) {
      JobState& s = state(ctx, j);
      const int n = ctx.job(j).spec->requested_gpus;
      if (s.waiting) pending_.erase(n, s.key);
      s.waiting = ctx.job(j).status == JobStatus::Pending;
      if (s.waiting) {
        s.key = {remaining_s(ctx, j), j};
        pending_.insert(n, s.key);
      }
    }
  }

  // The running jobs by (remaining time, index). Their order rarely changes between passes (on one
  // type all run down at the same pace), so last pass's order is kept: still-running jobs are
  // re-keyed and, when still sorted, merged with the newly started ones instead of re-sorted. The
  // order is a strict total one, so the result is the full sort's.
  const std::vector<Entry>& rank_running(const PolicyView& ctx) {
    for (Entry& e : running_) {
      const bool keep = ctx.job(e.second).status == JobStatus::Running;
      state(ctx, e.second).ranked = keep;
      if (keep) e.first = remaining_s(ctx, e.second);
    }
    std::erase_if(running_, [&](const Entry& e) { return !state(ctx, e.second).ranked; });
    const auto kept = static_cast<std::ptrdiff_t>(running_.size());
    for (JobIndex j : ctx.changed())
      if (ctx.job(j).status == JobStatus::Running && !state(ctx, j).ranked) {
        state(ctx, j).ranked = true;
        running_.push_back({remaining_s(ctx, j), j});
      }
    if (running_.size() != ctx.running().size())
      throw std::logic_error("srtf: running jobs out of step with PolicyView::changed()");
    if (std::is_sorted(running_.begin(), running_.begin() + kept)) {
      std::sort(running_.begin() + kept, running_.end());
      std::inplace_merge(running_.begin(), running_.begin() + kept, running_.end());
    } else {
      std::sort(running_.begin(), running_.end());
    }
    return running_;
  }

  // Rate of job j on each type at its requested count, computed once (the model is a function of
  // the spec and the shape).
  const double* rates(const PolicyView& ctx, JobIndex j) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    JobState& s = state(ctx, j);
    double* r = &rates_[static_cast<std::size_t>(j) * ntypes];
    if (!s.rates_known) {
      const JobSpec& spec = *ctx.job(j).spec;
      for (std::size_t t = 0; t < ntypes; ++t)
        r[t] = ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), spec.requested_gpus);
      s.rates_known = true;
    }
    return r;
  }

  // Per-job state, grown to the job's index on first sight.
  JobState& state(const PolicyView& ctx, JobIndex j) {
    const auto k = static_cast<std::size_t>(j);
    if (k >= state_.size()) {
      state_.resize(k + 1);
      rates_.resize((k + 1) * ctx.cluster().gpu_types().size());
    }
    return state_[k];
  }

  double remaining_s(const PolicyView& ctx, JobIndex j) {
    const double* r = rates(ctx, j);
    double best = 0.0;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t) best = std::max(best, r[t]);
    return best > 0.0 ? ctx.remaining_work(j) / best : 1e300;
  }

  // The greedy step for one job: stay put if running and its type still has room, else the
  // fastest type with room; a running job with no room is preempted.
  void place(const PolicyView& ctx, JobIndex j, std::vector<int>& pool, Decision& d) {
    const JobRuntime& job = ctx.job(j);
    const int n = job.spec->requested_gpus;
    GpuTypeId pick = -1;
    if (job.status == JobStatus::Running && pool[static_cast<std::size_t>(job.gpu_type)] >= n) {
      pick = job.gpu_type;  // staying put avoids a needless restart
    } else {
      const double* r = rates(ctx, j);
      double best = 0.0;
      for (std::size_t t = 0; t < pool.size(); ++t) {
        if (pool[t] < n) continue;
        if (r[t] > best) {
          best = r[t];
          pick = static_cast<GpuTypeId>(t);
        }
      }
    }
    if (pick < 0) {
      if (job.status == JobStatus::Running) d.preempt.push_back(j);
      return;
    }
    pool[static_cast<std::size_t>(pick)] -= n;
    d.allocate.push_back({j, pick, n, {}});
  }

  Queue pending_;
  std::vector<Entry> running_;   // last pass's ranking of the running jobs
  std::vector<JobState> state_;  // [job]
  std::vector<double> rates_;    // [job * types + type]
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
