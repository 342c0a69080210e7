// sia on goodput workloads: Sia's round-based ILP over configurations (GPU type, GPU count) for
// elastic jobs (Jayaram Subramanya et al., "Sia: Heterogeneity-aware, goodput-optimized
// ML-cluster scheduling", SOSP'23; public artifact siasosp23/artifacts, sia-simulator/sia.py and
// cluster.py). The ILP itself is sia_plan (include/hetsim/policy/sia_plan.hpp); this file builds
// its inputs each round and turns its answer into GPUs:
//  - goodput per configuration from the goodput model (best batch size on a grid of 50, as the
//    pollux policy), through Sia's bootstrapped estimator (paper section 3.1): one GPU of a type is
//    known from the arrival profiling; more GPUs of a type are known once the job has run there
//    on more than one GPU; else they are projected from a type it has (goodput(1, A) / goodput(1,
//    B) x goodput(N, B)); else assumed linear (N x goodput(1, A));
//  - Sia's scale-up rule: a job starts on one GPU and may at most double the largest count it has
//    held (sia.py's max_replicas = 2 x max profiled replicas, shared over types);
//  - the restart penalty through Pollux's re-allocation factor with P = the job's restart time,
//    and jobs inside a checkpoint-restore keep their configuration (sim_config.preserve_ckpt_allocs);
//  - the profiling at arrival is charged by the mechanism at each job's first start
//    (profiling_s(): `bootstrap_s` per GPU type of the cluster).
#include "sia_goodput.hpp"

#include <algorithm>
#include <cmath>
#include <compare>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/policy/sia_plan.hpp"
#include "hetsim/util/error.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

class SiaGoodput final : public SchedulingPolicy {
 private:
  struct JobHistory {
    int max_gpus = 0;               // largest count held so far
    std::set<GpuTypeId> scaled_on;  // types where it held more than one GPU
  };
  // A goodput table entry is a pure function of its key, so entries are kept across rounds.
  struct Key {
    std::string app;
    GpuTypeId type = 0;
    int gpus = 0, epoch = 0, fixed_batch = 0;
    auto operator<=>(const Key&) const = default;
  };
  struct Entry {
    double goodput = 0.0;
    int batch = 0;
  };

 public:
  SiaGoodput(SiaPlanSettings settings, double default_penalty_s, double bootstrap_s)
      : settings_(settings), default_penalty_s_(default_penalty_s), bootstrap_s_(bootstrap_s) {}
  std::string name() const override { return "sia"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself
  std::optional<double> round_s() const override { return 60.0; }  // Sia's default round
  double profiling_s(const Cluster& cluster) const override {
    return bootstrap_s_ * static_cast<double>(cluster.gpu_types().size());
  }

  Decision schedule(const PolicyView& ctx) override {
    const auto* model = dynamic_cast<const GoodputModel*>(&ctx.model());
    if (!model)
      throw InputError("", 0, "--policy",
                       "sia needs a Pollux/Sia workload (--workload) to plan with the goodput model; "
                       "on throughput tables it runs under --mechanism gavel");
    const Cluster& cluster = ctx.cluster();
    if (&cluster != cluster_ || model != model_) {
      cluster_ = &cluster;
      model_ = model;
      configs_ = sia_configurations(cluster);
      tables_.clear();
    }
    std::vector<JobIndex> jobs(ctx.pending().begin(), ctx.pending().end());
    jobs.insert(jobs.end(), ctx.running().begin(), ctx.running().end());
    std::sort(jobs.begin(), jobs.end());
    observe(ctx, jobs);
    std::vector<SiaPlanJob> plan_jobs(jobs.size());
    std::vector<std::vector<int>> batch(jobs.size());
    std::vector<int> start(jobs.size(), -1);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      plan_jobs[i] = plan_job(ctx, *model, jobs[i], batch[i]);
      if (auto it = previous_.find(jobs[i]); it != previous_.end()) start[i] = it->second;
    }
    std::vector<int> capacity(cluster.gpu_types().size());
    for (std::size_t t = 0; t < capacity.size(); ++t) capacity[t] = cluster.gpus_of_type(static_cast<GpuTypeId>(t));
    const SiaPlan plan = sia_plan(configs_, capacity, plan_jobs, settings_, start);
    if (plan.status != LpResult::Status::Optimal && plan.status != LpResult::Status::Feasible) return {};  // keep all
    previous_.clear();
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (plan.config[i] >= 0) previous_[jobs[i]] = plan.config[i];
    return to_decision(ctx, jobs, plan.config, batch);
  }

 private:
  // The largest GPU count each job has held, and the types where it ran on more than one GPU
  // (where its own scaling is "measured"). Finished jobs are forgotten.
  void observe(const PolicyView& ctx, const std::vector<JobIndex>& jobs) {
    std::map<JobIndex, JobHistory> kept;
    for (JobIndex j : jobs) {
      JobHistory h = history_.count(j) ? history_[j] : JobHistory{};
      const JobRuntime& job = ctx.job(j);
      const int held = static_cast<int>(job.gpus.size());
      h.max_gpus = std::max(h.max_gpus, held);
      if (held > 1 && job.gpu_type >= 0) h.scaled_on.insert(job.gpu_type);
      kept.emplace(j, std::move(h));
    }
    history_ = std::move(kept);
  }

  // One job's row of the ILP: estimated goodput per configuration, current configuration, factor.
  SiaPlanJob plan_job(const PolicyView& ctx, const GoodputModel& model, JobIndex j, std::vector<int>& batch) {
    const JobRuntime& job = ctx.job(j);
    const JobSpec& spec = *job.spec;
    const PolluxApplication* app = model.app(spec.job_type);
    const JobHistory& h = history_[j];
    SiaPlanJob row;
    row.job = j;
    row.goodput.assign(configs_.size(), 0.0);
    batch.assign(configs_.size(), 0);
    if (!app) return row;
    const int epoch = app->epoch_of(ctx.work_done(j));
    // Sia's scale-up rule: one GPU first, then at most twice the largest count held so far.
    int cap = h.max_gpus == 0 ? 1 : 2 * h.max_gpus;
    cap = std::min(cap, spec.max_gpus > 0 ? spec.max_gpus : cap);
    const bool ncf = spec.job_type == "ncf";  // the simulators keep ncf on one GPU at its batch
    if (ncf) cap = 1;
    const int fixed_batch = ncf && spec.global_batch_size > 0 ? spec.global_batch_size : 0;
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      const SiaConfig& k = configs_[c];
      const bool current = job.status == JobStatus::Running && job.gpu_type == k.type &&
                           static_cast<int>(job.gpus.size()) == k.gpus;
      if (current) row.current = static_cast<int>(c);
      if (k.gpus > cap && !current) continue;
      const Entry exact = table(model, *app, k.type, k.gpus, epoch, fixed_batch);
      batch[c] = exact.batch;
      if (exact.goodput <= 0.0) continue;
      row.goodput[c] = estimate(model, *app, h, k, epoch, fixed_batch, exact.goodput);
    }
    const double penalty_s = spec.restart_overhead_s >= 0.0 ? spec.restart_overhead_s : default_penalty_s_;
    // Sia's num_restarts does not count the first start; hetsim's `restarts` does.
    const int restarts = std::max(job.restarts - 1, 0);
    row.realloc_factor = sia_realloc_factor((ctx.now() - spec.submit).seconds(), restarts, penalty_s);
    row.pinned = row.current >= 0 && ctx.now() < job.resume_at && row.goodput[static_cast<std::size_t>(row.current)] > 0.0;
    return row;
  }

  // Sia's bootstrapped goodput estimate for configuration k (paper section 3.1, "Bootstrapping of
  // throughput models"); `exact` is the model's goodput there.
  double estimate(const GoodputModel& model, const PolluxApplication& app, const JobHistory& h, const SiaConfig& k,
                  int epoch, int fixed_batch, double exact) {
    if (k.gpus == 1 || h.scaled_on.count(k.type)) return exact;
    const double one = table(model, app, k.type, 1, epoch, fixed_batch).goodput;
    for (GpuTypeId b : h.scaled_on) {
      const double b_one = table(model, app, b, 1, epoch, fixed_batch).goodput;
      const double b_n = table(model, app, b, k.gpus, epoch, fixed_batch).goodput;
      if (b_one > 0.0 && b_n > 0.0) return one * b_n / b_one;
    }
    return one * k.gpus;  // "the estimator assumes that throughput for any GPU type will double"
  }

  // Best goodput (and its batch size) on `gpus` GPUs of `type` packed onto the fewest nodes: 50
  // batch sizes on a geometric grid, as the pollux policy samples them. Pure in its key, so kept.
  Entry table(const GoodputModel& model, const PolluxApplication& app, GpuTypeId type, int gpus, int epoch,
              int fixed_batch) {
    auto [it, inserted] = tables_.try_emplace(Key{app.name(), type, gpus, epoch, fixed_batch});
    if (!inserted) return it->second;
    const std::string& tname = cluster_->gpu_types()[static_cast<std::size_t>(type)].name;
    if (!app.profile(tname)) return it->second;  // no step profile: the type is excluded for the job
    double lo = std::max<double>(app.init_batch_size(), static_cast<double>(app.min_local_bsz()) * gpus);
    double hi = app.max_batch_size();
    if (fixed_batch > 0) lo = hi = fixed_batch;
    if (lo > hi) return it->second;
    const Placement placement = packed_placement(gpus, cluster_->max_gpus_per_node(type));
    constexpr int kSamples = 50;
    for (int s = 0; s < kSamples; ++s) {
      const double b = lo == hi ? lo : lo * std::pow(hi / lo, static_cast<double>(s) / (kSamples - 1));
      const int bi = static_cast<int>(std::lround(b));
      const double g = model.goodput(app, tname, placement, bi, epoch);
      if (g > it->second.goodput) it->second = {g, bi};
    }
    return it->second;
  }

  // GPUs for the plan: unchanged configurations keep their GPUs (a batch change pays no restart),
  // the others are placed largest first on the fewest nodes (Sia's placer packs whole nodes first).
  Decision to_decision(const PolicyView& ctx, const std::vector<JobIndex>& jobs, const std::vector<int>& config,
                       const std::vector<std::vector<int>>& batch) const {
    const std::size_t n = jobs.size();
    std::vector<GpuTypeId> type(n, -1);
    std::vector<int> replicas(n, 0), chosen_batch(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (config[i] < 0) continue;
      const auto c = static_cast<std::size_t>(config[i]);
      type[i] = configs_[c].type;
      replicas[i] = configs_[c].gpus;
      chosen_batch[i] = batch[i][c];
    }
    Decision d;
    policy_detail::NodePool pool(ctx.state());
    const std::vector<char> keep = pool.keep_or_release(ctx, jobs, type, replicas, d.preempt);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i) {
      const JobRuntime& job = ctx.job(jobs[i]);
      if (keep[i]) {
        if (chosen_batch[i] > 0 && chosen_batch[i] != job.batch_size)
          d.allocate.push_back({jobs[i], type[i], replicas[i], job.gpus, chosen_batch[i]});
      } else if (replicas[i] > 0) {
        order.push_back(i);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return replicas[a] > replicas[b]; });
    for (std::size_t i : order) {
      AllocationRequest r{jobs[i], type[i], replicas[i], pool.take_packed(type[i], replicas[i]), chosen_batch[i]};
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }

  SiaPlanSettings settings_;
  double default_penalty_s_, bootstrap_s_;
  const Cluster* cluster_ = nullptr;  // what configs_ and tables_ were made for
  const GoodputModel* model_ = nullptr;
  std::vector<SiaConfig> configs_;
  std::map<Key, Entry> tables_;
  std::map<JobIndex, JobHistory> history_;
  std::map<JobIndex, int> previous_;  // last round's configuration per placed job (ILP start point)
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_sia_goodput(const SiaPlanSettings& settings, double default_penalty_s,
                                                   double bootstrap_s) {
  return std::make_unique<SiaGoodput>(settings, default_penalty_s, bootstrap_s);
}

}  // namespace hetsim
