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
// restarts every running job every round, as the prototype's control plane does.
#include <algorithm>
#include <fmt/format.h>
#include <iterator>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/policy/heet_plan.hpp"
#include "hetsim/util/error.hpp"
#include "heet_wide.hpp"

namespace hetsim {
namespace {

class HeetPolicy final : public SchedulingPolicy {
 public:
  HeetPolicy(double round_s, double restart_s, bool every_round, bool round_skip)
      : round_s_(round_s), restart_s_(restart_s), every_round_(every_round), round_skip_(round_skip) {}
  std::string name() const override { return "heet"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself
  std::optional<double> round_s() const override { return round_s_; }
  std::optional<double> restart_overhead_s() const override { return restart_s_; }

  Decision schedule(const PolicyView& ctx) override {
    // A steady round: the last pass's plan changed nothing (the mechanism reports every start,
    // stop, resize, arrival and completion in changed(), and every job it planned runs), so only
    // running jobs progressed since, and heet_plan proved its plan comes back; an empty decision
    // keeps every allocation, as that plan would (issue 19: rounds that cost what changes).
    if (steady_ && ctx.changed().empty() && ctx.running().size() == steady_allocations_) return {};
    steady_ = false;
    const Cluster& cluster = ctx.cluster();
    std::vector<JobIndex> active;
    active.reserve(ctx.running().size() + ctx.pending().size());
    std::merge(ctx.running().begin(), ctx.running().end(), ctx.pending().begin(), ctx.pending().end(),
               std::back_inserter(active));

    int largest = 0;
    for (const Node& n : cluster.nodes()) largest = std::max(largest, n.gpu_count);
    // Every active job's rate table first: the wide placer reads them instead of asking the model
    // again each round (the same values: heet_job asks ctx.rate_on_type for each type and count).
    for (JobIndex j : active) fill_rates(ctx, j, largest);
    const auto table = [this](JobIndex j) -> const HeetRateTable& { return rates_[static_cast<std::size_t>(j)]; };

    // Wide jobs first: they take whole hosts, the rest of the cluster is planned as the prototype does.
    std::vector<char> taken(static_cast<std::size_t>(cluster.total_gpus()), 0);
    std::vector<JobIndex> narrow;
    bool wide_steady = false;
    const std::vector<WidePlacement> wide = wide_.place(ctx, active, table, taken, narrow, &wide_steady);

    std::vector<HeetHost> hosts;
    for (const Node& n : cluster.nodes()) {
      int free = 0;
      for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free += taken[static_cast<std::size_t>(g)] ? 0 : 1;
      hosts.push_back({n.gpu_type, free});
    }
    std::vector<HeetJob> jobs;
    jobs.reserve(narrow.size());
    for (JobIndex j : narrow) jobs.push_back(heet_job(ctx, j));
    bool plan_steady = false;
    const std::vector<HeetAssignment> plan = heet_plan(hosts, jobs, nullptr, &plan_steady);
    for (HeetJob& hj : jobs) rates_[static_cast<std::size_t>(hj.job)] = std::move(hj.rate);  // kept for next round
    const std::vector<std::vector<GpuId>> gpus = exact_gpus(ctx, plan, taken);

    Decision d;
    std::vector<char> planned(active.empty() ? 0 : static_cast<std::size_t>(active.back()) + 1, 0);
    for (const WidePlacement& w : wide) {
      planned[static_cast<std::size_t>(w.job)] = 1;
      d.allocate.push_back({w.job, w.type, static_cast<int>(w.gpus.size()), w.gpus});
    }
    for (std::size_t k = 0; k < plan.size(); ++k) {
      planned[static_cast<std::size_t>(plan[k].job)] = 1;
      const GpuTypeId type = cluster.nodes()[static_cast<std::size_t>(plan[k].host)].gpu_type;
      d.allocate.push_back({plan[k].job, type, plan[k].gpus, gpus[k]});
    }
    // every-round: the prototype stops every job at the end of a round and starts the next round's
    // plan afresh, so a job that keeps its GPUs restarts too (and pays restart_s).
    for (JobIndex j : ctx.running())
      if (every_round_ || !planned[static_cast<std::size_t>(j)]) d.preempt.push_back(j);
    steady_ = round_skip_ && plan_steady && wide_steady && !every_round_;
    steady_allocations_ = d.allocate.size();
    return d;
  }

 private:
  // A job's rates on 1..host size GPUs of one host of each type. The model's rate depends on the
  // job, type and count only, so a job's table is computed once and kept (rates_, by job index),
  // lent to the planner each round.
  void fill_rates(const PolicyView& ctx, JobIndex j, int largest) {
    const Cluster& cluster = ctx.cluster();
    if (rates_.size() <= static_cast<std::size_t>(j)) rates_.resize(static_cast<std::size_t>(j) + 1);
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
  bool steady_ = false;                  // the last full pass's plan provably comes back (heet_plan)
  std::size_t steady_allocations_ = 0;   // jobs that pass allocated: all run iff nothing was refused
  HeetWidePlacer wide_;
  std::vector<HeetRateTable> rates_;  // [job][type][n], empty = not computed or lent
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
                              "keeps every allocation without planning (same decisions); 'false' = plan every round"}},
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
        return std::make_unique<HeetPolicy>(round, restart_s, mode == "every-round", skip == "true");
      },
      nullptr});
}

}  // namespace hetsim
