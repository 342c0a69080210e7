// The shortcuts of issue 19's start-up and round work (rounds3) give what the plain paths give:
// the Gavel table parsed once, ClusterState's per-node index updates, the goodput memo.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <iterator>
#include <utility>
#include <vector>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/cluster/cluster_state.hpp"
#include "hetsim/perf/goodput_model.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "goodput_fixture.hpp"
#include "test_support.hpp"

using namespace hetsim;

TEST_CASE("read_throughput_file: the kind and the one parsed document, auto = gavel-table", "[speed][models]") {
  const Cluster c = *make_preset("gavel-108");
  test::TempDir dir("speed-paths");
  const std::string path = dir.write("table.json", R"j({"v100": {"('ResNet-18 (batch size 16)', 1)": {"null": 2.5},
                                      "('ResNet-18 (batch size 16)', 4)": {"null": 8.0}},
                             "k80": {"('ResNet-18 (batch size 16)', 1)": {"null": 0.5}}})j");
  const ThroughputFile file = read_throughput_file(path);
  CHECK(file.kind == "gavel-table");
  REQUIRE(file.root != nullptr);
  CHECK(file.root->at("v100").size() == 2);
  CHECK(throughput_file_kind(path) == "gavel-table");

  JobSpec job;
  job.job_type = "ResNet-18 (batch size 16)";
  const GpuTypeId v100 = *c.find_gpu_type("v100"), k80 = *c.find_gpu_type("k80");
  auto by_auto = make_throughput_model("auto", path, {}, c);
  auto by_name = make_throughput_model("gavel-table", path, {}, c);
  auto by_file = load_throughput_model(file, path, c);
  CHECK(by_auto->name() == "gavel-table");
  for (const ThroughputModel* m : {by_auto.get(), by_name.get(), by_file.get()}) {
    CHECK(m->rate(job, {v100, 1, true}) == 2.5);
    CHECK(m->rate(job, {v100, 4, true}) == 8.0);
    CHECK(m->rate(job, {k80, 1, true}) == 0.5);
  }
  // The parameter checks of the model the file selects still run under auto.
  CHECK_THROWS_WITH(make_throughput_model("auto", path, {{"spread", "sideways"}}, c),
                    Catch::Contains("spread") && Catch::Contains("sideways"));

  // A job-types file and a Heet profile are told apart by their top-level keys, as before.
  dir.write("table.json", R"({"job_types": {}})");
  CHECK(read_throughput_file(path).kind == "job-types");
  dir.write("table.json", R"({"epoch_time_s": {}})");
  CHECK(read_throughput_file(path).kind == "heet-profile");
  // Errors name the file and line, whichever entry point reads it.
  dir.write("table.json", "{\"v100\": {},\n \"v100\": {}}");
  CHECK_THROWS_WITH(read_throughput_file(path), Catch::Contains("table.json:2") && Catch::Contains("duplicate key"));
  CHECK_THROWS_WITH(make_throughput_model("auto", path, {}, c), Catch::Contains("table.json:2"));
  dir.write("table.json", "[1, 2]");
  CHECK_THROWS_WITH(make_throughput_model("gavel-table", path, {}, c), Catch::Contains("must be a JSON object"));
}

TEST_CASE("ClusterState: an allocation over several nodes moves each node's free count once", "[speed][cluster]") {
  const Cluster c = *make_preset("pollux-64");  // 16 nodes of 4 GPUs: GPU g on node g / 4
  ClusterState s(c);
  const GpuTypeId t = 0;
  REQUIRE(s.nodes_by_free(t).size() == 16);
  // Node 0's GPUs split by node 1's: three runs (0: two, 1: one, 0: one).
  const std::vector<GpuId> gpus{0, 1, 4, 2};
  s.assign(7, gpus);
  CHECK(s.free_on_node(0) == 1);
  CHECK(s.free_on_node(1) == 3);
  CHECK(s.free_of_type(t) == 60);
  CHECK(s.free_total() == 60);
  CHECK(s.nodes_by_free(t).begin()->first == 1);  // node 0 has the fewest free GPUs
  CHECK(s.nodes_by_free(t).begin()->second == 0);
  CHECK(s.nodes_by_free(t).count({4, 0}) == 0);
  CHECK(s.nodes_by_free(t).count({3, 1}) == 1);
  CHECK(s.nodes_with_free(t).size() == 16);
  // Filling node 0 removes it from both indexes; releasing brings it back.
  s.assign(8, std::vector<GpuId>{3});
  CHECK(s.nodes_with_free(t).count(0) == 0);
  CHECK(s.nodes_by_free(t).size() == 15);
  s.release(7, gpus);
  CHECK(s.free_on_node(0) == 3);
  CHECK(s.nodes_by_free(t).count({3, 0}) == 1);
  CHECK(s.nodes_with_free(t).count(0) == 1);
  s.release(8, std::vector<GpuId>{3});
  CHECK(s.free_total() == 64);
  CHECK(s.nodes_by_free(t).size() == 16);
  CHECK(s.nodes_by_free(t).begin()->first == 4);
  // A failed call changes nothing.
  CHECK_THROWS_AS(s.assign(9, std::vector<GpuId>{5, 5}), std::logic_error);
  CHECK(s.free_on_node(1) == 4);
}

TEST_CASE("ClusterState: node indexes first read after many changes match the free counts", "[speed][cluster]") {
  // The indexes are built at their first use (gavel6): a state changed before anyone asked must
  // answer as one kept in step from the start, and keep in step afterwards.
  const Cluster c = *make_preset("pollux-64");  // 16 nodes of 4 GPUs: GPU g on node g / 4
  ClusterState lazy(c);
  lazy.assign(1, std::vector<GpuId>{0, 1, 2, 3});  // node 0 full
  lazy.assign(2, std::vector<GpuId>{4, 5, 9});     // node 1: 2 free, node 2: 3 free
  lazy.release(2, std::vector<GpuId>{4, 5, 9});
  lazy.assign(3, std::vector<GpuId>{6, 7, 13});    // node 1: 2 free, node 3: 3 free
  const GpuTypeId t = 0;
  const ClusterState copy = lazy;  // a copy builds its own indexes
  for (const ClusterState* s : {static_cast<const ClusterState*>(&lazy), &copy}) {
    CHECK(s->nodes_with_free(t).size() == 15);
    CHECK(s->nodes_with_free(t).count(0) == 0);
    CHECK(s->nodes_by_free(t).size() == 15);
    CHECK(*s->nodes_by_free(t).begin() == std::pair<int, NodeId>{2, 1});
    CHECK(*std::next(s->nodes_by_free(t).begin()) == std::pair<int, NodeId>{3, 3});
    CHECK(s->nodes_by_free(t).count({4, 2}) == 1);
  }
  // Once built, the indexes follow every change.
  lazy.release(1, std::vector<GpuId>{0, 1, 2, 3});
  lazy.assign(4, std::vector<GpuId>{8});
  CHECK(lazy.nodes_with_free(t).count(0) == 1);
  CHECK(lazy.nodes_by_free(t).count({4, 0}) == 1);
  CHECK(lazy.nodes_by_free(t).count({3, 2}) == 1);
  CHECK(lazy.nodes_by_free(t).size() == 16);
  CHECK(copy.nodes_by_free(t).size() == 15);  // the copy is unchanged
}

TEST_CASE("goodput memo: rate_at answers goodput() at the epoch, in any order of questions", "[speed][goodput]") {
  auto fixture = test::cifar_goodput();
  if (!fixture) return;
  const Cluster& c = fixture->cluster;
  GoodputModel* model = fixture->model.get();
  const JobSpec& job = fixture->workload.jobs[0];
  const PolluxApplication& app = *model->app("cifar10");
  const std::string& type = c.gpu_types()[0].name;
  const double epoch_work = app.progress_at_epoch(1);
  REQUIRE(epoch_work > 0.0);
  // Placements measured (one node) and not (three nodes: the Delaunay interpolation), batches given
  // and default, questions alternating so that every memo entry is replaced and asked again.
  const std::vector<std::vector<GpuId>> placements{{0, 1, 2, 3}, {0, 4, 8}, {0, 1, 2, 3}, {5}, {0, 4, 8}};
  for (int round = 0; round < 2; ++round) {
    for (const auto& gpus : placements) {
      for (int batch : {0, 256, 512}) {
        for (double done : {0.0, 2.5 * epoch_work, 0.5 * epoch_work, 2.5 * epoch_work}) {
          const int b = batch > 0 ? batch : model->default_batch(job, static_cast<int>(gpus.size()));
          const int epoch = std::min(app.epoch_of(done), app.max_epochs() - 1);
          const double expected = model->goodput(app, type, placement_of(c, gpus), b, epoch);
          const double got = model->rate_at(job, c, gpus, batch, done);
          INFO("GPUs " << gpus.size() << " batch " << batch << " done " << done);
          CHECK(got == (std::isfinite(expected) && expected > 0.0 ? expected : 0.0));
        }
      }
    }
  }
  // Another job type at the same JobSpec address is answered for its own application, then the
  // first again.
  const double first = model->rate_at(job, c, placements[0], 0, 0.0);
  CHECK(first > 0.0);
  JobSpec& same = fixture->workload.jobs[0];
  same.job_type = "nosuchapp";
  CHECK(model->rate_at(same, c, placements[0], 0, 0.0) == 0.0);
  same.job_type = "cifar10";
  CHECK(model->rate_at(same, c, placements[0], 0, 0.0) == first);
}
