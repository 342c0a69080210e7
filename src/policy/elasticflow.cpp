// elasticflow: deadline-aware elastic scheduling after ElasticFlow (Gu et al., "ElasticFlow: An
// Elastic Serverless Training Platform for Distributed Deep Learning", ASPLOS'23). Two parts:
//  - Admission control: a job with a deadline is rejected at its arrival when even its fastest
//    allocation (any GPU type, any allowed count) could not finish its work by the deadline, with
//    the reason in jobs.csv. Jobs without a deadline are admitted as best effort.
//  - Minimum satisfactory share, then marginal gain: at every arrival and completion, jobs with a
//    deadline are visited in deadline order (ties by job index = submit order) and each gets the
//    fewest GPUs of one type that still finish its remaining work by its deadline at that count;
//    the GPUs left over go one step at a time to the job whose next step gains the most throughput
//    per added GPU (normalised by the job's best one-GPU rate, so job types compare).
// Allowed counts are powers of two from 1 up to the GPUs of the type (or `max_gpus`), as
// ElasticFlow's profiles are measured; the request of the trace (num_gpu) is not a limit, since
// ElasticFlow's serverless interface leaves the count to the system.
// Simplifications (the paper is vague on these, or they need machinery hetsim does not have):
//  1. Admission looks at the job alone against the whole cluster (its fastest allocation), not at
//     the future allocations of the jobs already admitted (the paper's slot-by-slot plan), so an
//     admitted job can later find its deadline infeasible under contention.
//  2. Such a job (no count of any free type meets its deadline at this pass) is not dropped: it
//     runs best effort, after the jobs whose shares fit and before the jobs without a deadline;
//     once even its fastest allocation could not meet the deadline it stays in that class for good.
//  3. A job's share is for its remaining work at one constant count until its deadline; restart
//     overheads are not counted in admission or in shares.
//  4. Every allocation is on one GPU type (the one that needs the fewest GPUs; ties: the job's
//     current type, then the faster), not a mix of types.
//  5. In the leftover phase, jobs without GPUs are considered in rank order only as many as there
//     are GPUs left (each needs one), which bounds the pass by the GPUs, not by the backlog.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "hetsim/policy/builtin.hpp"
#include "usable_pool.hpp"

namespace hetsim {
namespace {

class ElasticFlowPolicy final : public SchedulingPolicy {
 public:
  explicit ElasticFlowPolicy(int max_gpus) : max_gpus_(max_gpus) {}
  std::string name() const override { return "elasticflow"; }
  bool shares_gpus() const override { return false; }  // chooses GPU counts itself (whole GPUs)

  std::optional<std::string> reject_at_arrival(const JobSpec& spec, const PolicyView& ctx) override {
    if (!spec.deadline_s) return std::nullopt;
    const double now_s = ctx.now().seconds();
    Share best;
    double best_s = 0.0;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t)
      for (int c : counts(ctx, static_cast<GpuTypeId>(t))) {
        const double rate = ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), c);
        if (rate > 0.0 && (best.gpus == 0 || spec.work / rate < best_s)) {
          best = {static_cast<GpuTypeId>(t), c};
          best_s = spec.work / rate;
        }
      }
    if (best.gpus > 0 && now_s + best_s <= *spec.deadline_s) return std::nullopt;
    if (best.gpus == 0) return fmt::format("elasticflow admission: job {} runs on no GPU type", spec.id);
    return fmt::format("elasticflow admission: job {}: deadline {:.3f} s cannot be met: even on {} GPUs of type {} it "
                       "needs {:.3f} s from its arrival at {:.3f} s",
                       spec.id, *spec.deadline_s, best.gpus, ctx.cluster().gpu_types()[static_cast<std::size_t>(best.type)].name,
                       best_s, now_s);
  }

  Decision schedule(const PolicyView& ctx) override {
    std::vector<int> pool = usable_.whole_cluster(ctx);
    sync(ctx);
    plan_.clear();
    minimum_shares(ctx, pool);
    share_leftover(ctx, pool);
    Decision d;
    for (JobIndex j : ctx.running())
      if (!plan_.contains(j)) d.preempt.push_back(j);
    for (const auto& [j, share] : plan_) d.allocate.push_back({j, share.type, share.gpus, {}});
    return d;
  }

 private:
  struct Share {
    GpuTypeId type = -1;
    int gpus = 0;
  };
  // Rank of a job with a deadline: by deadline, then index (= submit order).
  struct Key {
    double deadline_s = 0.0;
    JobIndex job = 0;
    bool operator<(const Key& o) const { return std::tie(deadline_s, job) < std::tie(o.deadline_s, o.job); }
  };

  // The counts a job may get on a type: powers of two up to the type's GPUs (and max_gpus).
  std::vector<int> counts(const PolicyView& ctx, GpuTypeId t) const {
    int limit = ctx.cluster().gpus_of_type(t);
    if (max_gpus_ > 0) limit = std::min(limit, max_gpus_);
    std::vector<int> out;
    for (int c = 1; c <= limit; c *= 2) out.push_back(c);
    return out;
  }

  // Rate of job j on c GPUs of type t, remembered for the job's life (the model is a function of
  // the spec and the shape).
  double rate(const PolicyView& ctx, JobIndex j, GpuTypeId t, int c) {
    auto [it, fresh] = rates_[j].try_emplace({t, c}, 0.0);
    if (fresh) it->second = ctx.rate_on_type(*ctx.job(j).spec, t, c);
    return it->second;
  }

  // Keeps order_, hopeless_ and best_effort_ equal to the active jobs; forgets the rates of jobs
  // that ended.
  void sync(const PolicyView& ctx) {
    for (JobIndex j : ctx.changed()) {
      const JobRuntime& job = ctx.job(j);
      const JobSpec& spec = *job.spec;
      const bool active = job.status == JobStatus::Pending || job.status == JobStatus::Running;
      const Key k{spec.deadline_s.value_or(0.0), j};
      if (!active) {
        order_.erase(k);
        hopeless_.erase(k);
        best_effort_.erase(j);
        rates_.erase(j);
        continue;
      }
      if (rates_.contains(j)) continue;  // seen before (a start or a stop)
      if (spec.deadline_s)
        order_.insert(k);
      else
        best_effort_.insert(j);
      usable_.mark(ctx, spec, 1);
      rates_[j];  // the job's rate cache: also the mark that it has been seen
    }
  }

  // Phase 1: jobs with a deadline, in deadline order, get their minimum satisfactory share from
  // `pool` (into plan_ and served_). A job no share meets goes to late_, or, when even its fastest
  // allocation could no longer meet its deadline, to hopeless_ for good: it can only fall further
  // behind, and later passes skip it.
  void minimum_shares(const PolicyView& ctx, std::vector<int>& pool) {
    served_.clear();
    late_.clear();
    int free = usable_.free(pool);
    // Once every GPU is given the walk stops: the jobs after get nothing in either phase.
    for (auto it = order_.begin(); it != order_.end() && free > 0;) {
      const Key k = *it++;
      const Share s = minimum_share(ctx, k.job, k.deadline_s, pool);
      if (s.gpus > 0) {
        pool[static_cast<std::size_t>(s.type)] -= s.gpus;
        free -= s.gpus;
        plan_[k.job] = s;
        served_.push_back(k.job);
      } else if (ctx.now().seconds() + ctx.remaining_work(k.job) / fastest_rate(ctx, k.job) > k.deadline_s) {
        order_.erase(k);
        hopeless_.insert(k);
      } else {
        late_.push_back(k.job);
      }
    }
  }

  // The first `limit` active jobs without a share, in rank order (simplification 2): late ones,
  // then hopeless ones by deadline, then the jobs without a deadline in arrival order.
  std::vector<JobIndex> without_share(std::size_t limit) const {
    std::vector<JobIndex> out;
    for (JobIndex j : late_)
      if (out.size() < limit) out.push_back(j);
    for (auto it = hopeless_.begin(); it != hopeless_.end() && out.size() < limit; ++it) out.push_back(it->job);
    for (auto it = best_effort_.begin(); it != best_effort_.end() && out.size() < limit; ++it) out.push_back(*it);
    return out;
  }

  // The job's fastest rate on any type and allowed count.
  double fastest_rate(const PolicyView& ctx, JobIndex j) {
    double best = 0.0;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t)
      for (int c : counts(ctx, static_cast<GpuTypeId>(t))) best = std::max(best, rate(ctx, j, static_cast<GpuTypeId>(t), c));
    return best;
  }

  // The fewest GPUs of one type within `pool` that finish job j's remaining work by its deadline;
  // ties: its current type, then the faster. gpus = 0 when none does.
  Share minimum_share(const PolicyView& ctx, JobIndex j, double deadline_s, const std::vector<int>& pool) {
    const double left_s = deadline_s - ctx.now().seconds();
    const double work = ctx.remaining_work(j);
    const GpuTypeId current = ctx.job(j).gpu_type;
    Share best;
    double best_rate = 0.0;
    for (std::size_t t = 0; t < pool.size(); ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      for (int c : counts(ctx, type)) {
        if (c > pool[t] || (best.gpus > 0 && c > best.gpus)) break;
        const double r = rate(ctx, j, type, c);
        if (!(r > 0.0) || work / r > left_s) continue;
        const bool better = best.gpus == 0 || c < best.gpus ||
                            (best.type != current && (type == current || r > best_rate));
        if (better) {
          best = {type, c};
          best_rate = r;
        }
        break;  // larger counts of this type need more GPUs
      }
    }
    return best;
  }

  // One step up for a job: the next allowed count on its planned type (or 1 GPU of the fastest
  // type with room for a job without a share), and its gain per added GPU.
  struct Step {
    double gain = 0.0;
    std::size_t rank = 0;  // position in the phase order: ties go to the earlier job
    JobIndex job = 0;
    Share to;
    bool operator<(const Step& o) const { return std::tie(gain, o.rank) < std::tie(o.gain, rank); }
  };

  std::optional<Step> next_step(const PolicyView& ctx, JobIndex j, std::size_t rank, const std::vector<int>& pool) {
    const auto it = plan_.find(j);
    const double ref = reference_rate(ctx, j);
    if (!(ref > 0.0)) return std::nullopt;
    if (it == plan_.end()) {
      Share pick;
      double best = 0.0;
      for (std::size_t t = 0; t < pool.size(); ++t) {
        const double r = pool[t] >= 1 ? rate(ctx, j, static_cast<GpuTypeId>(t), 1) : 0.0;
        if (r > best) {
          best = r;
          pick = {static_cast<GpuTypeId>(t), 1};
        }
      }
      if (pick.gpus == 0) return std::nullopt;
      return Step{best / ref, rank, j, pick};
    }
    const Share now = it->second;
    const int up = now.gpus * 2;  // the next power of two
    const std::vector<int> allowed = counts(ctx, now.type);
    if (allowed.empty() || up > allowed.back() || up - now.gpus > pool[static_cast<std::size_t>(now.type)]) return std::nullopt;
    const double gain = (rate(ctx, j, now.type, up) - rate(ctx, j, now.type, now.gpus)) / (up - now.gpus) / ref;
    if (!(gain > 0.0)) return std::nullopt;
    return Step{gain, rank, j, {now.type, up}};
  }

  // The job's best one-GPU rate over all types: the unit its gains are measured in.
  double reference_rate(const PolicyView& ctx, JobIndex j) {
    double best = 0.0;
    for (std::size_t t = 0; t < ctx.cluster().gpu_types().size(); ++t)
      best = std::max(best, rate(ctx, j, static_cast<GpuTypeId>(t), 1));
    return best;
  }

  // Phase 2: leftover GPUs by marginal gain per GPU. Steps are kept in a max-heap and checked again
  // when they reach the top (the pool may have shrunk since they were pushed).
  void share_leftover(const PolicyView& ctx, std::vector<int>& pool) {
    std::vector<JobIndex> ranked = served_;
    int free = usable_.free(pool);
    // Simplification 5: only as many jobs without a share as there are GPUs left.
    for (JobIndex j : without_share(static_cast<std::size_t>(free))) ranked.push_back(j);
    std::priority_queue<Step> heap;
    for (std::size_t r = 0; r < ranked.size(); ++r)
      if (auto s = next_step(ctx, ranked[r], r, pool)) heap.push(*s);
    while (!heap.empty()) {
      const Step top = heap.top();
      heap.pop();
      const auto fresh = next_step(ctx, top.job, top.rank, pool);
      if (!fresh) continue;
      if (fresh->gain != top.gain || fresh->to.type != top.to.type) {
        heap.push(*fresh);
        continue;
      }
      const auto had = plan_.find(top.job);
      const int added = top.to.gpus - (had == plan_.end() ? 0 : had->second.gpus);
      pool[static_cast<std::size_t>(top.to.type)] -= added;
      plan_[top.job] = top.to;
      if (auto next = next_step(ctx, top.job, top.rank, pool)) heap.push(*next);
    }
  }

  int max_gpus_;
  std::set<Key> order_;              // active jobs with a deadline that some allocation could still meet
  std::set<Key> hopeless_;           // active jobs whose deadline no allocation can meet any more
  std::set<JobIndex> best_effort_;   // active jobs without a deadline
  std::vector<JobIndex> served_;     // this pass: jobs given their share, in deadline order
  std::vector<JobIndex> late_;       // this pass: jobs of order_ that no free share could serve
  std::unordered_map<JobIndex, std::map<std::pair<GpuTypeId, int>, double>> rates_;  // active jobs
  std::map<JobIndex, Share> plan_;                                      // this pass's allocations
  policy_detail::UsablePool usable_;
};

}  // namespace

void register_elasticflow(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "elasticflow",
      "deadline admission control (reject jobs that cannot meet their deadline), then each job the fewest GPUs that "
      "meet it, in deadline order; leftover GPUs by marginal throughput gain; elastic, preemptive",
      "ElasticFlow (Gu et al., ASPLOS'23), simplified (src/policy/elasticflow.cpp, docs/policies.md)",
      {{"max_gpus", "0", "most GPUs one job may get (powers of two up to it); 0 = the GPUs of its type",
        NumericRange{0, 1e6}}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<ElasticFlowPolicy>(static_cast<int>(param_double(p, "max_gpus")));
      },
      nullptr});
}

}  // namespace hetsim
