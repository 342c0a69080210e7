// edf: preemptive earliest deadline first (Liu and Layland, "Scheduling Algorithms for
// Multiprogramming in a Hard-Real-Time Environment", JACM 1973), the deadline-aware baseline that
// ElasticFlow (Gu et al., ASPLOS'23) compares against. At every arrival and completion the active
// jobs are ranked by deadline (JobSpec::deadline_s); jobs without a deadline come after every job
// with one, in arrival order among themselves; equal deadlines go by submit time, then job index
// (the same order, since jobs are indexed in submit order). GPUs are handed out greedily in that
// order, each job rigid at its requested count on the fastest GPU type that still has room (a
// running job keeps its type while it has room, to avoid a needless restart); a running job that
// no longer fits is preempted. Later jobs may pass a blocked earlier one (greedy fill, as srtf).
// The ranking is kept between passes in an ordered set updated from PolicyView::changed(), so a
// pass costs the jobs it walks, not a sort of the backlog.
#include <algorithm>
#include <set>
#include <tuple>

#include "fastest_type.hpp"
#include "hetsim/policy/builtin.hpp"
#include "usable_pool.hpp"

namespace hetsim {
namespace {

class EdfPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "edf"; }

  Decision schedule(const PolicyView& ctx) override {
    std::vector<int> pool = usable_.whole_cluster(ctx);
    sync(ctx);
    Decision d;
    int free = usable_.free(pool);
    for (auto it = order_.begin(); it != order_.end() && free > 0; ++it) free -= place(ctx, it->job, pool, d);
    // Once every GPU is handed out the rest of the order gets nothing: the walk stops there, and the
    // running jobs it did not reach are preempted (a pass costs the jobs served, not the backlog).
    if (free == 0) {
      placed_.clear();
      for (const AllocationRequest& r : d.allocate) placed_.insert(r.job);
      for (JobIndex j : ctx.running())
        if (!placed_.contains(j) && std::find(d.preempt.begin(), d.preempt.end(), j) == d.preempt.end())
          d.preempt.push_back(j);
    }
    return d;
  }

 private:
  // Rank of an active job: jobs with a deadline first (by deadline), then the others; index last.
  struct Key {
    bool no_deadline = false;
    double deadline_s = 0.0;
    JobIndex job = 0;
    bool operator<(const Key& o) const {
      return std::tie(no_deadline, deadline_s, job) < std::tie(o.no_deadline, o.deadline_s, o.job);
    }
  };

  static Key key_of(const JobSpec& spec, JobIndex j) {
    return spec.deadline_s ? Key{false, *spec.deadline_s, j} : Key{true, 0.0, j};
  }

  // Keeps order_ equal to the active (waiting or running) jobs.
  void sync(const PolicyView& ctx) {
    for (JobIndex j : ctx.changed()) {
      const JobRuntime& job = ctx.job(j);
      const bool active = job.status == JobStatus::Pending || job.status == JobStatus::Running;
      const Key k = key_of(*job.spec, j);
      if (active && order_.insert(k).second) usable_.mark(ctx, *job.spec, job.spec->requested_gpus);
      if (!active) order_.erase(k);
    }
  }

  // The greedy step for one job: stay on its type if running and that type still has room, else
  // the fastest type with room; a running job with no room is preempted.
  // Returns the GPUs given.
  static int place(const PolicyView& ctx, JobIndex j, std::vector<int>& pool, Decision& d) {
    const JobRuntime& job = ctx.job(j);
    const int n = job.spec->requested_gpus;
    GpuTypeId pick = -1;
    if (job.status == JobStatus::Running && pool[static_cast<std::size_t>(job.gpu_type)] >= n) {
      pick = job.gpu_type;
    } else {
      pick = policy_detail::fastest_type_with_room(ctx, *job.spec, pool);
    }
    if (pick < 0) {
      if (job.status == JobStatus::Running) d.preempt.push_back(j);
      return 0;
    }
    pool[static_cast<std::size_t>(pick)] -= n;
    d.allocate.push_back({j, pick, n, {}});
    return n;
  }

  std::set<Key> order_;     // active jobs, in EDF order
  std::set<JobIndex> placed_;  // scratch of schedule()
  policy_detail::UsablePool usable_;
};

}  // namespace

void register_edf(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "edf",
      "preemptive earliest deadline first (jobs without a deadline last, FIFO), greedy fill, rigid, fastest type "
      "with room",
      "EDF (Liu and Layland, JACM 1973); the deadline baseline of ElasticFlow (Gu et al., ASPLOS'23)",
      {},
      [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<EdfPolicy>();
      },
      nullptr});
}

}  // namespace hetsim
