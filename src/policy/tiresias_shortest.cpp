// tiresias-shortest: the `shortest` scheduler of Tiresias' own simulator (Gu et al., "Tiresias: A
// GPU Cluster Manager for Distributed Deep Learning", NSDI'19; github.com/SymbioticLab/Tiresias,
// simulator/run_sim.py shortest_first_sim_jobs) with its `yarn` placement. Preemptive shortest
// remaining time first, with the simulator's bookkeeping:
//  - remaining time = duration (the trace's run time, an oracle) minus the whole seconds the job
//    has run, brought up to date at each instant for running jobs only;
//  - the list of jobs is kept between instants: arrivals join its end, then it is stably sorted by
//    remaining time, so equal remaining times keep their earlier order;
//  - each instant the cluster is emptied and every job, in list order, is placed afresh by the
//    yarn rule; a job that yarn cannot place waits (jobs behind it may still run), a running one is
//    preempted. Where a kept job runs does not change its speed, so hetsim keeps its GPUs and new
//    jobs take any free ones (the chosen set fits by the yarn rule, hence by count).
#include <algorithm>
#include <unordered_map>

#include "hetsim/policy/builtin.hpp"
#include "tiresias_sim.hpp"

namespace hetsim {
namespace {

using policy_detail::kTiresiasType;
using policy_detail::whole_s;
using policy_detail::YarnNodes;

class TiresiasShortestPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "tiresias-shortest"; }

  Decision schedule(const PolicyView& ctx) override {
    const long long now_s = whole_s(ctx.now());
    drop_finished(ctx);
    for (JobIndex j : ctx.pending())
      if (!book_.count(j)) {
        book_[j] = Book{std::llround(ctx.job(j).spec->work), now_s, false};
        list_.push_back(j);
      }
    for (JobIndex j : list_) {
      Book& b = book_[j];
      b.running = ctx.running().count(j) > 0;  // the mechanism's word (the same unless it refused a start)
      if (b.running) b.remaining_s -= now_s - b.last_check_s;
      b.last_check_s = now_s;
    }
    std::stable_sort(list_.begin(), list_.end(),
                     [&](JobIndex a, JobIndex b) { return book_[a].remaining_s < book_[b].remaining_s; });
    YarnNodes pool(ctx.state(), true);
    Decision d;
    for (JobIndex j : list_) {
      Book& b = book_[j];
      const int gpus = ctx.job(j).spec->requested_gpus;
      const bool runs = pool.take(gpus);
      if (runs && !b.running) d.allocate.push_back({j, kTiresiasType, gpus, {}, 0});
      if (!runs && b.running) d.preempt.push_back(j);
      b.running = runs;
    }
    return d;
  }

 private:
  struct Book {
    long long remaining_s = 0;
    long long last_check_s = 0;
    bool running = false;
  };

  // Jobs that completed since the last pass leave the list.
  void drop_finished(const PolicyView& ctx) {
    std::erase_if(list_, [&](JobIndex j) {
      if (ctx.pending().count(j) || ctx.running().count(j)) return false;
      book_.erase(j);
      return true;
    });
  }

  std::unordered_map<JobIndex, Book> book_;
  std::vector<JobIndex> list_;  // the simulator's runnable_jobs, in its order
};

}  // namespace

void register_tiresias_shortest(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "tiresias-shortest",
      "Tiresias' simulator's shortest: preemptive shortest remaining time (oracle), stable order, jobs placed afresh by "
      "the yarn rule each instant",
      "Tiresias (Gu et al., NSDI'19), simulator 'shortest' + 'yarn' (github.com/SymbioticLab/Tiresias)",
      {},
      [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<TiresiasShortestPolicy>();
      },
      nullptr});
}

}  // namespace hetsim
