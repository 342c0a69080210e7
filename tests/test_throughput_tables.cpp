// Throughput models: golden values are read from the real Gavel and Heet files (looked up with
// python3 in the JSON) so a parsing or lookup slip shows up as a wrong number.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

// 4-GPU nodes of each given type, one rack; speeds as given (only the duration model reads them).
Cluster make_cluster(const std::vector<std::pair<std::string, double>>& types, int nodes_per_type = 2) {
  std::vector<GpuType> gpu_types;
  std::vector<Node> nodes;
  for (std::size_t t = 0; t < types.size(); ++t) {
    gpu_types.push_back(GpuType{types[t].first, 16.0, types[t].second});
    for (int i = 0; i < nodes_per_type; ++i)
      nodes.push_back(Node{types[t].first + "-" + std::to_string(i), static_cast<GpuTypeId>(t), 4, 0, 0});
  }
  return Cluster("test", gpu_types, {Rack{"rack0"}}, nodes);
}

Cluster gavel_types() { return make_cluster({{"v100", 1.0}, {"p100", 0.6}, {"k80", 0.25}}); }
Cluster heet_types() { return make_cluster({{"a10", 1.0}, {"v100", 1.0}, {"t4", 1.0}}, 1); }

JobSpec job(const std::string& id, const std::string& type, int gpus, WorkUnit unit, int batch = 0) {
  JobSpec j;
  j.id = id;
  j.job_type = type;
  j.requested_gpus = j.min_gpus = j.max_gpus = gpus;
  j.work = 100.0;
  j.unit = unit;
  j.global_batch_size = batch;
  return j;
}

AllocationShape shape(GpuTypeId type, int gpus, bool consolidated = true) { return AllocationShape{type, gpus, consolidated}; }

// A file in the temp folder, removed at the end of the test.
struct TempFile {
  std::filesystem::path path;
  TempFile(const std::string& name, const std::string& text)
      : path(std::filesystem::temp_directory_path() / ("hetsim_test_tables_" + name)) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
  std::string str() const { return path.string(); }
};

}  // namespace

TEST_CASE("Gavel table: isolated throughputs of the real table", "[perf][gavel]") {
  auto path = test::shared_data("gavel/simulation_throughputs.json");
  if (!path) return;
  const Cluster cluster = gavel_types();
  auto table = GavelThroughputTable::load(*path, cluster);
  CHECK(table->name() == "gavel-table");
  const auto resnet18 = job("a", "ResNet-18 (batch size 16)", 1, WorkUnit::Iterations);

  SECTION("one GPU, per type") {
    CHECK(table->rate(resnet18, shape(0, 1)) == 32.353384328946916);
    CHECK(table->rate(resnet18, shape(1, 1)) == 35.869203207990005);  // the P100 beats the V100 here
    CHECK(table->rate(resnet18, shape(2, 1)) == 4.795294551566172);
  }
  SECTION("job types with parentheses, and without a batch size") {
    CHECK(table->rate(job("b", "Recommendation (batch size 8192)", 1, WorkUnit::Iterations), shape(1, 1)) ==
          5.548440840558535);
    CHECK(table->rate(job("c", "A3C", 1, WorkUnit::Iterations), shape(0, 1)) == 7.175767179667988);
  }
  SECTION("spread allocations use the unconsolidated table") {
    CHECK(table->rate(resnet18, shape(0, 2, true)) == 100.14206200421837);
    CHECK(table->rate(resnet18, shape(0, 2, false)) == 35.33651986363828);
    const auto transformer = job("d", "Transformer (batch size 64)", 4, WorkUnit::Iterations);
    CHECK(table->rate(transformer, shape(1, 4, true)) == 13.313004543426457);
    CHECK(table->rate(transformer, shape(1, 4, false)) == 9.006861907718129);
  }
  SECTION("spread=consolidated (Gavel's simulator) ignores the unconsolidated table") {
    auto packed = GavelThroughputTable::load(*path, cluster, false);
    CHECK(packed->rate(resnet18, shape(0, 2, false)) == 100.14206200421837);
    CHECK(packed->rate(resnet18, shape(0, 2, true)) == 100.14206200421837);
    const ModelParams p{{"spread", "consolidated"}};
    CHECK(make_throughput_model("auto", *path, p, cluster)->rate(resnet18, shape(0, 2, false)) == 100.14206200421837);
    CHECK(make_throughput_model("gavel-table", *path, {{"spread", "unconsolidated"}}, cluster)
              ->rate(resnet18, shape(0, 2, false)) == 35.33651986363828);
    CHECK_THROWS_WITH(make_throughput_model("auto", *path, {{"spread", "packed"}}, cluster),
                      Catch::Contains("--model-param spread") && Catch::Contains("neither unconsolidated nor consolidated"));
    CHECK_THROWS_WITH(make_throughput_model("gavel-table", *path, {{"comm", "ring"}}, cluster),
                      Catch::Contains("--model-param comm") &&
                          Catch::Contains("model 'gavel-table' has no parameter 'comm' (it has: spread)"));
    CHECK_THROWS_WITH(make_throughput_model("duration", "", p, cluster), Catch::Contains("takes no parameters"));
  }
  SECTION("no unconsolidated entry falls back to the consolidated one") {
    // k80_unconsolidated lacks ResNet-50 (batch size 64) at scale factors 2, 4 and 8.
    const auto resnet50 = job("e", "ResNet-50 (batch size 64)", 2, WorkUnit::Iterations);
    CHECK(table->rate(resnet50, shape(2, 2, false)) == 1.2636370655757299);
  }
  SECTION("a scale factor absent from the table is extrapolated from the largest smaller one") {
    // A3C is measured on 1 GPU only: 2 GPUs = 2 x the 1-GPU rate.
    CHECK(table->rate(job("f", "A3C", 2, WorkUnit::Iterations), shape(0, 2)) == Approx(2 * 7.175767179667988));
    // ResNet-18 on 3 V100s: from the 2-GPU value, times 3/2.
    CHECK(table->rate(resnet18, shape(0, 3)) == Approx(100.14206200421837 * 3 / 2));
    // 16 spread GPUs: from the unconsolidated 8-GPU value, times 2.
    const auto transformer = job("d", "Transformer (batch size 64)", 16, WorkUnit::Iterations);
    CHECK(table->rate(transformer, shape(1, 16, false)) ==
          Approx(2 * table->rate(job("d8", "Transformer (batch size 64)", 8, WorkUnit::Iterations), shape(1, 8, false))));
  }
  SECTION("job type absent, or no GPUs, gives 0") {
    CHECK(table->rate(job("h", "Nope", 1, WorkUnit::Iterations), shape(0, 1)) == 0.0);
    CHECK(table->rate(resnet18, shape(0, 0)) == 0.0);
  }
  SECTION("a listed zero means cannot run") {
    CHECK(table->rate(job("i", "ResNet-50 (batch size 128)", 2, WorkUnit::Iterations), shape(2, 2)) == 0.0);
    CHECK(table->rate(job("i", "ResNet-50 (batch size 128)", 1, WorkUnit::Iterations), shape(2, 1)) ==
          0.3472236920519382);
  }
}

TEST_CASE("Gavel table: check_job reasons", "[perf][gavel]") {
  auto path = test::shared_data("gavel/simulation_throughputs.json");
  if (!path) return;
  const Cluster cluster = gavel_types();
  auto table = GavelThroughputTable::load(*path, cluster);

  CHECK_FALSE(table->check_job(job("ok", "ResNet-50 (batch size 128)", 8, WorkUnit::Iterations), cluster));

  auto unknown = table->check_job(job("gavel-4", "Foo (batch size 3)", 2, WorkUnit::Iterations), cluster);
  REQUIRE(unknown);
  CHECK(*unknown == "job gavel-4: job type 'Foo (batch size 3)' with scale factor 2 is not in throughput table " + *path);

  // Not measured at 4 GPUs, but extrapolated from 1 GPU: admitted.
  CHECK_FALSE(table->check_job(job("gavel-5", "A3C", 4, WorkUnit::Iterations), cluster));

  auto wrong_unit = table->check_job(job("gavel-6", "A3C", 1, WorkUnit::ReferenceSeconds), cluster);
  REQUIRE(wrong_unit);
  CHECK_THAT(*wrong_unit, Catch::StartsWith("job gavel-6: gavel-table needs work in iterations") &&
                              Catch::Contains("reference_seconds"));

  SECTION("zero on every type of the cluster is rejected") {
    const Cluster k80_only = make_cluster({{"k80", 1.0}});
    auto k80_table = GavelThroughputTable::load(*path, k80_only);
    auto zero = k80_table->check_job(job("gavel-7", "ResNet-50 (batch size 128)", 2, WorkUnit::Iterations), k80_only);
    REQUIRE(zero);
    CHECK_THAT(*zero, Catch::Contains("zero throughput"));
    CHECK_FALSE(k80_table->check_job(job("gavel-8", "ResNet-50 (batch size 128)", 1, WorkUnit::Iterations), k80_only));
  }
}

TEST_CASE("Gavel table: cluster types are bound by name", "[perf][gavel]") {
  auto path = test::shared_data("gavel/simulation_throughputs.json");
  if (!path) return;
  // t4 is not in the table; p100 and k80 of the table are not in the cluster.
  const Cluster cluster = make_cluster({{"t4", 1.0}, {"V100", 1.0}});
  auto table = GavelThroughputTable::load(*path, cluster);
  const auto resnet18 = job("a", "ResNet-18 (batch size 16)", 1, WorkUnit::Iterations);
  CHECK(table->rate(resnet18, shape(0, 1)) == 0.0);
  CHECK(table->rate(resnet18, shape(1, 1)) == 32.353384328946916);
  CHECK(table->rate(resnet18, shape(7, 1)) == 0.0);  // no such type id

  const Cluster t4_only = make_cluster({{"t4", 1.0}});
  auto none = GavelThroughputTable::load(*path, t4_only);
  CHECK(none->check_job(resnet18, t4_only));
}

TEST_CASE("Gavel table: malformed files name the entry", "[perf][gavel]") {
  const Cluster cluster = gavel_types();
  SECTION("upper-case GPU key binds to the lower-case type") {
    TempFile f("upper.json", R"json({"V100": {"('X (batch size 2)', 1)": {"null": 2.5, "('Y', 1)": [1, 2]}}})json");
    auto table = GavelThroughputTable::load(f.str(), cluster);
    CHECK(table->rate(job("a", "X (batch size 2)", 1, WorkUnit::Iterations), shape(0, 1)) == 2.5);
  }
  SECTION("non-numeric null") {
    TempFile f("nonnum.json", R"json({"v100": {"('X', 1)": {"null": "fast"}}})json");
    CHECK_THROWS_AS(GavelThroughputTable::load(f.str(), cluster), InputError);
    CHECK_THROWS_WITH(GavelThroughputTable::load(f.str(), cluster),
                      Catch::Contains("v100/('X', 1)") && Catch::Contains("\"null\" must be a number"));
  }
  SECTION("missing null") {
    TempFile f("nonull.json", R"json({"k80_unconsolidated": {"('X', 2)": {}}})json");
    CHECK_THROWS_WITH(GavelThroughputTable::load(f.str(), cluster), Catch::Contains("k80_unconsolidated/('X', 2)"));
  }
  SECTION("key that is not a (job type, scale factor) pair") {
    TempFile f("badkey.json", R"json({"v100": {"ResNet-18, 1": {"null": 1.0}}})json");
    CHECK_THROWS_WITH(GavelThroughputTable::load(f.str(), cluster), Catch::Contains("v100/ResNet-18, 1"));
    TempFile g("badsf.json", R"json({"v100": {"('X', two)": {"null": 1.0}}})json");
    CHECK_THROWS_WITH(GavelThroughputTable::load(g.str(), cluster), Catch::Contains("v100/('X', two)"));
  }
  SECTION("invalid JSON reports the line") {
    TempFile f("syntax.json", "{\n  \"v100\": {\n    \"('X', 1)\": {\"null\": ,}\n  }\n}\n");
    try {
      GavelThroughputTable::load(f.str(), cluster);
      FAIL("expected InputError");
    } catch (const InputError& e) {
      CHECK(e.file() == f.str());
      CHECK(e.line() == 3);
    }
  }
}

TEST_CASE("Heet profile: epoch rates from the real profile", "[perf][heet]") {
  auto path = test::shared_data("heet-prototype/profiles.json");
  if (!path) return;
  const Cluster cluster = heet_types();  // a10, v100, t4
  auto table = HeetProfileTable::load(*path, cluster);
  CHECK(table->name() == "heet-profile");
  const auto vgg = job("v", "vgg19", 1, WorkUnit::Epochs, 64);

  CHECK(table->rate(vgg, shape(2, 1)) == 1.0 / 63.6);
  // More GPUs make vgg19 at batch 64 slower on one T4 host (149 s per epoch on 2 GPUs).
  CHECK(table->rate(vgg, shape(2, 2)) == 1.0 / 149.0);
  CHECK(table->rate(vgg, shape(2, 2, false)) == 1.0 / 149.0);  // spread: single-host rate
  CHECK(table->rate(vgg, shape(0, 1)) == 1.0 / 29.8);
  CHECK(table->rate(job("r", "resnet152", 4, WorkUnit::Epochs, 512), shape(1, 4)) == 1.0 / 11.5);
  CHECK(table->rate(job("d", "densenet121", 3, WorkUnit::Epochs, 512), shape(0, 3)) == 1.0 / 7.2);

  CHECK(table->rate(vgg, shape(2, 5)) == 0.0);
  CHECK(table->rate(job("v", "vgg19", 1, WorkUnit::Epochs, 128), shape(2, 1)) == 0.0);
  CHECK(table->rate(job("v", "alexnet", 1, WorkUnit::Epochs, 64), shape(2, 1)) == 0.0);

  CHECK_FALSE(table->check_job(job("ok", "vgg19", 4, WorkUnit::Epochs, 512), cluster));
  auto big = table->check_job(job("heet-3", "vgg19", 8, WorkUnit::Epochs, 64), cluster);
  REQUIRE(big);
  CHECK_THAT(*big, Catch::Contains("job heet-3: model 'vgg19' with global batch size 64 on 8 GPU(s) is not in profile table"));
  auto no_batch = table->check_job(job("heet-4", "vgg19", 1, WorkUnit::Epochs, 0), cluster);
  REQUIRE(no_batch);
  CHECK_THAT(*no_batch, Catch::Contains("heet-4") && Catch::Contains("global batch size"));
  auto unit = table->check_job(job("heet-5", "vgg19", 1, WorkUnit::Iterations, 64), cluster);
  REQUIRE(unit);
  CHECK_THAT(*unit, Catch::Contains("heet-5: heet-profile needs work in epochs"));
}

TEST_CASE("Heet profile: binds to the cluster's types only", "[perf][heet]") {
  auto path = test::shared_data("heet-prototype/profiles.json");
  if (!path) return;
  const Cluster cluster = gavel_types();  // only v100 is in the profile
  auto table = HeetProfileTable::load(*path, cluster);
  const auto vgg = job("v", "vgg19", 1, WorkUnit::Epochs, 64);
  CHECK(table->rate(vgg, shape(0, 1)) == 1.0 / 23.1);
  CHECK(table->rate(vgg, shape(1, 1)) == 0.0);

  const Cluster k80_only = make_cluster({{"k80", 1.0}});
  auto none = HeetProfileTable::load(*path, k80_only);
  CHECK(none->check_job(vgg, k80_only));
}

TEST_CASE("Heet profile: malformed entries name the key path", "[perf][heet]") {
  const Cluster cluster = heet_types();
  TempFile zero("heet_zero.json", R"json({"epoch_time_s": {"t4": {"vgg19": {"64": {"1": 0}}}}})json");
  CHECK_THROWS_WITH(HeetProfileTable::load(zero.str(), cluster), Catch::Contains("epoch_time_s/t4/vgg19/64/1"));
  TempFile batch("heet_batch.json", R"json({"epoch_time_s": {"t4": {"vgg19": {"big": {"1": 3.0}}}}})json");
  CHECK_THROWS_WITH(HeetProfileTable::load(batch.str(), cluster), Catch::Contains("epoch_time_s/t4/vgg19/big"));
  TempFile text("heet_text.json", R"json({"epoch_time_s": {"t4": {"vgg19": {"64": {"1": "slow"}}}}})json");
  CHECK_THROWS_AS(HeetProfileTable::load(text.str(), cluster), InputError);
}

TEST_CASE("Duration model: relative speed times the used share of the request", "[perf][duration]") {
  const Cluster cluster = make_cluster({{"v100", 1.0}, {"k80", 0.4}});
  const DurationModel model(cluster);
  CHECK(model.name() == "duration");
  const auto j = job("p-1", "", 4, WorkUnit::ReferenceSeconds);
  CHECK(model.rate(j, shape(0, 4)) == 1.0);
  CHECK(model.rate(j, shape(0, 2)) == 0.5);
  CHECK(model.rate(j, shape(0, 8)) == 1.0);  // no speed-up beyond the request
  CHECK(model.rate(j, shape(1, 4)) == Approx(0.4).epsilon(1e-15));
  CHECK(model.rate(j, shape(1, 1)) == Approx(0.1).epsilon(1e-15));
  CHECK(model.rate(j, shape(1, 3, false)) == Approx(0.3).epsilon(1e-15));
  CHECK(model.rate(j, shape(0, 0)) == 0.0);
  CHECK(model.rate(j, shape(5, 4)) == 0.0);

  CHECK_FALSE(model.check_job(j, cluster));
  auto reason = model.check_job(job("g-2", "A3C", 1, WorkUnit::Iterations), cluster);
  REQUIRE(reason);
  CHECK(*reason == "job g-2 has work in iterations; a duration-only run needs --throughputs for it");
}

TEST_CASE("load_throughput_model picks the model from the file", "[perf]") {
  const Cluster cluster = gavel_types();
  CHECK(load_throughput_model("", cluster)->name() == "duration");
  CHECK_THROWS_WITH(load_throughput_model("/nonexistent/hetsim/table.json", cluster),
                    Catch::Contains("/nonexistent/hetsim/table.json") && Catch::Contains("no such file or folder"));

  TempFile bad("select_bad.json", "{\n\n  \"v100\": [1,\n");
  try {
    load_throughput_model(bad.str(), cluster);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == bad.str());
    CHECK(e.line() >= 3);
    CHECK_THAT(e.what(), Catch::Contains("invalid JSON"));
  }
  TempFile array("select_array.json", "[1, 2]");
  CHECK_THROWS_AS(load_throughput_model(array.str(), cluster), InputError);

  if (auto gavel = test::shared_data("gavel/simulation_throughputs.json")) {
    auto m = load_throughput_model(*gavel, cluster);
    CHECK(m->name() == "gavel-table");
    CHECK(m->rate(job("a", "ResNet-18 (batch size 16)", 1, WorkUnit::Iterations), shape(0, 1)) == 32.353384328946916);
  }
  if (auto heet = test::shared_data("heet-prototype/profiles.json")) {
    auto m = load_throughput_model(*heet, cluster);
    CHECK(m->name() == "heet-profile");
    CHECK(m->rate(job("v", "vgg19", 1, WorkUnit::Epochs, 64), shape(0, 1)) == 1.0 / 23.1);
  }
}
