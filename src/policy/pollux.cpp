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
//    are placed on the fewest nodes (best fit). A job uses one GPU type: the one it runs on, else
//    the type (with unpromised GPUs) where one GPU gives it the most goodput.
#include <algorithm>
#include <limits>
#include <cmath>
#include <compare>
#include <map>
#include <string>
#include <vector>

#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "node_pool.hpp"

namespace hetsim {
namespace {

class PolluxPolicy final : public SchedulingPolicy {
 public:
  explicit PolluxPolicy(double stickiness) : stickiness_(stickiness) {}
  std::string name() const override { return "pollux"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself

  Decision schedule(const PolicyView& ctx) override {
    const auto* model = dynamic_cast<const GoodputModel*>(&ctx.model());
    if (!model) throw InputError("", 0, "--policy", "pollux needs a Pollux/Sia workload (--workload): it plans with the goodput model");
    const Cluster& cluster = ctx.cluster();
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
    // One GPU type per job: where it runs, else the type with the most unpromised GPUs it can use.
    std::vector<GpuTypeId> type(n, -1);
    std::vector<int> replicas(n, 0);
    std::vector<std::vector<double>> speedup(n);
    std::vector<std::vector<int>> best_batch(n);
    for (std::size_t i = 0; i < n; ++i) {
      const JobRuntime& job = ctx.job(jobs[i]);
      const PolluxApplication* a = model->app(job.spec->job_type);
      GpuTypeId t = -1;
      if (job.status == JobStatus::Running && cap[static_cast<std::size_t>(job.gpu_type)] > 0) t = job.gpu_type;
      int epoch = a->epoch_of(ctx.work_done(jobs[i]));
      if (t < 0) {
        // A new or resumed job goes to the type where one GPU trains it fastest, among types with room.
        double best_rate = 0.0;
        for (std::size_t k = 0; k < ntypes; ++k) {
          const std::string& kname = cluster.gpu_types()[k].name;
          if (cap[k] <= 0 || !a->profile(kname)) continue;
          double g = model->goodput(*a, kname, {1}, model->default_batch(*job.spec, 1), epoch);
          if (g > best_rate) {
            best_rate = g;
            t = static_cast<GpuTypeId>(k);
          }
        }
      }
      if (t < 0) continue;
      type[i] = t;
      --cap[static_cast<std::size_t>(t)];
      replicas[i] = 1;
      int max_r = std::min(job.spec->max_gpus, cluster.gpus_of_type(t));
      if (job.spec->job_type == "ncf") max_r = 1;  // the simulator keeps ncf on one GPU
      const int fixed_batch =
          job.spec->job_type == "ncf" && job.spec->global_batch_size > 0 ? job.spec->global_batch_size : 0;
      const SpeedupTable& table = speedup_table(*model, cluster, {job.spec->job_type, t, epoch, max_r, fixed_batch});
      speedup[i] = table.speedup;
      best_batch[i] = table.best_batch;
    }
    auto gain = [&](std::size_t i) {
      std::size_t r = static_cast<std::size_t>(replicas[i]);
      if (type[i] < 0 || r + 1 >= speedup[i].size() || cap[static_cast<std::size_t>(type[i])] < 1) return 0.0;
      double g = speedup[i][r + 1] - speedup[i][r];
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
    Decision d;
    policy_detail::NodePool pool(ctx.state());
    const std::vector<char> keep = pool.keep_or_release(ctx, jobs, type, replicas, d.preempt);
    for (std::size_t i = 0; i < n; ++i) {
      if (!keep[i]) continue;
      // Same GPUs; only the batch size may change (no restart).
      const JobRuntime& job = ctx.job(jobs[i]);
      int b = best_batch[i][static_cast<std::size_t>(replicas[i])];
      if (b > 0 && b != job.batch_size) d.allocate.push_back({jobs[i], type[i], replicas[i], job.gpus, b});
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (replicas[i] == 0 || keep[i]) continue;
      AllocationRequest r{jobs[i], type[i], replicas[i], pool.take_packed(type[i], replicas[i]),
                          best_batch[i][static_cast<std::size_t>(replicas[i])]};
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
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
  };

  // Goodput for 1 .. max replicas at the best batch size, packed onto the fewest nodes.
  const SpeedupTable& speedup_table(const GoodputModel& model, const Cluster& cluster, TableKey key) {
    if (&model != tables_model_ || &cluster != tables_cluster_) {
      tables_.clear();
      tables_model_ = &model;
      tables_cluster_ = &cluster;
    }
    auto [it, inserted] = tables_.try_emplace(std::move(key));
    if (!inserted) return it->second;
    const TableKey& k = it->first;
    SpeedupTable& table = it->second;
    const PolluxApplication& a = *model.app(k.app);
    const std::string& tname = cluster.gpu_types()[static_cast<std::size_t>(k.type)].name;
    const int per_node = cluster.max_gpus_per_node(k.type);
    table.speedup.assign(static_cast<std::size_t>(k.max_replicas) + 1, 0.0);
    table.best_batch.assign(static_cast<std::size_t>(k.max_replicas) + 1, 0);
    for (int r = 1; r <= k.max_replicas; ++r) {
      double lo = std::max<double>(a.init_batch_size(), static_cast<double>(a.min_local_bsz()) * r);
      double hi = a.max_batch_size();
      if (k.fixed_batch > 0) lo = hi = k.fixed_batch;
      if (lo > hi) break;
      double best = 0.0;
      int best_b = 0;
      constexpr int kSamples = 50;
      for (int s = 0; s < kSamples; ++s) {
        double b = lo == hi ? lo : lo * std::pow(hi / lo, static_cast<double>(s) / (kSamples - 1));
        int bi = static_cast<int>(std::lround(b));
        double g = model.goodput(a, tname, packed_placement(r, per_node), bi, k.epoch);
        if (g > best) {
          best = g;
          best_b = bi;
        }
      }
      table.speedup[static_cast<std::size_t>(r)] = best;
      table.best_batch[static_cast<std::size_t>(r)] = best_b;
    }
    double base = table.speedup[1];
    for (double& v : table.speedup) v = base > 0 ? v / base : 0.0;
    return table;
  }

  double stickiness_;
  std::map<TableKey, SpeedupTable> tables_;
  const GoodputModel* tables_model_ = nullptr;  // the model and cluster the tables were made for
  const Cluster* tables_cluster_ = nullptr;
};

}  // namespace

void register_pollux(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "pollux",
      "goodput-maximising elastic allocation: GPU-by-GPU marginal speedup with the best batch size per count",
      "Pollux (Qiao et al., OSDI'21); hetsim's greedy optimiser instead of Pollux's genetic algorithm",
      {{"stickiness", "0.2", "extra weight on gains that keep a running job at its current GPU count (damps restarts)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        return std::make_unique<PolluxPolicy>(param_double(p, "stickiness", 0.0, std::numeric_limits<double>::max()));
      },
      {}});
}

}  // namespace hetsim
