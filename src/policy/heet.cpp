// heet: Heet's round-based elastic scheduling for heterogeneous clusters (Mo, Xu, Xu, "Heet:
// Accelerating Elastic Training in Heterogeneous Deep Learning Clusters", ASPLOS'24), following
// the rules of its first author's prototype (github.com/mozizhao/elastic, our_scheduler.py): every
// round (120 s) a slot size from GPUs per active job, minimum-weight full matching of GPU slots and
// jobs with weight remaining x T(s)^2 / T(1), then opportunistic one-GPU trades priced
// 2(X(n)-X(n-1))/X(n) against X(1)/X(s). The decision core is src/policy/heet_plan.cpp; this file
// turns a plan into exact GPUs. Like the prototype it treats every job as elastic from 1 GPU to a
// host's size and ignores the requested count; it plans with ctx.model(), i.e. the collaborative
// filter's predictions under --profiling cf. Rules beyond the prototype: docs/policies.md.
#include <algorithm>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/policy/heet_plan.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

class HeetPolicy final : public SchedulingPolicy {
 public:
  explicit HeetPolicy(double round_s) : round_s_(round_s) {}
  std::string name() const override { return "heet"; }
  bool shares_gpus() const override { return false; }  // picks exact free GPUs itself
  std::optional<double> round_s() const override { return round_s_; }

  Decision schedule(const PolicyView& ctx) override {
    const Cluster& cluster = ctx.cluster();
    std::vector<HeetHost> hosts;
    int largest = 0;
    for (const Node& n : cluster.nodes()) {
      hosts.push_back({n.gpu_type, n.gpu_count});
      largest = std::max(largest, n.gpu_count);
    }
    std::vector<JobIndex> active(ctx.running().begin(), ctx.running().end());
    active.insert(active.end(), ctx.pending().begin(), ctx.pending().end());
    std::sort(active.begin(), active.end());
    std::vector<HeetJob> jobs;
    for (JobIndex j : active) {
      const JobRuntime& rt = ctx.job(j);
      HeetJob hj;
      hj.job = j;
      hj.remaining_work = ctx.remaining_work(j);
      hj.rate.assign(cluster.gpu_types().size(), std::vector<double>(static_cast<std::size_t>(largest) + 1, 0.0));
      for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t)
        for (int n = 1; n <= std::min(largest, cluster.max_gpus_per_node(static_cast<GpuTypeId>(t))); ++n)
          hj.rate[t][static_cast<std::size_t>(n)] = ctx.rate_on_type(*rt.spec, static_cast<GpuTypeId>(t), n);
      if (rt.status == JobStatus::Running && !rt.gpus.empty()) hj.current_host = cluster.node_of(rt.gpus.front());
      jobs.push_back(std::move(hj));
    }
    const std::vector<HeetAssignment> plan = heet_plan(hosts, jobs);

    // Exact GPUs per host: jobs staying on their host keep (a prefix of) their GPUs, so an
    // unchanged allocation is recognised by the mechanism and pays no restart.
    std::vector<std::vector<const HeetAssignment*>> by_host(hosts.size());
    for (const HeetAssignment& a : plan) by_host[static_cast<std::size_t>(a.host)].push_back(&a);
    std::vector<char> taken(static_cast<std::size_t>(cluster.total_gpus()), 0);
    std::vector<std::vector<GpuId>> gpus(plan.size());
    auto slot = [&](const HeetAssignment* a) { return static_cast<std::size_t>(a - plan.data()); };
    for (std::size_t h = 0; h < hosts.size(); ++h)
      for (const HeetAssignment* a : by_host[h]) {
        const JobRuntime& rt = ctx.job(a->job);
        if (rt.status != JobStatus::Running) continue;
        for (GpuId g : rt.gpus) {
          if (static_cast<int>(gpus[slot(a)].size()) == a->gpus) break;
          if (cluster.node_of(g) != static_cast<NodeId>(h)) continue;
          gpus[slot(a)].push_back(g);
          taken[static_cast<std::size_t>(g)] = 1;
        }
      }
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      const Node& node = cluster.nodes()[h];
      for (const HeetAssignment* a : by_host[h])
        for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count && static_cast<int>(gpus[slot(a)].size()) < a->gpus; ++g)
          if (!taken[static_cast<std::size_t>(g)]) {
            gpus[slot(a)].push_back(g);
            taken[static_cast<std::size_t>(g)] = 1;
          }
    }

    Decision d;
    std::vector<char> planned(active.empty() ? 0 : static_cast<std::size_t>(active.back()) + 1, 0);
    for (std::size_t k = 0; k < plan.size(); ++k) {
      planned[static_cast<std::size_t>(plan[k].job)] = 1;
      const GpuTypeId type = hosts[static_cast<std::size_t>(plan[k].host)].type;
      d.allocate.push_back({plan[k].job, type, plan[k].gpus, gpus[k]});
    }
    for (JobIndex j : ctx.running())
      if (!planned[static_cast<std::size_t>(j)]) d.preempt.push_back(j);
    return d;
  }

 private:
  double round_s_;
};

}  // namespace

void register_heet(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "heet",
      "Heet: round-based slot matching (weight remaining x T(s)^2/T(1)) plus one-GPU trades; every job elastic "
      "1..host size",
      "Mo, Xu, Xu, ASPLOS'24 (Heet); rules of the prototype mozizhao/elastic our_scheduler.py",
      {{"round_s", "120", "round length in seconds when the run gives no --interval"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        // As --interval: rounds under a millisecond would take billions of rounds.
        const double round = param_double(p, "round_s", 1e-3, kMaxSimSeconds);
        return std::make_unique<HeetPolicy>(round);
      },
      nullptr});
}

}  // namespace hetsim
