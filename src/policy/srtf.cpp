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
// none of their demands fits anywhere. Most passes do not even re-rank the running jobs: a running
// job's remaining time only falls, so the key it had when last ranked bounds it from above; when
// every waiting job that the fill reaches before that bound goes to its fastest type within the
// free GPUs, no running job can be displaced, and the pass is decided from the waiting jobs alone
// (running jobs keep their GPUs without a request, as the Decision contract allows). Otherwise the
// full merged fill runs; both give the same decision.
#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

#include "demand_queue.hpp"
#include "hetsim/policy/builtin.hpp"

namespace hetsim {
namespace {

class SrtfPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "srtf"; }

  Decision schedule(const PolicyView& ctx) override {
    sync(ctx);
    if (pending_.size() != ctx.pending().size())
      throw std::logic_error("srtf: waiting jobs out of step with PolicyView::changed()");
    Decision d;
    if (pending_.size() == 0 || fill_free_gpus(ctx, d)) return d;
    d = {};
    merged_fill(ctx, d);
    return d;
  }

 private:
  using Entry = std::pair<double, JobIndex>;  // (remaining time s, job)
  using Queue = policy_detail::DemandQueue<double>;
  struct JobState {
    std::vector<double> rates;  // [type] at the requested count; empty until first asked
    double best_rate = 0.0;     // the largest of rates
    bool waiting = false;   // in pending_ under `key`
    bool ranked = false;    // in running_
    bool bounded = false;   // in bound_ under `bound`
    Entry key{};
    Entry bound{};
  };

  // The full greedy fill: plan against the whole cluster (every running job's GPUs are up for
  // grabs); running and waiting jobs are merged in one (remaining time, index) order.
  void merged_fill(const PolicyView& ctx, Decision& d) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    const std::vector<Entry>& running = rank_running(ctx);
    std::vector<int> pool(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) pool[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
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
  }

  // The merged fill without visiting running jobs, when that gives the same decision: every
  // waiting job ranked before some running job (below `bound`, the largest key a running job had
  // when last ranked) must fit on its fastest type within the GPUs still free, so no running job
  // loses its GPUs; the waiting jobs after every running job then share the free GPUs in order.
  // Returns false (leaving `d` partial) when the shortcut does not apply.
  bool fill_free_gpus(const PolicyView& ctx, Decision& d) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    std::vector<int> slack(ntypes);
    int capacity = 0;
    for (std::size_t t = 0; t < ntypes; ++t) {
      slack[t] = ctx.state().free_of_type(static_cast<GpuTypeId>(t));
      capacity = std::max(capacity, ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t)));
    }
    Queue::Cursor waiting(pending_);
    int gpus = 0;
    if (const Entry* top = largest_bound(ctx)) {
      const Entry bound = *top;
      for (const Entry* w; (w = waiting.peek(capacity, &gpus)) != nullptr && *w < bound; waiting.pop()) {
        const GpuTypeId t = fastest_type(ctx, w->second, gpus);
        if (t < 0) continue;  // no type runs it: the fill passes it by
        if (slack[static_cast<std::size_t>(t)] < gpus) return false;
        slack[static_cast<std::size_t>(t)] -= gpus;
        d.allocate.push_back({w->second, t, gpus, {}});
      }
    }
    for (const Entry* w; (w = waiting.peek(*std::max_element(slack.begin(), slack.end()))) != nullptr; waiting.pop())
      place(ctx, w->second, slack, d);
    return true;
  }

  // The largest bound of a running job, or nullptr when none runs. Stale entries on top are
  // dropped; when they outnumber the live ones the heap is rebuilt from the running jobs.
  const Entry* largest_bound(const PolicyView& ctx) {
    auto live = [&](const Entry& e) {
      auto it = state_.find(e.second);
      return it != state_.end() && it->second.bounded && it->second.bound == e;
    };
    if (bound_.size() > 2 * ctx.running().size() + 64) {
      std::erase_if(bound_, [&](const Entry& e) { return !live(e); });
      std::make_heap(bound_.begin(), bound_.end());
    }
    while (!bound_.empty() && !live(bound_.front())) {
      std::pop_heap(bound_.begin(), bound_.end());
      bound_.pop_back();
    }
    return bound_.empty() ? nullptr : &bound_.front();
  }

  // The type the fill gives job j when every type has room: the fastest (the first of equals)
  // among types with at least `gpus` GPUs; -1 when none runs it.
  GpuTypeId fastest_type(const PolicyView& ctx, JobIndex j, int gpus) {
    const double* r = rates(ctx, j);
    GpuTypeId pick = -1;
    double best = 0.0;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t)
      if (ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t)) >= gpus && r[t] > best) {
        best = r[t];
        pick = static_cast<GpuTypeId>(t);
      }
    return pick;
  }

  // Keeps pending_ equal to the jobs waiting now, keyed by their (fixed) remaining time; adds
  // jobs that started to running_ (ranked at the next merged fill) and keeps bound_ equal to the
  // running jobs, each with the key it had when it was first seen running (an upper bound).
  void sync(const PolicyView& ctx) {
    for (JobIndex j : ctx.changed()) {
      JobState& s = state(ctx, j);
      const int n = ctx.job(j).spec->requested_gpus;
      if (s.waiting) pending_.erase(n, s.key);
      s.waiting = ctx.job(j).status == JobStatus::Pending;
      if (s.waiting) {
        s.key = {remaining_s(ctx, j, s), j};
        pending_.insert(n, s.key);
      }
      const bool run = ctx.job(j).status == JobStatus::Running;
      if (run && !s.ranked) {
        s.ranked = true;
        running_.push_back({0.0, j});
      }
      if (run && !s.bounded) {
        s.bound = {remaining_s(ctx, j, s), j};
        bound_.push_back(s.bound);
        std::push_heap(bound_.begin(), bound_.end());
      }
      s.bounded = run;  // a job that stops leaves a stale entry in bound_, dropped lazily
      // A job that has ended is forgotten (its stale running_ entry goes at the next ranking), so
      // the state kept is the active jobs', not every job's of the run.
      if (!s.waiting && !run) state_.erase(j);
    }
  }

  // The running jobs by (remaining time, index). Their order rarely changes between passes (on one
  // type all run down at the same pace), so the last merged fill's order [0, sorted_) is kept:
  // still-running jobs are re-keyed and, when still sorted, merged with the jobs started since
  // instead of re-sorted. The order is a strict total one, so the result is the full sort's.
  // bound_ is reset to the fresh keys.
  const std::vector<Entry>& rank_running(const PolicyView& ctx) {
    std::size_t out = 0, kept = 0;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const JobIndex j = running_[i].second;
      auto it = state_.find(j);
      if (it == state_.end()) continue;  // ended: forgotten
      JobState& s = it->second;
      s.ranked = ctx.job(j).status == JobStatus::Running;
      if (!s.ranked) continue;
      kept += i < sorted_ ? 1 : 0;
      running_[out++] = {remaining_s(ctx, j, s), j};
    }
    running_.resize(out);
    if (running_.size() != ctx.running().size())
      throw std::logic_error("srtf: running jobs out of step with PolicyView::changed()");
    const auto mid = running_.begin() + static_cast<std::ptrdiff_t>(kept);
    if (std::is_sorted(running_.begin(), mid)) {
      std::sort(mid, running_.end());
      merged_.clear();  // std::merge into a kept buffer: inplace_merge allocates one every pass
      std::merge(running_.begin(), mid, mid, running_.end(), std::back_inserter(merged_));
      running_.swap(merged_);
    } else {
      std::sort(running_.begin(), running_.end());
    }
    sorted_ = running_.size();
    bound_.assign(running_.begin(), running_.end());
    std::make_heap(bound_.begin(), bound_.end());
    for (const Entry& e : running_) state(ctx, e.second).bound = e;
    return running_;
  }

  // Rate of job j on each type at its requested count, and the best of them, computed once (the
  // model is a function of the spec and the shape).
  const double* rates(const PolicyView& ctx, JobIndex j) { return rates(ctx, j, state(ctx, j)); }
  const double* rates(const PolicyView& ctx, JobIndex j, JobState& s) {
    if (s.rates.empty()) {
      const auto ntypes = ctx.cluster().gpu_types().size();
      const JobSpec& spec = *ctx.job(j).spec;
      s.rates.resize(ntypes);
      s.best_rate = 0.0;
      for (std::size_t t = 0; t < ntypes; ++t) {
        s.rates[t] = ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), spec.requested_gpus);
        s.best_rate = std::max(s.best_rate, s.rates[t]);
      }
    }
    return s.rates.data();
  }

  // State of an active job, made on first sight.
  JobState& state(const PolicyView&, JobIndex j) { return state_[j]; }

  double remaining_s(const PolicyView& ctx, JobIndex j) { return remaining_s(ctx, j, state(ctx, j)); }
  double remaining_s(const PolicyView& ctx, JobIndex j, JobState& s) {
    rates(ctx, j, s);
    return s.best_rate > 0.0 ? ctx.remaining_work(j) / s.best_rate : 1e300;
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
  std::vector<Entry> running_;   // last merged fill's ranking of the running jobs, then those started since
  std::size_t sorted_ = 0;       // entries of running_ in that ranking
  std::vector<Entry> merged_;    // scratch of rank_running
  // Max-heap of (key, job) with a key at least each running job's remaining time, and stale
  // entries of jobs that stopped (or were re-bounded), dropped when they reach the top: no
  // allocation per pass.
  std::vector<Entry> bound_;
  std::unordered_map<JobIndex, JobState> state_;  // active jobs
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
