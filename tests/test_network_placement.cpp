// Placements that see the shared network: topology-aware scores candidates at the speed the
// current sharing would give them, network-aware adds the slowdown it causes to running jobs.
// Policies that pick exact GPUs see the same sharing through PolicyView::network(). Every figure
// is computed by hand in the comments (docs/models.md, "The shared network").
#include <catch2/catch.hpp>

#include "hetsim/run.hpp"
#include "hetsim/sched/network_shares.hpp"
#include "hetsim/sched/placement.hpp"
#include "sim_fixtures.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

// One-GPU nodes of one type: a0 (GPU 0), a1 (1) on r0; b0 (2), b1 (3) on r1; c0 (4), c1 (5) on
// r2. Uplinks 100 Gbit/s; NICs 200 Gbit/s except the c nodes' (`c_nic_gbps`).
Cluster three_racks(double c_nic_gbps) {
  auto node = [](const char* name, RackId rack, double nic) { return net_node(name, 0, 1, rack, 100, nic); };
  return Cluster("3r", {GpuType{"x", 0, 1}}, {net_rack("r0", 100.0), net_rack("r1", 100.0), net_rack("r2", 100.0)},
                 {node("a0", 0, 200), node("a1", 0, 200), node("b0", 1, 200), node("b1", 1, 200),
                  node("c0", 2, c_nic_gbps), node("c1", 2, c_nic_gbps)});
}

// A running 2-GPU ring job on a0 + b0 and the network as placements then see it. Gradients of
// 1.25 GB, compute 0.1 s, no overlap: a 2-GPU ring moves 1.25 GB each way over each link it
// crosses, so across the 12.5 GB/s uplinks a step is 0.1 + 0.1 s (rate 2 / 0.2 = 10/s).
struct Busy {
  explicit Busy(double c_nic_gbps)
      : cluster(three_racks(c_nic_gbps)), state(cluster), model(cluster, fixed_profile({{"m", {1.25e9, {0.1}}}}), config()),
        shares(*model.topology()) {
    const std::vector<GpuId> running{0, 2};
    state.assign(0, running);
    shares.add(0, *model.network_demand(iter_job("running", "m", 2, 1), running));
    shares.rebalance();
  }
  static AnalyticConfig config() {
    AnalyticConfig c;
    c.overlap = 0.0;
    return c;
  }
  std::vector<GpuId> alone(const PlacementPolicy& p) const { return p.place(state, iter_job("new", "m", 2, 1), 0, 2, model); }
  std::vector<GpuId> shared(const PlacementPolicy& p) const {
    return p.place_on_network(state, iter_job("new", "m", 2, 1), 0, 2, model, shares);
  }
  Cluster cluster;
  ClusterState state;
  AnalyticModel model;
  NetworkShares shares;
};

const std::vector<GpuId> kAcrossBusyUplinks{1, 3};  // a1 + b1: r0 and r1 uplinks, shared with the running job
const std::vector<GpuId> kInsideR2{4, 5};           // c0 + c1: only their own NICs

}  // namespace

TEST_CASE("topology-aware under the shared network avoids busy uplinks", "[network][placement]") {
  // c NICs 60 Gbit/s (7.5 GB/s): inside r2 a step is 0.1 + 1.25/7.5 = 0.2667 s, rate 7.5/s. Across
  // the busy uplinks alone: rate 10/s; shared with the running job each gets 50 Gbit/s: transfer
  // 0.2 s, step 0.3 s, rate 6.667/s.
  Busy b(60.0);
  const TopologyAwarePlacement p;
  CHECK(b.alone(p) == kAcrossBusyUplinks);
  CHECK(b.shared(p) == kInsideR2);
  const JoinEffect across = b.shares.join_effect(*b.model.network_demand(iter_job("new", "m", 2, 1), kAcrossBusyUplinks));
  CHECK(across.speed == Approx(0.5));
  CHECK(across.others_rate_loss == Approx(1.0 / 3.0));  // 10/s -> 6.667/s
  const JoinEffect inside = b.shares.join_effect(*b.model.network_demand(iter_job("new", "m", 2, 1), kInsideR2));
  CHECK(inside.speed == 1.0);
  CHECK(inside.others_rate_loss == 0.0);
}

TEST_CASE("network-aware weighs the slowdown it causes to running jobs", "[network][placement]") {
  // c NICs 40 Gbit/s (5 GB/s): inside r2 a step is 0.1 + 0.25 s, rate 5.714/s, below the 6.667/s
  // across the busy uplinks, so topology-aware still crosses them. network-aware: across costs
  // itself 1 - 6.667/10 = 1/3 and the running job 1/3 (total 0.667); inside r2 costs itself
  // 1 - 5.714/10 = 0.429 and nobody else anything: r2.
  Busy b(40.0);
  CHECK(b.shared(TopologyAwarePlacement()) == kAcrossBusyUplinks);
  CHECK(b.shared(NetworkAwarePlacement()) == kInsideR2);
  SECTION("with the network alone it places as topology-aware") {
    CHECK(b.alone(NetworkAwarePlacement()) == kAcrossBusyUplinks);
  }
  SECTION("with nothing else running it takes the fastest placement") {
    NetworkShares empty(*b.model.topology());
    ClusterState free_state(b.cluster);
    CHECK(NetworkAwarePlacement().place_on_network(free_state, iter_job("new", "m", 2, 1), 0, 2, b.model, empty) ==
          std::vector<GpuId>{0, 1});  // a0 + a1 inside r0 on 200 Gbit/s NICs: 0.1 + 0.05 s
  }
}

namespace {

// Starts every pending job on the GPUs its id names ("j01" -> GPUs 0 and 1) and records, at each
// pass, what the policy's view of the network says about the other job's GPUs.
class ExactGpusPolicy final : public SchedulingPolicy {
 public:
  std::string name() const override { return "exact-gpus"; }
  Decision schedule(const PolicyView& ctx) override {
    saw_network.push_back(ctx.network() != nullptr);
    if (ctx.network() && !ctx.running().empty()) {
      const JobSpec probe = iter_job("probe", "m", 2, 1);
      const auto demand = ctx.model().network_demand(probe, std::vector<GpuId>{1, 3});
      if (demand) probe_speed.push_back(ctx.network()->join_effect(*demand).speed);
    }
    Decision d;
    for (JobIndex j : ctx.pending()) {
      const std::string& id = ctx.job(j).spec->id;
      AllocationRequest r;
      r.job = j;
      r.gpu_type = 0;
      r.gpu_count = 2;
      r.gpus = {id[1] - '0', id[2] - '0'};
      d.allocate.push_back(r);
    }
    return d;
  }
  std::vector<bool> saw_network;
  std::vector<double> probe_speed;
};

}  // namespace

TEST_CASE("policies see the shared network through their view", "[network][policy]") {
  // Job j02 runs on a0 + b0 across the r0 and r1 uplinks from t = 0; j45 (inside r2) arrives at
  // 10 s. At that pass a job on a1 + b1 would share both uplinks with j02: speed 0.5.
  const Cluster c = three_racks(200.0);
  const AnalyticModel model(c, fixed_profile({{"m", {1.25e9, {0.1}}}}), Busy::config());
  Workload w;
  w.jobs = {iter_job("j02", "m", 2, 1000), iter_job("j45", "m", 2, 1000, 10.0)};
  w.source = w.format = "test";
  ConsolidatePlacement placement;
  for (const bool shared : {false, true}) {
    ExactGpusPolicy policy;
    MechanismConfig config;
    config.shared_network = shared;
    const RunOutput out =
        simulate(c, w, model, policy, placement, config, RunInfo{"3r", "test", "test", "exact", "consolidate", "analytic", 0, ""});
    CHECK(record(out, "j02").finish_s == Approx(100.0));  // 1000 iterations at 10/s, alone either way
    REQUIRE(!policy.saw_network.empty());
    CHECK(policy.saw_network.front() == shared);
    if (shared) {
      REQUIRE(!policy.probe_speed.empty());
      CHECK(policy.probe_speed.front() == Approx(0.5));
    } else {
      CHECK(policy.probe_speed.empty());
    }
  }
}
