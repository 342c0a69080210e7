// heet: Heet's round-based elastic scheduling for heterogeneous clusters (Mo, Xu, Xu, "Heet:
// Accelerating Elastic Training in Heterogeneous Deep Learning Clusters", ASPLOS'24), following
// the rules of its first author's prototype (github.com/mozizhao/elastic, our_scheduler.py): every
// round (120 s) a slot size from GPUs per active job, minimum-weight full matching of GPU slots and
// jobs with weight remaining x T(s)^2 / T(1), then opportunistic one-GPU trades priced
// 2(X(n)-X(n-1))/X(n) against X(1)/X(s). The decision core is src/policy/heet_plan.cpp; this file
// turns a plan into exact GPUs. Like the prototype it treats every job as elastic from 1 GPU to a
// host's size and ignores the requested count; it plans with ctx.model(), i.e. the collaborative
// filter's predictions under --profiling cf.
// Beyond the prototype (docs/policies.md): a job asking for more GPUs than the largest host is
// "wide": when that pays by heet's weight it gets its requested count on several hosts of one GPU
// type (src/policy/heet_wide.cpp), priced by the run's model on those GPUs (the analytic model
// charges the cross-host all-reduce), competing with the other jobs by weight; restarts
// cost `restart_s` (30 s, the Pollux simulator's per-reallocation cost) and `restart=every-round`
// restarts every running job every round, as the prototype's control plane does. Tail protection
// (heet_tail.hpp; default tail=guard) runs a job that heet's weight has starved, and that would
// otherwise end last, on its request.
#include <algorithm>
#include <fmt/format.h>
#include <iterator>
#include <limits>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/policy/heet_plan.hpp"
#include "hetsim/util/error.hpp"
#include "heet_tail.hpp"
#include "heet_wide.hpp"

namespace hetsim {
namespace {

class HeetPolicy final : public SchedulingPolicy {
 public:
  // Which jobs the tail rule may protect (heet_tail.hpp): none, wide jobs only, every job, or
  // running jobs holding their request and starved jobs (heet_tail_guard_eligible).
  enum class Tail { Off, Wide, All, Guard };
  HeetPolicy(double round_s, double restart_s, bool every_round, bool round_skip, Tail tail, double starve_factor)
      : round_s_(round_s), restart_s_(restart_s), every_round_(every_round), round_skip_(round_skip), tail_(tail),
        starve_factor_(starve_factor) {}
  std::string name() const override { return "heet"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself
  std::optional<double> round_s() const override { return round_s_; }
  std::optional<double> restart_overhead_s() const override { return restart_s_; }

  Decision schedule(const PolicyView& ctx) override {
    // A steady round: the last pass's plan changed nothing (the mechanism reports every start,
    // stop, resize, arrival and completion in changed(), and every job it planned runs), so only
    // running jobs progressed since, and heet_plan proved its plan comes back; an empty decision
    // keeps every allocation, as that plan would (issue 19: rounds that cost what changes).
    const bool quiet = steady_ && ctx.changed().empty() && ctx.running().size() == steady_allocations_;
    if (quiet && tail_ == Tail::Off) return {};
    steady_ = false;
    const std::vector<JobIndex>& active = active_jobs(ctx);
    const int largest = largest_host(ctx.cluster());

    // Tail protection (heet_tail.hpp): the jobs that decide the makespan unless they run now. A
    // protected wide job is placed first (heet gives a wide job exactly its count anyway); for a
    // protected narrow one (tail=all) heet's own plan stands when it gives the job at least its
    // count, else the round is planned again with every protected job placed first. A steady plan
    // still comes back while the protected wide jobs are the same and all protected jobs hold theirs.
    std::vector<HeetTailClaim> critical, spanning;
    if (tail_ != Tail::Off) {
      double work_gpu_s = 0.0;
      const int total_gpus = ctx.cluster().total_gpus();
      if (tail_ == Tail::Guard) {
        std::vector<HeetTailJob> running = guard_jobs(ctx, largest, work_gpu_s);
        const HeetLongestFirst& waiting = guard_waiting_.starved(ctx.now());
        if (!running.empty() || !waiting.empty())
          critical = heet_tail_critical(std::move(running), waiting, work_gpu_s, total_gpus);
      } else {
        std::vector<HeetTailJob> eligible_jobs = tail_jobs(ctx, active, largest, work_gpu_s);
        if (!eligible_jobs.empty()) critical = heet_tail_critical(std::move(eligible_jobs), work_gpu_s, total_gpus);
      }
      for (const HeetTailClaim& c : critical)
        if (c.gpus > largest) spanning.push_back(c);
      if (quiet && spanning == reserved_ &&
          std::all_of(critical.begin(), critical.end(), [&](const HeetTailClaim& c) { return holds(ctx, c); })) {
        steady_ = true;
        return {};
      }
    }
    // Every active job's rate table first: the wide placer reads them instead of asking the model
    // again each round (the same values: heet_job asks ctx.rate_on_type for each type and count).
    for (JobIndex j : active) fill_rates(ctx, j, largest);
    wide_.sync(ctx, table_of());
    RoundPlan plan = plan_round(ctx, active, spanning);
    if (!gives_all(plan, critical) && (tail_ != Tail::Guard || feeds_others(plan, critical))) {
      plan = plan_round(ctx, active, critical);
      plan.steady = false;
    }
    reserved_ = std::move(spanning);

    Decision d;
    std::vector<char> planned(active.empty() ? 0 : static_cast<std::size_t>(active.back()) + 1, 0);
    for (const AllocationRequest& a : plan.allocate) planned[static_cast<std::size_t>(a.job)] = 1;
    d.allocate = std::move(plan.allocate);
    // every-round: the prototype stops every job at the end of a round and starts the next round's
    // plan afresh, so a job that keeps its GPUs restarts too (and pays restart_s).
    for (JobIndex j : ctx.running())
      if (every_round_ || !planned[static_cast<std::size_t>(j)]) d.preempt.push_back(j);
    steady_ = round_skip_ && plan.steady && !every_round_;
    steady_allocations_ = d.allocate.size();
    return d;
  }

 private:
  // Running and waiting jobs in index order, kept across passes from ctx.changed() (every
  // admission, start, stop and end is reported there) instead of walking both sets each round:
  // with thousands waiting that walk was the largest cost of a round (ITP cluster04). A count
  // that disagrees with the sets (a view without changes) rebuilds it.
  const std::vector<JobIndex>& active_jobs(const PolicyView& ctx) {
    for (JobIndex j : ctx.changed()) {
      const JobStatus st = ctx.job(j).status;
      const bool in = st == JobStatus::Pending || st == JobStatus::Running;
      const auto it = std::lower_bound(active_.begin(), active_.end(), j);
      const bool has = it != active_.end() && *it == j;
      if (in && !has) active_.insert(it, j);
      if (!in && has) active_.erase(it);
    }
    if (active_.size() != ctx.running().size() + ctx.pending().size()) {
      active_.clear();
      std::merge(ctx.running().begin(), ctx.running().end(), ctx.pending().begin(), ctx.pending().end(),
                 std::back_inserter(active_));
    }
    return active_;
  }

  struct RoundPlan {
    std::vector<AllocationRequest> allocate;
    bool steady = false;  // provably comes back while only running jobs progress (heet_plan)
  };

  // One plan: the `reserve` jobs (tail rule) placed first, then wide jobs on what is left, then
  // the prototype's plan on the rest of the cluster.
  RoundPlan plan_round(const PolicyView& ctx, const std::vector<JobIndex>& active, const std::vector<HeetTailClaim>& reserve) {
    const Cluster& cluster = ctx.cluster();
    RoundPlan out;
    std::vector<char> taken(static_cast<std::size_t>(cluster.total_gpus()), 0);
    std::vector<JobIndex> rest = active;
    bool kept = true;
    if (!reserve.empty()) {
      std::vector<JobIndex> placed = reserve_tail(ctx, reserve, taken, out.allocate, kept);
      std::sort(placed.begin(), placed.end());
      std::erase_if(rest, [&](JobIndex j) { return std::binary_search(placed.begin(), placed.end(), j); });
    }
    const HeetWidePlacer::TableOf table = table_of();
    // Wide jobs next: they take whole hosts, the rest of the cluster is planned as the prototype does.
    std::vector<JobIndex> narrow;
    bool wide_steady = false;
    const std::vector<WidePlacement> wide = wide_.place(ctx, rest, table, taken, narrow, &wide_steady);
    std::vector<HeetHost> hosts;
    int free_total = 0, free_largest = 0;
    for (const Node& n : cluster.nodes()) {
      int free = 0;
      for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free += taken[static_cast<std::size_t>(g)] ? 0 : 1;
      hosts.push_back({n.gpu_type, free});
      free_total += free;
      free_largest = std::max(free_largest, free);
    }
    // Indexed (one GPU type, heet_wide_index.cpp): with 1-GPU slots heet_plan takes the cheapest
    // jobs by weight, one per free GPU, and trades nothing, so only those are handed to it (with
    // the narrow count for its slot size); with larger slots every narrow job is.
    std::size_t job_count = 0;
    if (wide_.indexed()) {
      job_count = wide_.narrow_count();
      const bool one_gpu_slots = job_count > 0 && heet_slot_size(free_total, job_count, free_largest) == 1;
      narrow = one_gpu_slots ? wide_.cheapest_narrow(ctx, table, 1, static_cast<std::size_t>(free_total)) : wide_.narrow_jobs(rest);
      if (!one_gpu_slots) job_count = 0;
    }
    std::vector<HeetJob> jobs;
    jobs.reserve(narrow.size());
    for (JobIndex j : narrow) jobs.push_back(heet_job(ctx, j));
    bool plan_steady = false;
    const std::vector<HeetAssignment> plan = heet_plan(hosts, jobs, nullptr, &plan_steady, job_count);
    for (HeetJob& hj : jobs) rates_[static_cast<std::size_t>(hj.job)] = std::move(hj.rate);  // kept for next round
    const std::vector<std::vector<GpuId>> gpus = exact_gpus(ctx, plan, taken);
    for (const WidePlacement& w : wide)
      out.allocate.push_back({w.job, w.type, static_cast<int>(w.gpus.size()), w.gpus});
    for (std::size_t k = 0; k < plan.size(); ++k) {
      const GpuTypeId type = cluster.nodes()[static_cast<std::size_t>(plan[k].host)].gpu_type;
      out.allocate.push_back({plan[k].job, type, plan[k].gpus, gpus[k]});
    }
    out.steady = plan_steady && wide_steady && kept;
    return out;
  }

  // Job j's rate table as the wide placer reads it (kept in rates_ between rounds).
  HeetWidePlacer::TableOf table_of() {
    return [this](JobIndex j) -> const HeetRateTable& { return rates_[static_cast<std::size_t>(j)]; };
  }

  // The rate of job j on its request `want` on its fastest type (a host's table for a count that
  // fits a host, the spanning rate beyond): the model's, fixed per job, so kept (request_rate_).
  double request_rate(const PolicyView& ctx, JobIndex j, int want, int largest) {
    if (request_rate_.size() <= static_cast<std::size_t>(j)) request_rate_.resize(static_cast<std::size_t>(j) + 1, -1.0);
    double& rate = request_rate_[static_cast<std::size_t>(j)];
    if (rate >= 0.0) return rate;
    rate = 0.0;
    if (want <= largest) {
      fill_rates(ctx, j, largest);
      for (const std::vector<double>& r : rates_[static_cast<std::size_t>(j)])
        rate = std::max(rate, r[static_cast<std::size_t>(want)]);
    } else {
      for (double r : wide_.rates(ctx, j)) rate = std::max(rate, r);
    }
    return rate;
  }

  // tail=guard's eligible running jobs and W (issue 19: a round costs what changed): the waiting
  // jobs are kept in guard_waiting_ from ctx.changed() (their starved ones are read from there,
  // longest first); the running ones are read each round (their lag and remaining time move; they
  // are at most one per GPU). W is the exact sum (HeetExactGpuSeconds), the same in any order.
  std::vector<HeetTailJob> guard_jobs(const PolicyView& ctx, int largest, double& work_gpu_s) {
    for (JobIndex j : ctx.changed()) {
      // Re-added with fresh values when it waits (it may have run and stopped since).
      guard_waiting_.remove(j);
      if (ctx.job(j).status == JobStatus::Pending) add_waiting(ctx, j, largest);
    }
    if (guard_waiting_.size() != ctx.pending().size()) {  // a view without changes: rebuild
      guard_waiting_.clear();
      for (JobIndex j : ctx.pending()) add_waiting(ctx, j, largest);
    }
    std::vector<HeetTailJob> out;
    HeetExactGpuSeconds work = guard_waiting_.work();
    for (JobIndex j : ctx.running()) {
      const int want = std::max(1, ctx.job(j).spec->requested_gpus);
      const double rate = request_rate(ctx, j, want, largest);
      const double remaining_s = rate > 0.0 ? ctx.remaining_work(j) / rate : std::numeric_limits<double>::infinity();
      const HeetTailJob tj{j, want, remaining_s, true};
      work.add(heet_tail_work_gpu_s(tj));
      if (eligible(ctx, j, want, largest, rate, remaining_s)) out.push_back(tj);
    }
    work_gpu_s = work.gpu_s();
    return out;
  }

  void add_waiting(const PolicyView& ctx, JobIndex j, int largest) {
    const JobRuntime& rt = ctx.job(j);
    const int want = std::max(1, rt.spec->requested_gpus);
    const double rate = request_rate(ctx, j, want, largest);
    const double remaining_s = rate > 0.0 ? ctx.remaining_work(j) / rate : std::numeric_limits<double>::infinity();
    const double done_s = rate > 0.0 ? (rt.spec->work - ctx.remaining_work(j)) / rate : 0.0;
    guard_waiting_.add({j, want, remaining_s, true}, done_s, rt.spec->submit, starve_factor_);
  }

  // The tail rule's view of the active jobs (tail=wide and tail=all): requested count and
  // remaining seconds there on the fastest type. Returns the eligible ones; `work_gpu_s` = W over
  // all of them, summed in `active` order.
  std::vector<HeetTailJob> tail_jobs(const PolicyView& ctx, const std::vector<JobIndex>& active, int largest,
                                     double& work_gpu_s) {
    std::vector<HeetTailJob> out;
    for (JobIndex j : active) {
      const int want = std::max(1, ctx.job(j).spec->requested_gpus);
      const double rate = request_rate(ctx, j, want, largest);
      const double remaining_s = rate > 0.0 ? ctx.remaining_work(j) / rate : std::numeric_limits<double>::infinity();
      const HeetTailJob tj{j, want, remaining_s, true};
      work_gpu_s += heet_tail_work_gpu_s(tj);
      if (eligible(ctx, j, want, largest, rate, remaining_s)) out.push_back(tj);
    }
    return out;
  }

  // Whether the tail rule may protect job j (its request `want`, `rate` there on its fastest type).
  // tail=guard: lag_s = the seconds j has lost since arrival against running on its request all
  // along (waiting, shrunk, restarting, a round's start).
  bool eligible(const PolicyView& ctx, JobIndex j, int want, int largest, double rate, double remaining_s) const {
    if (tail_ != Tail::Guard) return tail_ == Tail::All || want > largest;
    const JobRuntime& rt = ctx.job(j);
    const double done_s = rate > 0.0 ? (rt.spec->work - ctx.remaining_work(j)) / rate : 0.0;
    const double lag_s = (ctx.now() - rt.spec->submit).seconds() - done_s;
    // The run's round (--interval) when it gives one, else heet's own.
    const double round_s = ctx.round_s() > 0.0 ? ctx.round_s() : round_s_;
    return heet_tail_guard_eligible(holds(ctx, {j, want}), lag_s, remaining_s, round_s, starve_factor_);
  }

  static bool holds(const PolicyView& ctx, const HeetTailClaim& c) {
    const JobRuntime& rt = ctx.job(c.job);
    return rt.status == JobStatus::Running && static_cast<int>(rt.gpus.size()) >= c.gpus;
  }

  // Whether the plan gives GPUs to a job outside `critical` (tail=guard replans only then: GPUs
  // moved among the protected jobs alone are heet's own balancing of the tail).
  static bool feeds_others(const RoundPlan& plan, const std::vector<HeetTailClaim>& critical) {
    return std::any_of(plan.allocate.begin(), plan.allocate.end(), [&](const AllocationRequest& a) {
      return std::none_of(critical.begin(), critical.end(), [&](const HeetTailClaim& c) { return c.job == a.job; });
    });
  }

  static bool gives_all(const RoundPlan& plan, const std::vector<HeetTailClaim>& critical) {
    return std::all_of(critical.begin(), critical.end(), [&](const HeetTailClaim& c) {
      return std::any_of(plan.allocate.begin(), plan.allocate.end(),
                         [&](const AllocationRequest& a) { return a.job == c.job && a.gpu_count >= c.gpus; });
    });
  }

  // Places the protected jobs before anything else: those running on at least their count keep
  // their GPUs (no restart), then the others, longest first, on their count: a wide job on the
  // fastest type with room (whole hosts first), a narrow one on the host of its fastest type with
  // room, its current host first, then the fullest that fits (fewer broken hosts). A job with no
  // room is left to the plan. Returns the jobs placed; `kept`: whether every one kept its GPUs.
  std::vector<JobIndex> reserve_tail(const PolicyView& ctx, const std::vector<HeetTailClaim>& reserve,
                                     std::vector<char>& taken, std::vector<AllocationRequest>& out, bool& kept) {
    std::vector<JobIndex> placed;
    std::vector<char> done(reserve.size(), 0);
    for (std::size_t k = 0; k < reserve.size(); ++k) {
      const JobRuntime& rt = ctx.job(reserve[k].job);
      if (!holds(ctx, reserve[k]) ||
          std::any_of(rt.gpus.begin(), rt.gpus.end(), [&](GpuId g) { return taken[static_cast<std::size_t>(g)]; }))
        continue;
      for (GpuId g : rt.gpus) taken[static_cast<std::size_t>(g)] = 1;
      out.push_back({reserve[k].job, rt.gpu_type, static_cast<int>(rt.gpus.size()), rt.gpus});
      placed.push_back(reserve[k].job);
      done[k] = 1;
    }
    for (std::size_t k = 0; k < reserve.size(); ++k) {
      if (done[k]) continue;
      kept = false;
      AllocationRequest a = place_claim(ctx, reserve[k], taken);
      if (a.gpus.empty()) continue;
      for (GpuId g : a.gpus) taken[static_cast<std::size_t>(g)] = 1;
      placed.push_back(a.job);
      out.push_back(std::move(a));
    }
    return placed;
  }

  // GPUs for one protected job that does not hold its count (reserve_tail); empty when none fit.
  AllocationRequest place_claim(const PolicyView& ctx, const HeetTailClaim& c, const std::vector<char>& taken) {
    const Cluster& cluster = ctx.cluster();
    const JobRuntime& rt = ctx.job(c.job);
    AllocationRequest a{c.job, -1, c.gpus, {}};
    std::vector<int> free_on(cluster.nodes().size(), 0);
    for (std::size_t h = 0; h < free_on.size(); ++h) {
      const Node& n = cluster.nodes()[h];
      for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free_on[h] += taken[static_cast<std::size_t>(g)] ? 0 : 1;
    }
    if (c.gpus > largest_host(cluster)) {
      const std::vector<double>& rate = wide_.rates(ctx, c.job);
      double best = 0.0;
      for (std::size_t t = 0; t < rate.size(); ++t) {
        int free = 0;
        for (std::size_t h = 0; h < free_on.size(); ++h)
          free += cluster.nodes()[h].gpu_type == static_cast<GpuTypeId>(t) ? free_on[h] : 0;
        if (free >= c.gpus && rate[t] > best) best = rate[t], a.gpu_type = static_cast<GpuTypeId>(t);
      }
      if (a.gpu_type >= 0) a.gpus = heet_pick_gpus(cluster, a.gpu_type, c.gpus, taken, std::vector<char>(taken.size(), 0));
      return a;
    }
    const int current = rt.status == JobStatus::Running && !rt.gpus.empty() ? cluster.node_of(rt.gpus.front()) : -1;
    const HeetRateTable& table = rates_[static_cast<std::size_t>(c.job)];
    std::ptrdiff_t pick = -1;
    double best = 0.0;
    for (std::size_t h = 0; h < free_on.size(); ++h) {
      if (free_on[h] < c.gpus) continue;
      const double r = table[static_cast<std::size_t>(cluster.nodes()[h].gpu_type)][static_cast<std::size_t>(c.gpus)];
      if (!(r > 0.0)) continue;
      const bool better = pick < 0 || r > best ||
                          (r == best && static_cast<int>(pick) != current &&
                           (static_cast<int>(h) == current || free_on[h] < free_on[static_cast<std::size_t>(pick)]));
      if (better) pick = static_cast<std::ptrdiff_t>(h), best = r;
    }
    if (pick < 0) return a;
    const Node& n = cluster.nodes()[static_cast<std::size_t>(pick)];
    a.gpu_type = n.gpu_type;
    for (GpuId g : rt.gpus)  // its own GPUs on that host first: a kept prefix restarts nothing
      if (cluster.node_of(g) == static_cast<NodeId>(pick) && !taken[static_cast<std::size_t>(g)] && static_cast<int>(a.gpus.size()) < c.gpus)
        a.gpus.push_back(g);
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && static_cast<int>(a.gpus.size()) < c.gpus; ++g)
      if (!taken[static_cast<std::size_t>(g)] && std::find(a.gpus.begin(), a.gpus.end(), g) == a.gpus.end()) a.gpus.push_back(g);
    return a;
  }

  // A job's rates on 1..host size GPUs of one host of each type. The model's rate depends on the
  // job, type and count only, so a job's table is computed once and kept (rates_, by job index),
  // lent to the planner each round.
  void fill_rates(const PolicyView& ctx, JobIndex j, int largest) {
    const Cluster& cluster = ctx.cluster();
    if (rates_.size() <= static_cast<std::size_t>(j)) {
      rates_.resize(static_cast<std::size_t>(j) + 1);
      plan_memo_.resize(rates_.size());
    }
    HeetRateTable& rate = rates_[static_cast<std::size_t>(j)];
    if (!rate.empty()) return;
    const JobSpec& spec = *ctx.job(j).spec;
    rate.assign(cluster.gpu_types().size(), std::vector<double>(static_cast<std::size_t>(largest) + 1, 0.0));
    for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t)
      for (int n = 1; n <= std::min(largest, cluster.max_gpus_per_node(static_cast<GpuTypeId>(t))); ++n)
        rate[t][static_cast<std::size_t>(n)] = ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), n);
  }

  // The planner's view of a narrow job (its rate table lent from rates_, filled by fill_rates).
  HeetJob heet_job(const PolicyView& ctx, JobIndex j) {
    const JobRuntime& rt = ctx.job(j);
    HeetJob hj;
    hj.job = j;
    hj.remaining_work = ctx.remaining_work(j);
    if (rt.status == JobStatus::Running && !rt.gpus.empty()) hj.current_host = ctx.cluster().node_of(rt.gpus.front());
    hj.rate = std::move(rates_[static_cast<std::size_t>(j)]);
    hj.memo = &plan_memo_[static_cast<std::size_t>(j)];
    return hj;
  }

  // Exact GPUs per host: jobs staying on their host keep (a prefix of) their GPUs, so an
  // unchanged allocation is recognised by the mechanism and pays no restart. `taken` holds the
  // wide jobs' GPUs on entry.
  static std::vector<std::vector<GpuId>> exact_gpus(const PolicyView& ctx, const std::vector<HeetAssignment>& plan,
                                                    std::vector<char>& taken) {
    const Cluster& cluster = ctx.cluster();
    std::vector<std::vector<const HeetAssignment*>> by_host(cluster.nodes().size());
    for (const HeetAssignment& a : plan) by_host[static_cast<std::size_t>(a.host)].push_back(&a);
    std::vector<std::vector<GpuId>> gpus(plan.size());
    auto slot = [&](const HeetAssignment* a) { return static_cast<std::size_t>(a - plan.data()); };
    for (std::size_t h = 0; h < by_host.size(); ++h)
      for (const HeetAssignment* a : by_host[h]) {
        const JobRuntime& rt = ctx.job(a->job);
        if (rt.status != JobStatus::Running) continue;
        for (GpuId g : rt.gpus) {
          if (static_cast<int>(gpus[slot(a)].size()) == a->gpus) break;
          if (cluster.node_of(g) != static_cast<NodeId>(h) || taken[static_cast<std::size_t>(g)]) continue;
          gpus[slot(a)].push_back(g);
          taken[static_cast<std::size_t>(g)] = 1;
        }
      }
    for (std::size_t h = 0; h < by_host.size(); ++h) {
      const Node& node = cluster.nodes()[h];
      for (const HeetAssignment* a : by_host[h])
        for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count && static_cast<int>(gpus[slot(a)].size()) < a->gpus; ++g)
          if (!taken[static_cast<std::size_t>(g)]) {
            gpus[slot(a)].push_back(g);
            taken[static_cast<std::size_t>(g)] = 1;
          }
    }
    return gpus;
  }

  double round_s_;
  double restart_s_;
  bool every_round_;
  bool round_skip_;
  Tail tail_;                            // tail protection (heet_tail.hpp)
  double starve_factor_;                 // tail=guard: lag / remaining time that makes a job starved
  bool steady_ = false;                  // the last full pass's plan provably comes back (heet_plan)
  std::size_t steady_allocations_ = 0;   // jobs that pass allocated: all run iff nothing was refused
  HeetWidePlacer wide_;
  std::vector<HeetRateTable> rates_;  // [job][type][n], empty = not computed or lent
  std::vector<HeetWeightMemo> plan_memo_;  // [job]: heet_plan's weights, kept while they hold
  std::vector<JobIndex> active_;      // running and waiting jobs, ascending (active_jobs)
  std::vector<HeetTailClaim> reserved_;  // protected wide jobs placed first by the last pass
  std::vector<double> request_rate_;     // [job] rate on its request, fastest type (request_rate); -1 = not yet
  HeetGuardWaiting guard_waiting_;       // tail=guard: the waiting jobs by starvation instant (guard_jobs)
};

}  // namespace

void register_heet(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "heet",
      "Heet: round-based slot matching (weight remaining x T(s)^2/T(1)) plus one-GPU trades; every job elastic "
      "1..host size, jobs asking for more than a host get their count on several hosts of one type",
      "Mo, Xu, Xu, ASPLOS'24 (Heet); rules of the prototype mozizhao/elastic our_scheduler.py",
      {{"round_s", "120", "round length in seconds when the run gives no --interval"},
       {"restart_s", "30", "seconds without progress at every start, resize or move when the run gives no "
                           "--restart-overhead (the Pollux simulator's per-reallocation cost); 0 = free"},
       {"restart", "resize", "'resize' = a job restarts when its GPUs change; 'every-round' = every running job "
                             "restarts every round (the prototype's control plane)"},
       {"round_skip", "true", "'true' = a round where only running jobs progressed since a plan proved steady "
                              "keeps every allocation without planning (same decisions); 'false' = plan every round"},
       {"tail_starve", "1", "tail=guard: a job may be protected once the seconds it lost since arrival (against running "
                            "on its request all along) reach this many times its remaining seconds on its request"},
       {"tail", "guard", "tail protection: a job whose remaining time on its requested GPUs outlasts the rest of the "
                         "active work on the rest of the cluster runs on at least its request, longest first; 'guard' = "
                         "for a job that lost at least tail_starve x its remaining time, or that holds its request and "
                         "lost at least a round (replanning only when a protected job's GPUs would go to others); "
                         "'wide' = for jobs asking for more GPUs than a host, 'all' = for every job, 'off' = never"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        // As --interval: rounds under a millisecond would take billions of rounds.
        const double round = param_double(p, "round_s", 1e-3, kMaxSimSeconds);
        const double restart_s = param_double(p, "restart_s", 0.0, kMaxSimSeconds);
        const std::string& mode = param_string(p, "restart");
        if (mode != "resize" && mode != "every-round")
          throw InputError("", 0, "--param restart", fmt::format("expected resize or every-round, got '{}'", mode));
        const std::string& skip = param_string(p, "round_skip");
        if (skip != "true" && skip != "false")
          throw InputError("", 0, "--param round_skip", fmt::format("expected true or false, got '{}'", skip));
        const std::string& tail = param_string(p, "tail");
        if (tail != "guard" && tail != "wide" && tail != "all" && tail != "off")
          throw InputError("", 0, "--param tail", fmt::format("expected guard, wide, all or off, got '{}'", tail));
        const HeetPolicy::Tail tail_mode = tail == "guard" ? HeetPolicy::Tail::Guard
                                           : tail == "all" ? HeetPolicy::Tail::All
                                           : tail == "wide" ? HeetPolicy::Tail::Wide : HeetPolicy::Tail::Off;
        const double starve = param_double(p, "tail_starve", 0.0, 1e9);
        return std::make_unique<HeetPolicy>(round, restart_s, mode == "every-round", skip == "true", tail_mode, starve);
      },
      nullptr});
}

}  // namespace hetsim
