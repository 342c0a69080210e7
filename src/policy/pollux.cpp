// pollux: goodput-maximising elastic allocation, after Pollux (Qiao et al., "Pollux: Co-adaptive
// Cluster Scheduling for Goodput-Optimized Deep Learning", OSDI'21). Pollux's own scheduler is a
// genetic algorithm over whole allocation matrices (petuum/adaptdl osdi21-artifact
// simulator/pollux.py); this is hetsim's own, simpler optimiser over the same objective, the sum of
// job speedups (goodput on r GPUs over goodput on one GPU, each at its best batch size):
//  - every active job's best goodput is evaluated for r = 1 .. its elastic maximum (batch sizes on
//    a geometric grid of 50 between max(initial batch, r x smallest per-GPU batch) and the largest
//    validated batch, as Pollux's GoodputFunction.optimize samples them), on r GPUs packed onto
//    as few nodes as possible, with the gradient statistics of the job's current epoch;
//  - one GPU each, least attained GPU time first (then arrival), while GPUs last;
//  - then GPU by GPU to the largest marginal speedup gain; a running job's gain towards the count it
//    already has is multiplied by (1 + `stickiness`), so small gains do not pay a restart;
//  - unchanged counts keep their GPUs (the batch size may still change, without a restart); others
//    are placed on the fewest nodes (best fit). A job uses one GPU type at a time (a placement
//    profile measures one type; Sia's artifact, siasosp23/artifacts sia-simulator/
//    cluster_unaware.py, likewise drops the minority types of its Pollux baseline's allocations):
//    the one it runs on, else the type with unpromised GPUs where one GPU gives it the most
//    goodput at its best batch size (`type_choice=fastest`, default; issue 14), or at the batch it
//    would start with (`type_choice=default_batch`, the rule before). Once a job holds a type, its
//    further GPUs come from that type's pool, so each type's GPUs go to its jobs by marginal
//    speedup; on one GPU type both choices are the same.
// Cost: the step times of the sampled batch sizes do not depend on the epoch, so they are kept
// per (application, GPU type, GPU count) for the run; a new epoch only re-reads the gradient
// statistics (GoodputModel::goodput_step / goodput_at, the same arithmetic as goodput()).
#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <cmath>
#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

// How a job without GPUs picks its GPU type (docs/policies.md, "pollux").
enum class TypeChoice { Fastest, DefaultBatch };

class PolluxPolicy final : public SchedulingPolicy {
 public:
  PolluxPolicy(double stickiness, TypeChoice choice) : stickiness_(stickiness), choice_(choice) {}
  std::string name() const override { return "pollux"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself

  Decision schedule(const PolicyView& ctx) override {
    const auto* model = dynamic_cast<const GoodputModel*>(&ctx.model());
    if (!model) throw InputError("", 0, "--policy", "pollux needs a Pollux/Sia workload (--workload): it plans with the goodput model");
    const Cluster& cluster = ctx.cluster();
    if (model != tables_model_ || &cluster != tables_cluster_) {
      tables_.clear();
      steps_.clear();
      tables_model_ = model;
      tables_cluster_ = &cluster;
    }
    const auto ntypes = cluster.gpu_types().size();
    std::vector<JobIndex> jobs(ctx.pending().begin(), ctx.pending().end());
    jobs.insert(jobs.end(), ctx.running().begin(), ctx.running().end());
    std::sort(jobs.begin(), jobs.end(), [&](JobIndex a, JobIndex b) {
      double sa = ctx.job(a).attained_gpu_s, sb = ctx.job(b).attained_gpu_s;
      return sa != sb ? sa < sb : a < b;
    });
    const std::size_t n = jobs.size();
    std::vector<int> cap(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) cap[t] = cluster.gpus_of_type(static_cast<GpuTypeId>(t));
    // One GPU type per job: where it runs, else the best type with unpromised GPUs (first GPU each).
    std::vector<GpuTypeId> type(n, -1);
    std::vector<int> replicas(n, 0);
    std::vector<const SpeedupTable*> table(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      const JobRuntime& job = ctx.job(jobs[i]);
      const PolluxApplication* a = model->app(job.spec->job_type);
      const int epoch = a->epoch_of(ctx.work_done(jobs[i]));
      const int fixed_batch =
          job.spec->job_type == "ncf" && job.spec->global_batch_size > 0 ? job.spec->global_batch_size : 0;
      GpuTypeId t = -1;
      if (job.status == JobStatus::Running && cap[static_cast<std::size_t>(job.gpu_type)] > 0) t = job.gpu_type;
      if (t < 0) t = choose_type(*model, cluster, job, *a, epoch, fixed_batch, cap);
      if (t < 0) continue;
      type[i] = t;
      --cap[static_cast<std::size_t>(t)];
      replicas[i] = 1;
      int max_r = std::min(job.spec->max_gpus, cluster.gpus_of_type(t));
      if (job.spec->job_type == "ncf") max_r = 1;  // the simulator keeps ncf on one GPU
      table[i] = &speedup_table(*model, cluster, {job.spec->job_type, t, epoch, max_r, fixed_batch});
    }
    grow(ctx, jobs, type, table, replicas, cap);
    return place(ctx, jobs, type, table, replicas);
  }

 private:
  // What a job's speedup table depends on: its application, GPU type, current epoch, largest
  // GPU count and (ncf only) fixed batch size. The table is a pure function of these, so tables
  // are kept across rounds: most jobs stay in one epoch for many rounds, and jobs of one
  // application in the same epoch share a table (the evaluations are most of this policy's time).
  struct TableKey {
    std::string app;
    GpuTypeId type = -1;
    int epoch = 0, max_replicas = 0, fixed_batch = 0;
    auto operator<=>(const TableKey&) const = default;
  };
  struct SpeedupTable {
    std::vector<double> speedup;  // [r] goodput on r GPUs / goodput on 1, at the best batch size
    std::vector<int> best_batch;  // [r] that batch size
    double one_gpu_goodput = 0.0;  // goodput on 1 GPU at its best batch size (the type choice)
  };
  // The epoch-independent part of one sampled batch size on r GPUs: its step, if it can run.
  struct Sample {
    int batch = 0;
    std::optional<GoodputModel::GoodputStep> step;
  };
  // Sampled batch sizes per GPU count ([r - 1]; empty = none in range, nor for larger counts).
  struct StepKey {
    std::string app;
    GpuTypeId type = -1;
    int fixed_batch = 0;
    auto operator<=>(const StepKey&) const = default;
  };

  // A job with no GPU type yet: among the types with unpromised GPUs and a profile, the one
  // where one GPU gives it the most goodput (ties: the lower type), at its best batch size
  // (Fastest) or at the batch the simulator would start it with (DefaultBatch); -1 if none.
  GpuTypeId choose_type(const GoodputModel& model, const Cluster& cluster, const JobRuntime& job,
                        const PolluxApplication& a, int epoch, int fixed_batch, const std::vector<int>& cap) {
    GpuTypeId t = -1;
    double best_rate = 0.0;
    for (std::size_t k = 0; k < cap.size(); ++k) {
      const std::string& kname = cluster.gpu_types()[k].name;
      if (cap[k] <= 0 || !a.profile(kname)) continue;
      const auto type = static_cast<GpuTypeId>(k);
      double g = choice_ == TypeChoice::DefaultBatch
                     ? model.goodput(a, kname, {1}, model.default_batch(*job.spec, 1), epoch)
                     : speedup_table(model, cluster, {job.spec->job_type, type, epoch, 1, fixed_batch}).one_gpu_goodput;
      if (g > best_rate) {
        best_rate = g;
        t = type;
      }
    }
    return t;
  }

  // GPU by GPU to the largest marginal speedup on the job's own type (running jobs' gains towards
  // the count they hold weighted by 1 + stickiness); each type's pool is separate.
  void grow(const PolicyView& ctx, const std::vector<JobIndex>& jobs, const std::vector<GpuTypeId>& type,
            const std::vector<const SpeedupTable*>& table, std::vector<int>& replicas, std::vector<int>& cap) const {
    const std::size_t n = jobs.size();
    auto gain = [&](std::size_t i) {
      std::size_t r = static_cast<std::size_t>(replicas[i]);
      if (type[i] < 0 || r + 1 >= table[i]->speedup.size() || cap[static_cast<std::size_t>(type[i])] < 1) return 0.0;
      double g = table[i]->speedup[r + 1] - table[i]->speedup[r];
      const JobRuntime& job = ctx.job(jobs[i]);
      if (job.status == JobStatus::Running && static_cast<int>(r) + 1 <= static_cast<int>(job.gpus.size()))
        g *= 1.0 + stickiness_;
      return g;
    };
    while (true) {
      std::size_t best = n;
      double best_gain = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        double g = gain(i);
        if (g > best_gain) {
          best_gain = g;
          best = i;
        }
      }
      if (best == n) break;
      ++replicas[best];
      --cap[static_cast<std::size_t>(type[best])];
    }
  }

  // Unchanged counts keep their GPUs (only the batch size may change, without a restart); the
  // others are placed on the fewest nodes.
  static Decision place(const PolicyView& ctx, const std::vector<JobIndex>& jobs, const std::vector<GpuTypeId>& type,
                        const std::vector<const SpeedupTable*>& table, const std::vector<int>& replicas) {
    const std::size_t n = jobs.size();
    Decision d;
    policy_detail::NodePool pool(ctx.state());
    const std::vector<char> keep = pool.keep_or_release(ctx, jobs, type, replicas, d.preempt);
    for (std::size_t i = 0; i < n; ++i) {
      if (!keep[i]) continue;
      const JobRuntime& job = ctx.job(jobs[i]);
      int b = table[i]->best_batch[static_cast<std::size_t>(replicas[i])];
      if (b > 0 && b != job.batch_size) d.allocate.push_back({jobs[i], type[i], replicas[i], job.gpus, b});
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (replicas[i] == 0 || keep[i]) continue;
      AllocationRequest r{jobs[i], type[i], replicas[i], pool.take_packed(type[i], replicas[i]),
                          table[i]->best_batch[static_cast<std::size_t>(replicas[i])]};
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }

  // The sampled batch sizes on r GPUs (a geometric grid of 50 between max(initial batch, r x
  // smallest per-GPU batch) and the largest batch, as Pollux's GoodputFunction.optimize samples
  // them) with their steps on r GPUs packed onto the fewest nodes, computed once per run.
  const std::vector<Sample>& samples(const GoodputModel& model, const Cluster& cluster, const StepKey& key, int r) {
    std::vector<std::vector<Sample>>& rows = steps_[key];
    const PolluxApplication& a = *model.app(key.app);
    const std::string& tname = cluster.gpu_types()[static_cast<std::size_t>(key.type)].name;
    const int per_node = cluster.max_gpus_per_node(key.type);
    while (static_cast<int>(rows.size()) < r) {
      const int rr = static_cast<int>(rows.size()) + 1;
      std::vector<Sample>& row = rows.emplace_back();
      double lo = std::max<double>(a.init_batch_size(), static_cast<double>(a.min_local_bsz()) * rr);
      double hi = a.max_batch_size();
      if (key.fixed_batch > 0) lo = hi = key.fixed_batch;
      if (lo > hi) continue;
      constexpr int kSamples = 50;
      row.resize(kSamples);
      for (int s = 0; s < kSamples; ++s) {
        double b = lo == hi ? lo : lo * std::pow(hi / lo, static_cast<double>(s) / (kSamples - 1));
        row[static_cast<std::size_t>(s)].batch = static_cast<int>(std::lround(b));
        row[static_cast<std::size_t>(s)].step =
            model.goodput_step(a, tname, packed_placement(rr, per_node), row[static_cast<std::size_t>(s)].batch);
      }
    }
    return rows[static_cast<std::size_t>(r - 1)];
  }

  // Goodput for 1 .. max replicas at the best batch size, packed onto the fewest nodes.
  const SpeedupTable& speedup_table(const GoodputModel& model, const Cluster& cluster, TableKey key) {
    auto [it, inserted] = tables_.try_emplace(std::move(key));
    if (!inserted) return it->second;
    const TableKey& k = it->first;
    SpeedupTable& table = it->second;
    const PolluxApplication& a = *model.app(k.app);
    const StepKey step_key{k.app, k.type, k.fixed_batch};
    table.speedup.assign(static_cast<std::size_t>(k.max_replicas) + 1, 0.0);
    table.best_batch.assign(static_cast<std::size_t>(k.max_replicas) + 1, 0);
    for (int r = 1; r <= k.max_replicas; ++r) {
      const std::vector<Sample>& row = samples(model, cluster, step_key, r);
      if (row.empty()) break;
      double best = 0.0;
      int best_b = 0;
      for (const Sample& s : row) {
        double g = s.step ? model.goodput_at(a, *s.step, k.epoch) : 0.0;
        if (g > best) {
          best = g;
          best_b = s.batch;
        }
      }
      table.speedup[static_cast<std::size_t>(r)] = best;
      table.best_batch[static_cast<std::size_t>(r)] = best_b;
    }
    double base = table.speedup[1];
    table.one_gpu_goodput = base;
    for (double& v : table.speedup) v = base > 0 ? v / base : 0.0;
    return table;
  }

  double stickiness_;
  TypeChoice choice_;
  std::map<TableKey, SpeedupTable> tables_;
  std::map<StepKey, std::vector<std::vector<Sample>>> steps_;
  const GoodputModel* tables_model_ = nullptr;  // the model and cluster the tables were made for
  const Cluster* tables_cluster_ = nullptr;
};

}  // namespace

void register_pollux(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "pollux",
      "goodput-maximising elastic allocation: GPU-by-GPU marginal speedup with the best batch size per count",
      "Pollux (Qiao et al., OSDI'21); hetsim's greedy optimiser instead of Pollux's genetic algorithm",
      {{"stickiness", "0.2", "extra weight on gains that keep a running job at its current GPU count (damps restarts)"},
       {"type_choice", "fastest",
        "GPU type of a job without GPUs: 'fastest' (most goodput on one GPU at its best batch) or 'default_batch' "
        "(at its starting batch, the rule before issue 14)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        const std::string& choice = param_string(p, "type_choice");
        if (choice != "fastest" && choice != "default_batch")
          throw InputError("", 0, "--param type_choice",
                           fmt::format("expected 'fastest' or 'default_batch', got '{}'", choice));
        return std::make_unique<PolluxPolicy>(param_double(p, "stickiness", 0.0, std::numeric_limits<double>::max()),
                                              choice == "fastest" ? TypeChoice::Fastest : TypeChoice::DefaultBatch);
      },
      {}});
}

}  // namespace hetsim
