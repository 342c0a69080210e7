// Gavel on Pollux/Sia goodput workloads: the Gavel baseline of Sia (Jayaram Subramanya et al.,
// "Sia: Heterogeneity-aware, goodput-optimized ML-cluster scheduling", SOSP'23; its artifact's
// siasosp23/artifacts, sia-simulator/gavel.py, run there with 360 s rounds), which schedules the
// elastic jobs of Sia's workloads RIGIDLY: each job runs on exactly its requested num_replicas GPUs
// at its requested batch size, so its rate on a GPU type is one number, the goodput model's rate
// at that configuration (0 where the count exceeds the type's GPUs or the type has no profile).
// Each round (a pass of the event mechanism in round mode, --interval):
//  1. the allocation policy (gavel-maxmin: Gavel's max-min fairness LP, Narayanan et al., OSDI'20)
//     computes X[job][type] over the active jobs from those rates;
//  2. Gavel's priorities (GavelPriorities, as the artifact's update_priorities): X / the fraction
//     of a type's time the job has received, where every job starts with half a round on every
//     type and the type's total counts every job's time, those of ended jobs included (the
//     artifact never resets them: its reset is commented out, so deficits stay 0);
//  3. (job, type) entries in decreasing (priority, deficit, X), ties by type then arrival, are
//     taken greedily: a job not yet chosen whose count still fits in the type's unchosen GPUs
//     runs there (entries with X = 0 too: leftover GPUs are not left idle);
//  4. chosen jobs on their type keep their GPUs; the others are preempted; chosen jobs start or
//     move (restart charged by the mechanism), placed largest count first by the run's placement.
// Time received is credited at the next pass, the time since this one (the artifact adds a whole
// round at the decision; both are one round while rounds follow each other).
#include "gavel_goodput.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/sched/gavel_mechanism.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

// One (job, type) candidate of a round, in the artifact's sort key.
struct Entry {
  JobIndex job;
  std::size_t type;
  double priority, deficit, share;
};

class GavelGoodput final : public SchedulingPolicy {
 public:
  explicit GavelGoodput(std::unique_ptr<AllocationPolicy> allocation) : allocation_(std::move(allocation)) {}
  std::string name() const override { return allocation_->name(); }
  std::optional<double> round_s() const override { return kGavelGoodputRoundS; }

  std::optional<std::string> reject_at_arrival(const JobSpec& job, const PolicyView& ctx) override {
    if (!dynamic_cast<const GoodputModel*>(&ctx.model())) return std::nullopt;  // schedule() refuses the run
    const std::vector<double> rates = fixed_rates(ctx, job);
    if (std::any_of(rates.begin(), rates.end(), [](double r) { return r > 0.0; })) return std::nullopt;
    return fmt::format("policy '{}' runs goodput jobs rigidly on their requested {} GPUs: no GPU type of the cluster "
                       "has that many GPUs and a profile of application '{}'",
                       name(), job.requested_gpus, job.job_type);
  }

  Decision schedule(const PolicyView& ctx) override {
    if (!dynamic_cast<const GoodputModel*>(&ctx.model()))
      throw InputError("", 0, "--policy",
                       fmt::format("{} under the event mechanism needs a Pollux/Sia workload (--workload): it runs "
                                   "goodput jobs rigidly; other traces run under --mechanism gavel (or auto)",
                                   name()));
    const std::size_t types = ctx.cluster().gpu_types().size();
    const double round_s = ctx.round_s() > 0.0 ? ctx.round_s() : kGavelGoodputRoundS;
    if (!priorities_) priorities_.emplace(types, round_s);
    const double now_s = ctx.now().seconds();
    for (const auto& [j, t] : chosen_) priorities_->record_run(j, t, now_s - last_pass_s_);
    last_pass_s_ = now_s;
    sync(ctx, round_s);
    const std::map<JobIndex, std::vector<double>> x = allocate(ctx);
    chosen_ = choose(ctx, x);
    return decide(ctx);
  }

 private:
  // Rate of `job` on each type at its requested count and batch; 0 where it cannot run.
  static std::vector<double> fixed_rates(const PolicyView& ctx, const JobSpec& job) {
    const std::size_t types = ctx.cluster().gpu_types().size();
    std::vector<double> rates(types, 0.0);
    for (std::size_t t = 0; t < types; ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      if (job.requested_gpus <= 0 || job.requested_gpus > ctx.cluster().gpus_of_type(type)) continue;
      const double r = ctx.rate_on_type(job, type, job.requested_gpus);
      rates[t] = r > 0.0 ? r : 0.0;
    }
    return rates;
  }

  // Active jobs (pending and running, in arrival order) join the priorities with half a round on
  // every type, which the type totals count too (the artifact's add_jobs); ended jobs leave.
  void sync(const PolicyView& ctx, double round_s) {
    std::vector<JobIndex> active(ctx.pending().begin(), ctx.pending().end());
    active.insert(active.end(), ctx.running().begin(), ctx.running().end());
    std::sort(active.begin(), active.end());
    for (auto it = rates_.begin(); it != rates_.end();) {
      if (std::binary_search(active.begin(), active.end(), it->first)) {
        ++it;
        continue;
      }
      priorities_->remove_job(it->first);
      it = rates_.erase(it);
    }
    for (JobIndex j : active) {
      if (rates_.count(j)) continue;
      rates_[j] = fixed_rates(ctx, *ctx.job(j).spec);
      priorities_->add_job(j, 0.0);
      for (std::size_t t = 0; t < rates_[j].size(); ++t) priorities_->record_run(j, t, round_s / 2.0);
    }
  }

  // The allocation policy's X by job (sanitised as the gavel mechanism does; the isolated
  // allocation when the solver fails).
  std::map<JobIndex, std::vector<double>> allocate(const PolicyView& ctx) {
    AllocationView view = allocation_view_of(ctx.cluster(), ctx.now(), &ctx);
    for (const auto& [j, rates] : rates_) {
      const JobRuntime& job = ctx.job(j);
      view.jobs.push_back(allocation_row(j, job, rates, ctx.remaining_work(j),
                                         ctx.now().seconds() - job.spec->submit.seconds(), job.restarts));
    }
    std::map<JobIndex, std::vector<double>> x;
    if (view.jobs.empty()) return x;
    AllocationResult r = allocation_->allocate(view);
    AllocationMatrix m = r.ok && r.x.size() == view.jobs.size() ? sanitize_allocation(view, std::move(r.x), false)
                                                                : isolated_allocation(view);
    for (std::size_t i = 0; i < view.jobs.size(); ++i) x[view.jobs[i].job] = std::move(m[i]);
    return x;
  }

  // Steps 2 and 3: the (job, type) pairs that run this round, in the order they were chosen.
  std::vector<std::pair<JobIndex, std::size_t>> choose(const PolicyView& ctx,
                                                       const std::map<JobIndex, std::vector<double>>& x) const {
    const std::size_t types = ctx.cluster().gpu_types().size();
    std::vector<Entry> entries;
    for (std::size_t t = 0; t < types; ++t)
      for (const auto& [j, rates] : rates_)
        entries.push_back({j, t, priorities_->priority(j, t, x, rates[t]), priorities_->deficit(j, t), x.at(j)[t]});
    // Python's sort(reverse=True) is stable: equal keys keep type-then-arrival order.
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.deficit != b.deficit) return a.deficit > b.deficit;
      return a.share > b.share;
    });
    std::vector<int> left(types);
    for (std::size_t t = 0; t < types; ++t) left[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    std::map<JobIndex, bool> taken;
    std::vector<std::pair<JobIndex, std::size_t>> chosen;
    for (const Entry& e : entries) {
      const int gpus = ctx.job(e.job).spec->requested_gpus;
      if (left[e.type] < gpus || taken[e.job] || !(rates_.at(e.job)[e.type] > 0.0)) continue;
      left[e.type] -= gpus;
      taken[e.job] = true;
      chosen.emplace_back(e.job, e.type);
    }
    return chosen;
  }

  // Step 4 as a Decision: kept jobs are not mentioned; starts and moves largest count first.
  Decision decide(const PolicyView& ctx) const {
    Decision d;
    std::map<JobIndex, std::size_t> type_of(chosen_.begin(), chosen_.end());
    for (JobIndex j : ctx.running())
      if (!type_of.count(j)) d.preempt.push_back(j);
    for (const auto& [j, t] : chosen_) {
      const JobRuntime& job = ctx.job(j);
      if (job.status == JobStatus::Running && static_cast<std::size_t>(job.gpu_type) == t) continue;
      d.allocate.push_back({j, static_cast<GpuTypeId>(t), job.spec->requested_gpus, {}, 0});
    }
    std::stable_sort(d.allocate.begin(), d.allocate.end(), [](const AllocationRequest& a, const AllocationRequest& b) {
      return a.gpu_count > b.gpu_count;
    });
    return d;
  }

  std::unique_ptr<AllocationPolicy> allocation_;
  std::optional<GavelPriorities> priorities_;
  std::map<JobIndex, std::vector<double>> rates_;          // active jobs: [type] rate at the fixed configuration
  std::vector<std::pair<JobIndex, std::size_t>> chosen_;  // (job, type) of the last pass
  double last_pass_s_ = 0.0;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_gavel_goodput(std::unique_ptr<AllocationPolicy> allocation) {
  return std::make_unique<GavelGoodput>(std::move(allocation));
}

}  // namespace hetsim
