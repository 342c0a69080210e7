// Cluster presets and the JSON cluster spec loader (docs/cluster-format.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/util/error.hpp"
#include "test_support.hpp"

using namespace hetsim;
using nlohmann::json;

namespace {

GpuTypeId type_id(const Cluster& c, const std::string& name) {
  auto t = c.find_gpu_type(name);
  REQUIRE(t);
  return *t;
}

Cluster preset(const std::string& name) {
  auto c = make_preset(name);
  REQUIRE(c);
  return std::move(*c);
}

// A small valid spec that each error test breaks in one place.
json base_spec() {
  return json::parse(R"json({
    "name": "t",
    "gpu_types": [{"name": "V100", "memory_gb": 16, "relative_speed": 1.0}, {"name": "k80"}],
    "racks": [{"name": "a"}, {"name": "b"}],
    "nodes": [
      {"name": "big", "gpu_type": "v100", "gpus": 8, "rack": "a"},
      {"gpu_type": "k80", "gpus": 4, "rack": "b", "count": 3},
      {"name": "x", "gpu_type": "K80", "gpus": 2.0, "rack": "b", "count": 2}
    ]
  })json");
}

}  // namespace

TEST_CASE("presets: GPU counts per type, nodes and racks", "[cluster][presets]") {
  SECTION("gavel-108") {
    const Cluster c = preset("gavel-108");
    CHECK(c.name() == "gavel-108");
    CHECK(c.total_gpus() == 108);
    CHECK(c.nodes().size() == 27);
    CHECK(c.racks().size() == 1);
    REQUIRE(c.gpu_types().size() == 3);
    for (const char* t : {"v100", "p100", "k80"}) {
      CHECK(c.gpus_of_type(type_id(c, t)) == 36);
      CHECK(c.max_gpus_per_node(type_id(c, t)) == 4);
    }
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "v100"))].relative_speed == 1.0);
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "p100"))].relative_speed == 0.6);
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "k80"))].relative_speed == 0.25);
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "k80"))].memory_gb == 12.0);
  }
  SECTION("gavel-24") {
    const Cluster c = preset("gavel-24");
    CHECK(c.total_gpus() == 24);
    CHECK(c.nodes().size() == 6);
    for (const char* t : {"v100", "p100", "k80"}) CHECK(c.gpus_of_type(type_id(c, t)) == 8);
  }
  SECTION("heet-12") {
    const Cluster c = preset("heet-12");
    CHECK(c.total_gpus() == 12);
    REQUIRE(c.nodes().size() == 3);
    CHECK(c.nodes()[0].gpu_type == type_id(c, "a10"));
    CHECK(c.nodes()[1].gpu_type == type_id(c, "v100"));
    CHECK(c.nodes()[2].gpu_type == type_id(c, "t4"));
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "a10"))].memory_gb == 24.0);
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "t4"))].memory_gb == 16.0);
    CHECK(c.node_of(4) == 1);  // GPUs of one node are contiguous
    CHECK(c.type_of(11) == type_id(c, "t4"));
  }
  SECTION("philly-2048") {
    const Cluster c = preset("philly-2048");
    CHECK(c.total_gpus() == 2048);
    CHECK(c.nodes().size() == 256);
    CHECK(c.racks().size() == 8);
    REQUIRE(c.gpu_types().size() == 1);
    CHECK(c.gpu_types()[0].name == "gpu");
    CHECK(c.max_gpus_per_node(0) == 8);
    CHECK(c.nodes()[31].rack == 0);
    CHECK(c.nodes()[32].rack == 1);
    CHECK(c.nodes()[255].rack == 7);
  }
  SECTION("default") {
    const Cluster c = preset("default");
    CHECK(c.total_gpus() == 16);
    CHECK(c.nodes().size() == 4);
    CHECK(c.gpus_of_type(type_id(c, "v100")) == 8);
    CHECK(c.gpus_of_type(type_id(c, "k80")) == 8);
    CHECK(c.gpu_types()[static_cast<std::size_t>(type_id(c, "k80"))].relative_speed == 0.4);
  }
  SECTION("heet-120: 10 four-GPU hosts of each of a10, v100, t4") {
    const Cluster c = *make_preset("heet-120");
    CHECK(c.total_gpus() == 120);
    CHECK(c.nodes().size() == 30);
    for (const char* t : {"a10", "v100", "t4"}) {
      CHECK(c.gpus_of_type(type_id(c, t)) == 40);
      CHECK(c.max_gpus_per_node(type_id(c, t)) == 4);
    }
  }
  SECTION("pollux-64") {
    const Cluster c = preset("pollux-64");
    CHECK(c.total_gpus() == 64);
    CHECK(c.nodes().size() == 16);
    CHECK(c.gpus_of_type(type_id(c, "t4")) == 64);
    for (const Node& n : c.nodes()) {
      CHECK(n.gpu_count == 4);
      CHECK(n.nic_gbps == 50.0);
      CHECK(n.interconnect == InterconnectKind::Pcie);
    }
  }
  SECTION("sia-64") {
    const Cluster c = preset("sia-64");
    CHECK(c.total_gpus() == 64);
    CHECK(c.nodes().size() == 11);
    CHECK(c.racks().size() == 3);
    CHECK(c.gpus_of_type(type_id(c, "t4")) == 24);
    CHECK(c.gpus_of_type(type_id(c, "a100")) == 16);
    CHECK(c.gpus_of_type(type_id(c, "rtx2080ti")) == 24);
    CHECK(c.max_gpus_per_node(type_id(c, "a100")) == 8);
    CHECK(c.max_gpus_per_node(type_id(c, "t4")) == 4);
    CHECK(c.nodes()[6].interconnect == InterconnectKind::NvSwitch);
    CHECK(c.nodes()[6].interconnect_gbytes_per_s == 300.0);
  }
  SECTION("gavel-108-2rack: same GPUs, two racks, 4:1 uplinks") {
    const Cluster c = preset("gavel-108-2rack");
    CHECK(c.total_gpus() == 108);
    REQUIRE(c.racks().size() == 2);
    int rack0 = 0;
    for (const Node& n : c.nodes()) rack0 += n.rack == 0;
    CHECK(rack0 == 15);  // nodes 0, 2, 4, 6, 8 of each type
    // 15 nodes x 10 Gbit/s NICs over a 4:1 uplink; 12 nodes on rack1.
    CHECK(*c.racks()[0].uplink_gbps == Approx(37.5));
    CHECK(*c.racks()[1].uplink_gbps == Approx(30.0));
    CHECK(c.racks()[0].oversubscription == Approx(4.0));
    CHECK(c.nodes()[1].rack == 1);
  }
  SECTION("every listed preset builds, and nothing else does") {
    const auto presets = list_presets();
    CHECK(presets.size() == 9);
    for (const auto& [name, description] : presets) {
      const auto c = make_preset(name);
      REQUIRE(c);
      CHECK_FALSE(description.empty());
      for (const GpuType& t : c->gpu_types()) CHECK(is_valid_gpu_type_name(t.name));
    }
    CHECK_FALSE(make_preset("gavel-1000"));
    CHECK_FALSE(make_preset("Default"));
  }
}

TEST_CASE("cluster spec: a valid spec", "[cluster][spec]") {
  const Cluster c = cluster_from_json(base_spec(), "specs/t.json");
  CHECK(c.name() == "t");
  CHECK(c.total_gpus() == 8 + 3 * 4 + 2 * 2);
  REQUIRE(c.nodes().size() == 6);
  CHECK(c.nodes()[0].name == "big");
  CHECK(c.nodes()[1].name == "k80-0");
  CHECK(c.nodes()[3].name == "k80-2");
  CHECK(c.nodes()[4].name == "x-0");
  CHECK(c.nodes()[5].name == "x-1");
  CHECK(c.nodes()[5].gpu_count == 2);
  CHECK(c.nodes()[5].rack == 1);
  CHECK(c.gpu_types()[0].name == "v100");
  CHECK(c.gpu_types()[1].relative_speed == 1.0);  // default
  CHECK(c.gpu_types()[1].memory_gb == 0.0);       // unknown
  CHECK(c.gpus_of_type(1) == 16);
  CHECK(c.nodes()[1].first_gpu == 8);

  SECTION("racks may be left out, and the name then comes from the file") {
    json j = base_spec();
    j.erase("racks");
    j.erase("name");
    for (auto& n : j["nodes"]) n.erase("rack");
    const Cluster one = cluster_from_json(j, "specs/small-lab.json");
    CHECK(one.name() == "small-lab");
    REQUIRE(one.racks().size() == 1);
    CHECK(one.racks()[0].name == "rack0");
  }
}

TEST_CASE("cluster spec: errors name the field", "[cluster][spec]") {
  json j = base_spec();
  SECTION("unknown key in a node") {
    j["nodes"][2]["gpu"] = "k80";
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[2].gpu") && Catch::Contains("unknown key"));
  }
  SECTION("unknown top-level key") {
    j["rack"] = json::array();
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("field 'rack'"));
  }
  SECTION("unknown key in a GPU type") {
    j["gpu_types"][1]["speed"] = 0.5;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("gpu_types[1].speed"));
  }
  SECTION("GPU type name with CSV-breaking characters") {
    // Type names become jobs.csv cells (joined by '|') and utilization.csv column names.
    for (const char* bad : {"v,1|x\"y", "v|1", "a b", "x\"y", "v100/2"}) {
      INFO(bad);
      json k = base_spec();
      k["gpu_types"][1]["name"] = bad;
      k["nodes"][1]["gpu_type"] = bad;
      k["nodes"][2]["gpu_type"] = bad;
      CHECK_THROWS_WITH(cluster_from_json(k, "t.json"),
                        Catch::Contains("t.json: field 'gpu_types[1].name'") &&
                            Catch::Contains("letters, digits and . _ + -"));
    }
    for (const char* good : {"A100-SXM4-80GB", "GPU-series-1", "V100M16", "rtx_3090", "a100.80g+nvl"}) {
      INFO(good);
      CHECK(is_valid_gpu_type_name(good));
    }
    j["gpu_types"][0]["name"] = "v100 sxm";  // for the common check below
  }
  SECTION("unknown GPU type") {
    j["nodes"][0]["gpu_type"] = "a100";
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"),
                      Catch::Contains("nodes[0].gpu_type") && Catch::Contains("'a100'") && Catch::Contains("v100, k80"));
  }
  SECTION("zero GPUs") {
    j["nodes"][1]["gpus"] = 0;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[1].gpus"));
  }
  SECTION("fractional GPUs") {
    j["nodes"][1]["gpus"] = 2.5;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[1].gpus"));
  }
  SECTION("zero count") {
    j["nodes"][1]["count"] = 0;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[1].count"));
  }
  SECTION("empty racks") {
    j["racks"] = json::array();
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("field 'racks'"));
  }
  SECTION("rack with no nodes") {
    j["racks"].push_back({{"name", "c"}});
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("racks[2]") && Catch::Contains("no nodes"));
  }
  SECTION("unknown rack") {
    j["nodes"][0]["rack"] = "z";
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[0].rack") && Catch::Contains("'z'"));
  }
  SECTION("missing rack with several racks") {
    j["nodes"][0].erase("rack");
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[0].rack"));
  }
  SECTION("wrong type") {
    j["nodes"][0]["gpus"] = "8";
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[0].gpus") && Catch::Contains("string"));
    j = base_spec();
    j["gpu_types"][0]["relative_speed"] = -1;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("gpu_types[0].relative_speed"));
    j = base_spec();
    j["nodes"] = json::object();
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("field 'nodes'"));
  }
  SECTION("duplicate names") {
    j["nodes"][2]["name"] = "big";
    j["nodes"][2]["count"] = 1;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[2].name") && Catch::Contains("nodes[0]"));
    j = base_spec();
    j["gpu_types"][1]["name"] = "v100";
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("gpu_types[1].name"));
  }
  SECTION("network: unknown interconnect kind") {
    j["nodes"][0]["interconnect"] = {{"kind", "infiniband"}};
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"),
                      Catch::Contains("nodes[0].interconnect.kind") && Catch::Contains("'infiniband'"));
    j = base_spec();
    j["nodes"][0]["interconnect"] = "token-ring";
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[0].interconnect"));
  }
  SECTION("network: zero or negative bandwidth") {
    j["nodes"][0]["interconnect"] = {{"kind", "nvlink"}, {"gbytes_per_s", 0}};
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"),
                      Catch::Contains("nodes[0].interconnect.gbytes_per_s") && Catch::Contains("in [1e-06, 1e+09], got 0"));
    j = base_spec();
    j["nodes"][1]["nic_gbps"] = -10;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[1].nic_gbps"));
    j = base_spec();
    j["racks"][1]["uplink_gbps"] = 0;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("racks[1].uplink_gbps"));
    j = base_spec();
    j["racks"][1]["oversubscription"] = 0;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("racks[1].oversubscription"));
    j = base_spec();
    j["racks"][1]["oversubscription"] = 2;
    j["racks"][1]["uplink_gbps"] = 10;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("not both"));
    j = base_spec();
    j["nodes"][0]["nic_latency_us"] = -1;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[0].nic_latency_us"));
    // Values no hardware has, which used to surface only as "needs inf s" at admission (newuser4).
    j = base_spec();
    j["nodes"][0]["nic_latency_us"] = 1e300;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"),
                      "t.json: field 'nodes[0].nic_latency_us': latency must be a number of microseconds in [0, 1e+09], got 1e+300");
    j = base_spec();
    j["nodes"][1]["nic_gbps"] = 1e-300;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[1].nic_gbps") && Catch::Contains("got 1e-300"));
    j = base_spec();
    j["gpu_types"][0]["relative_speed"] = 1e-320;
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("gpu_types[0].relative_speed': must be a ratio in [1e-06, 1e+06]"));
    j = base_spec();
    j["gpu_types"][0]["relative_speed"] = 1e-6;  // the bounds themselves are accepted
    j["nodes"][1]["nic_gbps"] = 1e9;
    CHECK_NOTHROW(cluster_from_json(j, "t.json"));
    j = base_spec();
    j["nodes"][0]["interconnect"] = {{"kind", "pcie"}, {"bw", 3}};
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("nodes[0].interconnect.bw"));
  }
  SECTION("network: code-built cluster is validated too") {
    Node n("n0", 0, 4, 0);
    n.nic_gbps = 0;
    CHECK_THROWS_WITH(Cluster("c", {GpuType{"gpu", 0, 1}}, {Rack{"r"}}, {n}), Catch::Contains("nodes[0].nic_gbps"));
    j["nodes"][0]["nic_gbps"] = 0;  // for the common check below
  }
  SECTION("missing sections") {
    j.erase("nodes");
    CHECK_THROWS_WITH(cluster_from_json(j, "t.json"), Catch::Contains("field 'nodes'"));
    CHECK_THROWS_WITH(cluster_from_json(json::array(), "t.json"), Catch::Contains("JSON object"));
  }
  CHECK_THROWS_AS(cluster_from_json(j, "t.json"), InputError);
}

TEST_CASE("cluster spec: network keys and their defaults", "[cluster][spec][topology]") {
  json j = base_spec();
  j["nodes"][0]["interconnect"] = {{"kind", "NVLink"}, {"gbytes_per_s", 100}, {"latency_us", 1.5}};
  j["nodes"][0]["nic_gbps"] = 100;
  j["nodes"][1]["interconnect"] = "nvswitch";
  j["racks"][0]["uplink_gbps"] = 40;
  j["racks"][1]["oversubscription"] = 2;
  const Cluster c = cluster_from_json(j, "t.json");
  const Node& big = c.nodes()[0];
  CHECK(big.interconnect == InterconnectKind::NvLink);
  CHECK(big.interconnect_gbytes_per_s == 100.0);
  CHECK(big.interconnect_latency_us == 1.5);
  CHECK(big.nic_gbps == 100.0);
  // A kind alone takes that kind's defaults; every node of a "count" entry shares them.
  for (std::size_t i = 1; i <= 3; ++i) {
    CHECK(c.nodes()[i].interconnect == InterconnectKind::NvSwitch);
    CHECK(c.nodes()[i].interconnect_gbytes_per_s == 300.0);
    CHECK(c.nodes()[i].nic_gbps == kDefaultNicGbps);
  }
  // Nothing said: PCIe at 12 GB/s.
  CHECK(c.nodes()[4].interconnect == InterconnectKind::Pcie);
  CHECK(c.nodes()[4].interconnect_gbytes_per_s == 12.0);
  CHECK(*c.racks()[0].uplink_gbps == 40.0);
  CHECK(c.racks()[0].oversubscription == Approx(100.0 / 40.0));
  // Rack b: 5 nodes x 25 Gbit/s at 2:1.
  CHECK(*c.racks()[1].uplink_gbps == Approx(5 * 25.0 / 2));
}

TEST_CASE("cluster spec files and resolve_cluster", "[cluster][spec]") {
  const auto dir = std::filesystem::temp_directory_path();
  const auto good = dir / "hetsim_test_cluster_good.json";
  const auto bad = dir / "hetsim_test_cluster_bad.json";
  std::ofstream(good) << base_spec().dump(2);
  std::ofstream(bad) << "{\n  \"name\": \"t\",\n  \"nodes\": [\n}\n";

  CHECK(load_cluster_spec(good.string()).total_gpus() == 24);
  CHECK(resolve_cluster(good.string()).name() == "t");
  CHECK(resolve_cluster("gavel-24").total_gpus() == 24);
  try {
    load_cluster_spec(bad.string());
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == bad.string());
    CHECK(e.line() == 4);
  }
  CHECK_THROWS_WITH(resolve_cluster("gavel-9000"),
                    Catch::Contains("gavel-9000") && Catch::Contains("default, gavel-24, gavel-108, gavel-108-2rack, pollux-64, sia-64, heet-12, heet-120, philly-2048"));
  CHECK_THROWS_WITH(load_cluster_spec((dir / "hetsim_test_no_such_cluster.json").string()), Catch::Contains("cannot open"));
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST_CASE("cluster spec: the example in docs/cluster-format.md is valid", "[cluster][spec][docs]") {
  std::ifstream in(test::source_path("docs/cluster-format.md"));
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto start = doc.find("```json\n");
  REQUIRE(start != std::string::npos);
  const auto body = start + 8;
  const auto end = doc.find("```", body);
  REQUIRE(end != std::string::npos);
  const Cluster c = cluster_from_json(json::parse(doc.substr(body, end - body)), "docs/cluster-format.md");
  // The prose under the example promises these.
  CHECK(c.total_gpus() == 20);
  REQUIRE(c.nodes().size() == 4);
  CHECK(c.nodes()[0].name == "dgx");
  CHECK(c.nodes()[3].name == "k80-2");
  CHECK(c.nodes()[3].rack == 1);
}
