// tiresias: discretized two-dimensional least-attained-service (2D-LAS) scheduling of rigid jobs,
// after Tiresias (Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning",
// NSDI'19), in the form the Pollux simulator uses as its baseline (petuum/adaptdl, branch
// osdi21-artifact, simulator/tiresias.py). Rules (docs/policies.md):
//  - every job enters queue 0 at its first pass; a job's attained service is the wall time it has
//    been marked running (counted in whole seconds between passes, restart time included) times
//    its requested GPUs; reaching `queue_threshold_gpu_s` (16 GPU-hours) moves it to the end of
//    queue 1 (demotion is checked only while it runs);
//  - each pass walks queue 0 then queue 1, FIFO within a queue, and marks a job running if its
//    requested GPU count still fits in the GPUs not yet promised (jobs behind a blocked one may
//    pass it); a running job that no longer fits is preempted;
//  - starvation: with `starvation_factor` > 0, a job of queue 1 that has waited at least that many
//    times its last run time returns to queue 0 with its run time reset (0 = off, the simulator's
//    setting);
//  - new jobs are placed node by node, each time on the node with the most free GPUs.
// On several GPU types a job uses one type: the one it runs on, else, with `type_choice=fastest`
// (default; issue 14), the fastest type (highest rate at its GPU count) among those with room for
// it, ties to the most unpromised GPUs, the heterogeneous baseline rule of the Sia paper (Jayaram
// Subramanya et al., SOSP'23; its artifact has no Tiresias code); `type_choice=most_free` keeps
// the rule before: the type with the most GPUs still unpromised among those it can run on. The
// simulator has one type, where both agree.
// Pass cost (issue 11): the simulator re-walks every job each pass; here the queues, the counters
// and the starvation deadlines are kept between passes and updated from
// PolicyView::changed(), and attained service accrues lazily (a marked job's run time is its run
// time when marked plus the time since; its demotion is a deadline). A pass that displaces no
// running job (every job marked at the last pass runs, and each waiting job it reaches fits in
// the free GPUs) is decided from the waiting jobs alone: the GPUs that the running jobs ahead of a
// waiting job hold come from prefix sums over queue positions, so the running jobs are not
// walked. Any other pass walks queue 0 then queue 1 in full. The decisions are the simulator's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "demand_queue.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "node_pool.hpp"
#include "prefix_sums.hpp"
#include "hetsim/util/exact_whole.hpp"

namespace hetsim {
namespace {

class TiresiasPolicy final : public SchedulingPolicy {
 public:
  TiresiasPolicy(double threshold_gpu_s, double starvation, bool most_free)
      : threshold_gpu_s_(threshold_gpu_s), starvation_(starvation), most_free_(most_free) {}
  std::string name() const override { return "tiresias"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself

  Decision schedule(const PolicyView& ctx) override {
    const auto now = static_cast<long long>(std::floor(ctx.now().seconds()));
    sync(ctx);
    if (waiting_[0].size() + waiting_[1].size() != ctx.pending().size() ||
        running_[0].size() + running_[1].size() != ctx.running().size())
      throw std::logic_error("tiresias: waiting jobs out of step with PolicyView::changed()");
    account(ctx, now);
    ++pass_;
    std::vector<std::pair<JobIndex, GpuTypeId>> to_start;
    std::vector<JobIndex> to_stop;
    if (!fill_free_gpus(ctx, now, to_start)) {
      to_start.clear();
      decide(ctx, now, to_start, to_stop);
    }
    prev_now_ = now;
    Decision d;
    if (to_stop.empty() && to_start.empty()) return d;  // most passes: building the pool costs a node walk
    policy_detail::NodePool pool(ctx.state());
    for (JobIndex j : to_stop) {
      d.preempt.push_back(j);
      pool.release(ctx.job(j).gpus);
    }
    for (const auto& [j, type] : to_start) {
      AllocationRequest r{j, type, ctx.job(j).spec->requested_gpus, {}, 0};
      r.gpus = pool.take_most_free(type, r.gpu_count);
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }

 private:
  // The simulator's per-job counters, kept lazily: waiting time accrues only while a job is
  // unmarked with run time (as the simulator adds it pass by pass), so it is stored as the total up
  // to `since_s` plus the time since. The simulator's total run time only gates the starvation
  // rule through run_s > 0, which implies it, so it is not kept.
  enum class Slot : std::uint8_t { None, Waiting, Running };
  struct JobState {
    bool known = false;         // active and in a queue
    bool marked = false;        // marked running at the last pass
    Slot slot = Slot::None;     // filed in waiting_[queue] or running_[queue] under seq
    bool starving = false;      // in starving_ under due_s
    int queue = 0;
    long long seq = 0;          // enqueue order: FIFO position within the queue
    long long run_s = 0;        // run time since the last starvation reset, up to mark_s while marked
    long long mark_s = 0;       // pass time the job was marked at (its run time accrues from there)
    bool demoting = false;      // in demote_ under demote_s
    long long demote_s = 0;     // first pass time at which its run time reaches the threshold
    GpuTypeId filed_type = -1;  // type of its GPUs while filed as running
    long long waited_s = 0;     // waiting time since the last run, up to since_s
    long long since_s = -1;     // waiting time accrues from this pass on; -1 = it does not
    long long due_s = 0;        // first pass time at which the starvation rule promotes it
    std::uint64_t visited = 0;  // last pass that decided it
  };
  using Queue = policy_detail::DemandQueue<long long>;

  // State of an active job, made on first sight; forgotten when the job ends, so what is kept is
  // the active jobs', not every job's of the run.
  JobState& state(JobIndex j) { return state_[j]; }
  const JobState* find_state(JobIndex j) const {
    auto it = state_.find(j);
    return it == state_.end() ? nullptr : &it->second;
  }

  // Every job enters queue 0 at its first pass (in index order); finished jobs are forgotten;
  // waiting_ and running_ follow the jobs' statuses.
  void sync(const PolicyView& ctx) {
    std::vector<JobIndex> arrived;
    for (JobIndex j : ctx.changed()) {
      const JobStatus status = ctx.job(j).status;
      if (status != JobStatus::Pending && status != JobStatus::Running) {
        if (const JobState* s = find_state(j); s && s->known) forget(ctx, j);
        continue;
      }
      JobState& s = state(j);
      if (!s.known) {
        arrived.push_back(j);
      } else {
        set_slot(ctx, j, slot_of(ctx, j));
      }
    }
    std::sort(arrived.begin(), arrived.end());
    for (JobIndex j : arrived) {
      state(j).known = true;
      enqueue(ctx, j, 0);
    }
  }

  void forget(const PolicyView& ctx, JobIndex j) {
    JobState& s = state(j);
    set_slot(ctx, j, Slot::None);
    if (s.starving) starving_.erase({s.due_s, j});
    if (s.demoting) demote_.erase({s.demote_s, j});
    if (s.marked) --marked_count_;
    state_.erase(j);
  }

  static Slot slot_of(const PolicyView& ctx, JobIndex j) {
    const JobStatus status = ctx.job(j).status;
    return status == JobStatus::Pending ? Slot::Waiting : status == JobStatus::Running ? Slot::Running : Slot::None;
  }

  // Files a job under its queue position among the waiting or the running jobs.
  void set_slot(const PolicyView& ctx, JobIndex j, Slot slot) {
    JobState& s = state(j);
    if (s.slot == slot) return;
    const int n = ctx.job(j).spec->requested_gpus;
    const Queue::Entry e{s.seq, j};
    if (s.slot == Slot::Waiting) waiting_[s.queue].erase(n, e);
    if (s.slot == Slot::Running) {
      running_[s.queue].erase(e);
      file_gpus(s.queue, s.filed_type, s.seq, -n);
    }
    if (slot == Slot::Waiting) waiting_[s.queue].insert(n, e);
    if (slot == Slot::Running) {
      running_[s.queue].insert(e);
      s.filed_type = ctx.job(j).gpu_type;
      file_gpus(s.queue, s.filed_type, s.seq, n);
    }
    s.slot = slot;
  }

  // Moves a job to the end of a queue.
  void enqueue(const PolicyView& ctx, JobIndex j, int queue) {
    JobState& s = state(j);
    set_slot(ctx, j, Slot::None);
    s.queue = queue;
    s.seq = next_seq_++;
    set_slot(ctx, j, slot_of(ctx, j));
  }

  // GPUs of `type` held by running jobs filed in `queue` at positions before `seq`.
  void file_gpus(int queue, GpuTypeId type, long long seq, int gpus) {
    auto& sums = held_[static_cast<std::size_t>(queue)];
    if (sums.size() <= static_cast<std::size_t>(type)) sums.resize(static_cast<std::size_t>(type) + 1);
    sums[static_cast<std::size_t>(type)].add(static_cast<std::size_t>(seq), gpus);
  }
  long long held_before(int queue, std::size_t type, long long seq) const {
    const auto& sums = held_[static_cast<std::size_t>(queue)];
    return type < sums.size() ? sums[type].prefix(static_cast<std::size_t>(seq)) : 0;
  }

  // Demotes the marked jobs of queue 0 whose run time reached the threshold (in index order), then
  // applies the starvation rule to the jobs of queue 1 whose waiting time reached its bound. Run
  // time accrues lazily: the simulator adds the time between passes to every marked job, which
  // sums to the time since it was marked.
  void account(const PolicyView& ctx, long long now) {
    std::vector<JobIndex> demoted;
    while (!demote_.empty() && demote_.begin()->first <= now) {
      demoted.push_back(demote_.begin()->second);
      state(demote_.begin()->second).demoting = false;
      demote_.erase(demote_.begin());
    }
    std::sort(demoted.begin(), demoted.end());
    for (JobIndex j : demoted) enqueue(ctx, j, 1);
    std::vector<JobIndex> promoted;
    while (!starving_.empty() && starving_.begin()->first <= now) {
      promoted.push_back(starving_.begin()->second);
      starving_.erase(starving_.begin());
    }
    std::sort(promoted.begin(), promoted.end());
    for (JobIndex j : promoted) {
      JobState& s = state(j);
      s.starving = false;
      s.run_s = s.waited_s = 0;
      s.since_s = -1;
      enqueue(ctx, j, 0);
    }
  }

  // The first whole second at which a job marked now (in queue 0, run time run_s) has
  // run_s x gpus >= the threshold, compared in doubles as the simulator does; false beyond 2^53 s.
  bool demotion_time(const JobState& s, int gpus, long long& at_s) const {
    const double need = threshold_gpu_s_ / gpus;
    if (!(need <= kExactWholeDoubleLimit)) return false;
    auto r = static_cast<long long>(std::ceil(need));
    while (r > 0 && static_cast<double>(r - 1) * gpus >= threshold_gpu_s_) --r;
    while (static_cast<double>(r) * gpus < threshold_gpu_s_) ++r;
    at_s = s.mark_s + (r - s.run_s);
    return true;
  }

  // Records the pass's mark of a job, starting or stopping its waiting-time clock.
  void set_mark(const PolicyView& ctx, JobIndex j, bool marked, long long now) {
    JobState& s = state(j);
    s.visited = pass_;
    if (s.marked == marked) return;
    s.marked = marked;
    marked_count_ += marked ? 1 : -1;
    if (marked) {
      if (s.since_s >= 0) s.waited_s += now - s.since_s;
      s.since_s = -1;
      if (s.starving) starving_.erase({s.due_s, j});
      s.starving = false;
      s.mark_s = now;
      if (s.queue == 0 && demotion_time(s, ctx.job(j).spec->requested_gpus, s.demote_s)) {
        s.demoting = true;
        demote_.insert({s.demote_s, j});
      }
      return;
    }
    s.run_s += now - s.mark_s;
    if (s.demoting) demote_.erase({s.demote_s, j});
    s.demoting = false;
    if (s.run_s <= 0) return;
    s.since_s = now;
    // Promoted at the first pass with waited >= run_s x factor (compared as the simulator does,
    // in doubles); beyond 2^53 s no simulated time gets there.
    const double bound = static_cast<double>(s.run_s) * starvation_;
    if (s.queue != 1 || !(starvation_ > 0) || !(bound <= kExactWholeDoubleLimit)) return;
    auto need = static_cast<long long>(std::ceil(bound));
    while (need > 0 && static_cast<double>(need - 1) >= bound) --need;
    while (static_cast<double>(need) < bound) ++need;
    s.due_s = s.since_s - s.waited_s + need;
    s.starving = true;
    starving_.insert({s.due_s, j});
  }

  // GPUs of `type` that the running jobs ahead of queue position (queue, seq) hold.
  long long held_ahead(int queue, std::size_t type, long long seq) const {
    const long long all_of_queue0 = queue == 1 ? held_before(0, type, std::numeric_limits<long long>::max() / 2) : 0;
    return all_of_queue0 + held_before(queue, type, seq);
  }

  // The pass without walking the running jobs, when it displaces none of them: every job marked
  // at the last pass runs, and each waiting job the walk marks fits in the GPUs still free. A
  // waiting job ahead of some running job sees, as in the full walk, the GPUs not promised to
  // the jobs before it: capacity, less the waiting jobs marked so far, less what the running jobs
  // ahead of it hold. Returns false, changing nothing, when the full walk is needed.
  bool fill_free_gpus(const PolicyView& ctx, long long now, std::vector<std::pair<JobIndex, GpuTypeId>>& to_start) {
    if (marked_count_ != static_cast<long long>(ctx.running().size())) return false;
    const auto ntypes = ctx.cluster().gpu_types().size();
    std::vector<int> slack(ntypes), room(ntypes), cap(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) {
      slack[t] = ctx.state().free_of_type(static_cast<GpuTypeId>(t));
      room[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    }
    // The last running job in queue order; waiting jobs after it see only the free GPUs.
    int last_q = -1;
    long long last_seq = 0;
    for (int q = 1; q >= 0 && last_q < 0; --q)
      if (!running_[q].empty()) last_q = q, last_seq = running_[q].rbegin()->first;
    auto most = [](const std::vector<int>& v) { return *std::max_element(v.begin(), v.end()); };
    for (int q = 0; q < 2; ++q) {
      Queue::Cursor waiting(waiting_[q]);
      for (std::size_t t = 0; t < ntypes; ++t) cap[t] = room[t] - static_cast<int>(held_ahead(q, t, 0));
      int gpus = 0;
      for (const Queue::Entry* w; (w = waiting.peek(most(last_q < 0 ? slack : cap), &gpus)) != nullptr;) {
        const bool ahead = last_q > q || (last_q == q && w->first < last_seq);
        for (std::size_t t = 0; t < ntypes; ++t)
          cap[t] = ahead ? room[t] - static_cast<int>(held_ahead(q, t, w->first)) : slack[t];
        const JobIndex j = w->second;
        waiting.pop();
        const GpuTypeId type = pick_type(ctx, j, cap);
        if (type < 0) continue;  // the full walk would pass it by, unmarked
        const auto k = static_cast<std::size_t>(type);
        if (slack[k] < gpus) return false;  // it would take GPUs a running job after it holds
        slack[k] -= gpus;
        room[k] -= gpus;
        cap[k] -= gpus;
        to_start.emplace_back(j, type);
        if (!ahead) last_q = -1;  // from here on every waiting job is after the running ones
      }
    }
    for (const auto& entry : to_start) {
      set_mark(ctx, entry.first, true, now);
      marked_.push_back(entry.first);
    }
    // Ended jobs leave marked_ here (the full walk rebuilds it), so it stays the size of the
    // running jobs, not of the run.
    if (marked_.size() > 2 * static_cast<std::size_t>(marked_count_) + 64)
      std::erase_if(marked_, [&](JobIndex j) { return find_state(j) == nullptr; });
    return true;
  }

  // Queue 0 then queue 1, FIFO within each, running and waiting jobs merged by queue position;
  // waiting jobs whose demand fits no type are not visited (they would not be marked).
  void decide(const PolicyView& ctx, long long now, std::vector<std::pair<JobIndex, GpuTypeId>>& to_start,
              std::vector<JobIndex>& to_stop) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    std::vector<int> cap(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) cap[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    std::vector<JobIndex>& marked = spare_;
    marked.clear();
    auto visit = [&](JobIndex j) {
      const GpuTypeId type = pick_type(ctx, j, cap);
      set_mark(ctx, j, type >= 0, now);
      if (type < 0) {
        if (ctx.job(j).status == JobStatus::Running) to_stop.push_back(j);
        return;
      }
      marked.push_back(j);
      cap[static_cast<std::size_t>(type)] -= ctx.job(j).spec->requested_gpus;
      if (ctx.job(j).status != JobStatus::Running) to_start.emplace_back(j, type);
    };
    for (int q = 0; q < 2; ++q) {
      Queue::Cursor waiting(waiting_[q]);
      for (auto r = running_[q].begin();;) {
        const Queue::Entry* w = waiting.peek(*std::max_element(cap.begin(), cap.end()));
        if (r != running_[q].end() && (w == nullptr || r->first < w->first)) {
          visit((r++)->second);
        } else if (w != nullptr) {
          const JobIndex j = w->second;
          waiting.pop();
          visit(j);
        } else {
          break;
        }
      }
    }
    // Jobs marked last pass that were not visited could not fit: they are unmarked now.
    for (JobIndex j : marked_)
      if (const JobState* s = find_state(j); s && s->known && s->visited != pass_) set_mark(ctx, j, false, now);
    std::swap(marked_, spare_);
  }

  // The type a job would run on with the GPUs not yet promised, or -1: its own type if running,
  // else among the types with room where it can run (a type the model gives a rate of 0 is never
  // chosen) the fastest (ties: the most unpromised GPUs, then the lower type), or with most_free_
  // the one with the most unpromised GPUs.
  GpuTypeId pick_type(const PolicyView& ctx, JobIndex j, const std::vector<int>& cap) const {
    const JobRuntime& job = ctx.job(j);
    const int n = job.spec->requested_gpus;
    if (job.status == JobStatus::Running) return cap[static_cast<std::size_t>(job.gpu_type)] >= n ? job.gpu_type : -1;
    GpuTypeId type = -1;
    double type_rate = 0.0;
    for (std::size_t t = 0; t < cap.size(); ++t) {
      const bool more_free = type < 0 || cap[t] > cap[static_cast<std::size_t>(type)];
      if (cap[t] < n || (most_free_ && !more_free)) continue;
      const double rate = ctx.rate_on_type(*job.spec, static_cast<GpuTypeId>(t), n);
      if (!(rate > 0.0)) continue;
      if (most_free_ || type < 0 || rate > type_rate || (rate == type_rate && more_free)) {
        type = static_cast<GpuTypeId>(t);
        type_rate = rate;
      }
    }
    return type;
  }

  double threshold_gpu_s_;
  double starvation_;
  bool most_free_;                                       // type_choice=most_free
  std::unordered_map<JobIndex, JobState> state_;         // active jobs
  Queue waiting_[2];                                     // jobs not running, per queue
  std::set<Queue::Entry> running_[2];                    // running jobs, per queue
  std::vector<JobIndex> marked_;                         // marked running at the last pass
  std::vector<JobIndex> spare_;                          // marked_ of the pass being decided
  std::set<std::pair<long long, JobIndex>> starving_;    // (due_s, job): queue-1 jobs waiting
  std::set<std::pair<long long, JobIndex>> demote_;      // (demote_s, job): marked jobs of queue 0
  long long marked_count_ = 0;                           // known jobs marked at the last pass
  std::vector<policy_detail::PrefixSums> held_[2];       // [queue][type]: running GPUs by queue position
  long long prev_now_ = 0;
  long long next_seq_ = 0;
  std::uint64_t pass_ = 0;
};

}  // namespace

void register_tiresias(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "tiresias",
      "discretized 2D-LAS: two FIFO queues split at a GPU-time threshold, greedy fill, most-free-node placement",
      "Tiresias (Gu et al., NSDI'19), as in the Pollux simulator (petuum/adaptdl osdi21-artifact)",
      {{"queue_threshold_gpu_s", "57600", "attained GPU-seconds that demote a job from queue 0 to queue 1"},
       {"starvation_factor", "0", "queue-1 job returns to queue 0 after waiting this many times its run time (0 = off)"},
       {"type_choice", "fastest",
        "GPU type of a job that starts: 'fastest' (highest rate among types with room) or 'most_free' (the type with "
        "the most unpromised GPUs, the rule before issue 14)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        constexpr double any = std::numeric_limits<double>::max();
        const std::string& choice = param_string(p, "type_choice");
        if (choice != "fastest" && choice != "most_free")
          throw InputError("", 0, "--param type_choice", fmt::format("expected 'fastest' or 'most_free', got '{}'", choice));
        return std::make_unique<TiresiasPolicy>(param_double(p, "queue_threshold_gpu_s", 0.0, any),
                                                param_double(p, "starvation_factor", 0.0, any), choice == "most_free");
      },
      {}});
}

}  // namespace hetsim
