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
// On several GPU types a job uses one type: the one it runs on, else the type with the most GPUs
// still unpromised among those it can run on (a documented extension; the simulator has one type).
// Pass cost (issue 11): the simulator re-walks every job each pass; here the queues, the counters
// and the starvation deadlines are kept between passes and updated from
// PolicyView::changed(), so a pass visits the running jobs and only the waiting jobs whose
// demand still fits; the decisions are the simulator's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>

#include "demand_queue.hpp"
#include "hetsim/policy/builtin.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

class TiresiasPolicy final : public SchedulingPolicy {
 public:
  TiresiasPolicy(double threshold_gpu_s, double starvation) : threshold_gpu_s_(threshold_gpu_s), starvation_(starvation) {}
  std::string name() const override { return "tiresias"; }

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
    decide(ctx, now, to_start, to_stop);
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
    long long run_s = 0;        // run time since the last starvation reset (decides the queue)
    long long waited_s = 0;     // waiting time since the last run, up to since_s
    long long since_s = -1;     // waiting time accrues from this pass on; -1 = it does not
    long long due_s = 0;        // first pass time at which the starvation rule promotes it
    std::uint64_t visited = 0;  // last pass that decided it
  };
  using Queue = policy_detail::DemandQueue<long long>;

  JobState& state(JobIndex j) {
    const auto k = static_cast<std::size_t>(j);
    if (k >= state_.size()) state_.resize(k + 1);
    return state_[k];
  }

  // Every job enters queue 0 at its first pass (in index order); finished jobs are forgotten;
  // waiting_ and running_ follow the jobs' statuses.
  void sync(const PolicyView& ctx) {
    std::vector<JobIndex> arrived;
    for (JobIndex j : ctx.changed()) {
      JobState& s = state(j);
      const JobStatus status = ctx.job(j).status;
      if (status != JobStatus::Pending && status != JobStatus::Running) {
        if (s.known) forget(ctx, j);
      } else if (!s.known) {
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
    s = JobState{};
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
    if (s.slot == Slot::Running) running_[s.queue].erase(e);
    if (slot == Slot::Waiting) waiting_[s.queue].insert(n, e);
    if (slot == Slot::Running) running_[s.queue].insert(e);
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

  // Attained service since the last pass for jobs marked running (demotion, in index order), then
  // the starvation rule for the jobs of queue 1 whose waiting time reached its bound.
  void account(const PolicyView& ctx, long long now) {
    std::vector<JobIndex> demoted;
    for (JobIndex j : marked_) {
      JobState& s = state(j);
      if (!s.known) continue;
      s.run_s += now - prev_now_;
      const double gpu_s = static_cast<double>(s.run_s) * ctx.job(j).spec->requested_gpus;
      if (s.queue == 0 && gpu_s >= threshold_gpu_s_) demoted.push_back(j);
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

  // Records the pass's mark of a job, starting or stopping its waiting-time clock.
  void set_mark(JobIndex j, bool marked, long long now) {
    JobState& s = state(j);
    s.visited = pass_;
    if (s.marked == marked) return;
    s.marked = marked;
    if (marked) {
      if (s.since_s >= 0) s.waited_s += now - s.since_s;
      s.since_s = -1;
      if (s.starving) starving_.erase({s.due_s, j});
      s.starving = false;
      return;
    }
    if (s.run_s <= 0) return;
    s.since_s = now;
    // Promoted at the first pass with waited >= run_s x factor (compared as the simulator does,
    // in doubles); beyond 2^53 s no simulated time gets there.
    const double bound = static_cast<double>(s.run_s) * starvation_;
    if (s.queue != 1 || !(starvation_ > 0) || !(bound <= 9007199254740992.0)) return;
    auto need = static_cast<long long>(std::ceil(bound));
    while (need > 0 && static_cast<double>(need - 1) >= bound) --need;
    while (static_cast<double>(need) < bound) ++need;
    s.due_s = s.since_s - s.waited_s + need;
    s.starving = true;
    starving_.insert({s.due_s, j});
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
      set_mark(j, type >= 0, now);
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
      if (state(j).known && state(j).visited != pass_) set_mark(j, false, now);
    std::swap(marked_, spare_);
  }

  // The type a job would run on with the GPUs not yet promised, or -1: its own type if running,
  // else the type with the most unpromised GPUs among those with room where it can run (a type
  // the table gives a measured 0 is never chosen).
  static GpuTypeId pick_type(const PolicyView& ctx, JobIndex j, const std::vector<int>& cap) {
    const JobRuntime& job = ctx.job(j);
    const int n = job.spec->requested_gpus;
    if (job.status == JobStatus::Running) return cap[static_cast<std::size_t>(job.gpu_type)] >= n ? job.gpu_type : -1;
    GpuTypeId type = -1;
    for (std::size_t t = 0; t < cap.size(); ++t)
      if (cap[t] >= n && (type < 0 || cap[t] > cap[static_cast<std::size_t>(type)]) &&
          ctx.rate_on_type(*job.spec, static_cast<GpuTypeId>(t), n) > 0.0)
        type = static_cast<GpuTypeId>(t);
    return type;
  }

  double threshold_gpu_s_;
  double starvation_;
  std::vector<JobState> state_;                          // [job]
  Queue waiting_[2];                                     // jobs not running, per queue
  std::set<Queue::Entry> running_[2];                    // running jobs, per queue
  std::vector<JobIndex> marked_;                         // marked running at the last pass
  std::vector<JobIndex> spare_;                          // marked_ of the pass being decided
  std::set<std::pair<long long, JobIndex>> starving_;    // (due_s, job): queue-1 jobs waiting
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
       {"starvation_factor", "0", "queue-1 job returns to queue 0 after waiting this many times its run time (0 = off)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        constexpr double any = std::numeric_limits<double>::max();
        return std::make_unique<TiresiasPolicy>(param_double(p, "queue_threshold_gpu_s", 0.0, any),
                                                param_double(p, "starvation_factor", 0.0, any));
      },
      {}});
}

}  // namespace hetsim
