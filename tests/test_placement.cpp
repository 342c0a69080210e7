// Placement policies on a 2-rack toy cluster, the mechanism's placement check, fragmentation,
// and a run whose JCT depends on placement through the analytic model.
#include <catch2/catch.hpp>

#include <set>

#include "hetsim/sched/placement.hpp"
#include "sim_fixtures.hpp"
#include "topology_fixtures.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

// r0: a (GPUs 0-3), b (4-7); r1: c (8-11), d (12-13). All one type; NICs 100 Gbit/s unless given.
Cluster toy(double r0_nic_gbps = 100.0, double r1_nic_gbps = 100.0) {
  return Cluster("toy", {GpuType{"gpu", 0.0, 1.0}}, {net_rack("r0"), net_rack("r1")},
                 {net_node("a", 0, 4, 0, 100, r0_nic_gbps), net_node("b", 0, 4, 0, 100, r0_nic_gbps),
                  net_node("c", 0, 4, 1, 100, r1_nic_gbps), net_node("d", 0, 2, 1, 100, r1_nic_gbps)});
}

std::vector<GpuId> place(const PlacementPolicy& p, const ClusterState& s, int count, const ThroughputModel& m,
                         const std::string& id = "j") {
  JobSpec job = iter_job(id, "m", count, 1);
  auto out = p.place(s, job, 0, count, m);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<GpuId> range(GpuId from, GpuId to) {
  std::vector<GpuId> v;
  for (GpuId g = from; g <= to; ++g) v.push_back(g);
  return v;
}

std::unique_ptr<AnalyticModel> analytic(const Cluster& c, double overlap = 0.0) {
  AnalyticConfig cfg;
  cfg.overlap = overlap;
  return std::make_unique<AnalyticModel>(
      c, fixed_profile({{"m", {1e9, {0.1}}}}), cfg);
}

}  // namespace

TEST_CASE("consolidate: fewest nodes, then fewest racks, best fit", "[placement]") {
  const Cluster c = toy();
  ClusterState s(c);
  const auto model = analytic(c);
  const ConsolidatePlacement p;
  SECTION("fits one node: the first node that fits") { CHECK(place(p, s, 3, *model) == range(0, 2)); }
  SECTION("best fit: the fullest node that still holds the job") {
    s.assign(99, std::vector<GpuId>{0});  // a has 3 free, d 2, b and c 4
    CHECK(place(p, s, 3, *model) == range(1, 3));
    CHECK(place(p, s, 2, *model) == range(12, 13));
  }
  SECTION("two nodes of one rack, the rack best fit") {
    // r0 holds 6 on a+b (2 left over), r1 on c+d (0 left over): r1.
    CHECK(place(p, s, 6, *model) == range(8, 13));
  }
  SECTION("no rack holds it: three nodes") {
    const auto out = place(p, s, 10, *model);
    CHECK(out.size() == 10);
    std::set<NodeId> nodes;
    for (GpuId g : out) nodes.insert(c.node_of(g));
    CHECK(nodes.size() == 3);
  }
  SECTION("not enough free GPUs") { CHECK(place(p, s, 15, *model).empty()); }
}

TEST_CASE("spread: one GPU per node, alternating racks", "[placement]") {
  const Cluster c = toy();
  ClusterState s(c);
  const auto model = analytic(c);
  const SpreadPlacement p;
  CHECK(place(p, s, 4, *model) == std::vector<GpuId>{0, 4, 8, 12});
  CHECK(place(p, s, 2, *model) == std::vector<GpuId>{0, 8});  // a, then c: two racks
  CHECK(place(p, s, 6, *model) == std::vector<GpuId>{0, 1, 4, 8, 9, 12});
  CHECK(place(p, s, 14, *model) == range(0, 13));
}

TEST_CASE("topology-aware: the placement with the best predicted step", "[placement]") {
  SECTION("equal networks: it keeps consolidate's answer on one node") {
    const Cluster c = toy();
    ClusterState s(c);
    const auto model = analytic(c);
    CHECK(place(TopologyAwarePlacement(), s, 4, *model) == range(0, 3));
  }
  SECTION("slow NICs on r1: it leaves the best-fit rack for the faster one") {
    // 6 GPUs: consolidate picks r1 (c + d, best fit); with r1's NICs at 10 Gbit/s the model
    // predicts r0 (a + b, 100 Gbit/s) to be faster.
    const Cluster c = toy(100.0, 10.0);
    ClusterState s(c);
    const auto model = analytic(c);
    const auto consolidated = place(ConsolidatePlacement(), s, 6, *model);
    const auto aware = place(TopologyAwarePlacement(), s, 6, *model);
    CHECK(consolidated == range(8, 13));
    REQUIRE(aware.size() == 6);
    for (GpuId g : aware) CHECK(c.nodes()[static_cast<std::size_t>(c.node_of(g))].rack == 0);
    const JobSpec job = iter_job("j", "m", 6, 1);
    CHECK(model->rate_on(job, c, aware) > model->rate_on(job, c, consolidated));
  }
}

TEST_CASE("random: seeded, distinct free GPUs, reproducible", "[placement]") {
  const Cluster c = toy();
  ClusterState s(c);
  s.assign(7, std::vector<GpuId>{0, 1});
  const auto model = analytic(c);
  const RandomPlacement p(42);
  const auto first = place(p, s, 5, *model);
  REQUIRE(first.size() == 5);
  CHECK(std::set<GpuId>(first.begin(), first.end()).size() == 5);
  for (GpuId g : first) CHECK(s.owner(g) == ClusterState::kFree);
  CHECK(place(p, s, 5, *model) == first);
  std::set<std::vector<GpuId>> seen;
  for (std::uint64_t seed = 0; seed < 8; ++seed) seen.insert(place(RandomPlacement(seed), s, 5, *model));
  CHECK(seen.size() > 1);
}

TEST_CASE("placement names", "[placement]") {
  for (const std::string& name : placement_names()) {
    auto p = make_placement(name, 1);
    REQUIRE(p);
    CHECK(p->name() == name);
  }
  CHECK_FALSE(make_placement("best"));
}

namespace {
// A broken placement policy: hands out GPU 0 twice.
class TwiceGpu0 final : public PlacementPolicy {
 public:
  std::string name() const override { return "twice"; }
  std::vector<GpuId> place(const ClusterState&, const JobSpec&, GpuTypeId, int count,
                           const ThroughputModel&) const override {
    return std::vector<GpuId>(static_cast<std::size_t>(count), 0);
  }
};

RunOutput run_with(const Cluster& c, std::vector<JobSpec> jobs, const ThroughputModel& model,
                   const PlacementPolicy& placement) {
  Workload w;
  w.jobs = std::move(jobs);
  w.source = "test";
  w.format = "test";
  PolicyRegistry registry = make_default_registry();
  auto fifo = registry.make("fifo", {}, 0);
  return simulate(c, w, model, *fifo, placement, MechanismConfig{},
                  RunInfo{c.name(), "test", "test", "fifo", placement.name(), model.name(), 0, ""});
}
}  // namespace

TEST_CASE("mechanism: a placement that uses a GPU twice is caught", "[placement][mechanism]") {
  const Cluster c = homogeneous_cluster(1, 4);
  DurationModel model(c);
  CHECK_THROWS_AS(run_with(c, {duration_job("a", 0, 2, 10)}, model, TwiceGpu0()), std::logic_error);
}

TEST_CASE("fragmentation: free GPUs stranded on partly used nodes", "[placement][metrics]") {
  // 2 nodes x 4; one 2-GPU job for 10 s: node 0 keeps 2 stranded free GPUs, node 1 is wholly free.
  const Cluster c = homogeneous_cluster(2, 4);
  DurationModel model(c);
  const RunOutput out = run_with(c, {duration_job("a", 0, 2, 10)}, model, ConsolidatePlacement());
  CHECK(out.summary.stranded_free_gpus_mean == Approx(2.0));
  // Free GPU-time 8 x 10 - 2 x 10 = 60, of which 20 stranded.
  CHECK(out.summary.fragmentation == Approx(1.0 / 3.0));
  // Spread puts one GPU on each node: 6 stranded GPUs, all of the free time.
  const RunOutput spread = run_with(c, {duration_job("a", 0, 2, 10)}, model, SpreadPlacement());
  CHECK(spread.summary.stranded_free_gpus_mean == Approx(6.0));
  CHECK(spread.summary.fragmentation == Approx(1.0));
}

TEST_CASE("placement changes JCT through the analytic model", "[placement][analytic]") {
  // 2 nodes x 2 GPUs, GPU links 100 GB/s, NICs 100 Gbit/s; job: 2 GPUs, 100 iterations, 1 GB
  // gradient, 0.1 s compute, no overlap. Consolidated: step 0.11 s, 50 steps -> 5.5 s. Spread over
  // two nodes: step 0.1 + 2 x 0.5 GB / 12.5 GB/s = 0.18 s -> 9 s.
  const Cluster c = flat_cluster(2, 2, 100.0, 100.0);
  const auto model = analytic(c);
  const RunOutput packed = run_with(c, {iter_job("j", "m", 2, 100)}, *model, ConsolidatePlacement());
  const RunOutput spread = run_with(c, {iter_job("j", "m", 2, 100)}, *model, SpreadPlacement());
  CHECK(record(packed, "j").jct_s() == Approx(5.5));
  CHECK(record(spread, "j").jct_s() == Approx(9.0));
}

TEST_CASE("yarn placement: first node with room, larger jobs on idle nodes, node order when the rule finds nothing",
          "[placement][tiresias-sim]") {
  // toy(): a (GPUs 0-3), b (4-7), c (8-11), d (12-13); G = 4.
  const Cluster c = toy();
  ClusterState s(c);
  auto model = analytic(c);
  const YarnPlacement p;
  s.assign(99, std::vector<GpuId>{0, 1, 4});  // a: 2 free, b: 3, c: 4, d: 2
  CHECK(place(p, s, 2, *model) == range(2, 3));  // a, the first node with 2 free (not d, also 2)
  CHECK(place(p, s, 3, *model) == range(5, 7));  // b
  CHECK(place(p, s, 4, *model) == range(8, 11));  // c, the only idle node
  // 6 = one idle node (c) + 2 on the first other node with 2 free (a).
  CHECK(place(p, s, 6, *model) == std::vector<GpuId>{2, 3, 8, 9, 10, 11});
  // 8 needs two idle nodes; only c is: the rule finds nothing, so the GPUs go in node order.
  CHECK(place(p, s, 8, *model) == std::vector<GpuId>{2, 3, 5, 6, 7, 8, 9, 10});
  CHECK(place(p, s, 12, *model).empty());  // 11 free
}
