// Placements that see the shared network: topology-aware scores candidates at the speed the
// current sharing would give them, network-aware adds the slowdown it causes to running jobs.
// Every figure is computed by hand in the comments (docs/models.md, "The shared network").
#include <catch2/catch.hpp>

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
