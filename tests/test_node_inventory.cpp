// Node inventories (Alibaba OpenB, PAI 2020, spot 2026) imported as clusters: types, racks,
// interconnects and skipped rows by the documented rules; bad rows name file:line:field; and a
// run of OpenB pods on an OpenB cluster honours gpu_spec and reports what it skipped.
#include <algorithm>
#include <map>
#include <string>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using Catch::Contains;
using namespace hetsim;

namespace {

int gpus_of(const Cluster& c, const std::string& type) {
  auto t = c.find_gpu_type(type);
  return t ? c.gpus_of_type(*t) : -1;
}

const Node& node_named(const Cluster& c, const std::string& name) {
  auto it = std::find_if(c.nodes().begin(), c.nodes().end(), [&](const Node& n) { return n.name == name; });
  REQUIRE(it != c.nodes().end());
  return *it;
}

}  // namespace

TEST_CASE("inventory: OpenB node list", "[cluster][inventory]") {
  test::TempDir dir("inv-openb");
  const std::string path = dir.write("nodes.csv",
                                     "sn,cpu_milli,memory_mib,gpu,model\n"
                                     "cpu0,32000,262144,0,\n"
                                     "p0,64000,262144,2,P100\n"
                                     "v0,96000,786432,8,V100M32\n"
                                     "g0,96000,786432,8,G2\n"
                                     "p1,64000,262144,1,P100\n");
  auto detected = detect_node_inventory(path);
  REQUIRE(detected);
  CHECK(detected->first == InventoryFormat::AlibabaOpenb);
  ImportedCluster imp = import_node_inventory(InventoryFormat::AlibabaOpenb, path);
  const Cluster& c = imp.cluster;
  CHECK(c.name() == "nodes");
  CHECK(c.total_gpus() == 19);
  REQUIRE(c.gpu_types().size() == 3);
  CHECK(c.gpu_types()[0].name == "p100");  // order of first appearance
  CHECK(c.gpu_types()[1].name == "v100m32");
  CHECK(c.gpu_types()[1].memory_gb == 32.0);
  CHECK(c.gpu_types()[2].memory_gb == 0.0);  // G2 is undisclosed
  CHECK(gpus_of(c, "p100") == 3);
  CHECK(node_named(c, "v0").interconnect == InterconnectKind::NvLink);
  CHECK(node_named(c, "g0").interconnect == InterconnectKind::Pcie);
  CHECK(node_named(c, "p1").gpu_count == 1);
  // One rack per type here (fewer than 32 nodes each), named after the type.
  REQUIRE(c.racks().size() == 3);
  CHECK(c.racks()[0].name == "p100-rack0");
  CHECK(node_named(c, "p1").rack == node_named(c, "p0").rack);
  REQUIRE(imp.notes.size() == 2);
  CHECK_THAT(imp.notes[0], Contains("4 nodes with 19 GPUs") && Contains("1 nodes without GPUs skipped"));
  CHECK_THAT(imp.notes[1], Contains("g2") && Contains("PCIe assumed"));
  // The prefix form reaches the same importer.
  CHECK(resolve_cluster("alibaba-openb:" + path).total_gpus() == 19);
}

TEST_CASE("inventory: racks hold at most 32 nodes of one type", "[cluster][inventory]") {
  test::TempDir dir("inv-racks");
  std::string text = "gpu_model,gpu_capacity_num,cpu_num,node_name\n";
  for (int i = 0; i < 70; ++i) text += "A10,1,128," + std::to_string(i) + "\n";
  text += "H800,8,192,70\nA800-SXM4-80GB,8,192,71\nA100-SXM4-80GB,0,192,72\n";
  const std::string path = dir.write("node_info_df.csv", text);
  std::vector<std::string> notes;
  Cluster c = resolve_cluster(path, &notes);  // detected by its header
  CHECK(c.nodes().size() == 72);
  CHECK(c.racks().size() == 5);  // a10: 32 + 32 + 6, h800: 1, a800: 1
  CHECK(node_named(c, "node-31").rack == 0);
  CHECK(node_named(c, "node-32").rack == 1);
  CHECK(node_named(c, "node-69").rack == 2);
  CHECK(c.racks()[2].name == "a10-rack2");
  const Node& h = node_named(c, "node-70");
  CHECK(h.interconnect == InterconnectKind::NvSwitch);
  CHECK(h.interconnect_gbytes_per_s == 200.0);
  CHECK(gpus_of(c, "a800-sxm4-80gb") == 8);
  CHECK(gpus_of(c, "a100-sxm4-80gb") == -1);  // its only node has no GPUs
  REQUIRE_FALSE(notes.empty());
  CHECK_THAT(notes[0], Contains("1 nodes without GPUs skipped"));
}

TEST_CASE("inventory: PAI machine list reads its header from the companion file", "[cluster][inventory]") {
  test::TempDir dir("inv-pai");
  const std::string path = dir.write("m.csv",
                                     "a1,CPU,96,512,0\n"
                                     "a2,T4,96,512,2\n"
                                     "a3,MISC,96,512,8\n"
                                     "a4,V100,96,512,8\n");
  CHECK_FALSE(detect_node_inventory(path));  // no m.header yet: not recognisable
  CHECK_THROWS_WITH(import_node_inventory(InventoryFormat::AlibabaPai, path), Contains("m.header"));
  dir.write("m.header", "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n");
  REQUIRE(detect_node_inventory(path));
  CHECK(detect_node_inventory(path)->first == InventoryFormat::AlibabaPai);
  ImportedCluster imp = import_node_inventory(InventoryFormat::AlibabaPai, path);
  CHECK(imp.cluster.total_gpus() == 10);
  CHECK(node_named(imp.cluster, "a4").interconnect == InterconnectKind::NvLink);
  CHECK(imp.cluster.gpu_types()[1].memory_gb == 16.0);
  REQUIRE(imp.notes.size() == 2);
  CHECK_THAT(imp.notes[0], Contains("1 nodes without GPUs skipped"));
  CHECK_THAT(imp.notes[1], Contains("1 MISC machines"));
}

TEST_CASE("inventory: bad rows name file, line and field", "[cluster][inventory]") {
  test::TempDir dir("inv-bad");
  auto error_of = [&](const std::string& text) {
    const std::string path = dir.write("n.csv", text);
    try {
      import_node_inventory(InventoryFormat::AlibabaOpenb, path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string h = "sn,cpu_milli,memory_mib,gpu,model\n";
  CHECK_THAT(error_of(h + "a,1,1,two,T4\n"), Contains("n.csv:2: field 'gpu'"));
  CHECK_THAT(error_of(h + "a,1,1,-2,T4\n"), Contains("n.csv:2: field 'gpu'"));
  CHECK_THAT(error_of(h + "a,1,1,2,\n"), Contains("n.csv:2: field 'model'"));
  CHECK_THAT(error_of(h + "a,1,1,2,T4\n\na,1,1,2,T4\n"), Contains("n.csv:4: field 'sn'") && Contains("line 2"));
  CHECK_THAT(error_of(h + "a,1,1,2\n"), Contains("n.csv:2") && Contains("expected 5"));
  CHECK_THAT(error_of("sn,gpu\n"), Contains("n.csv:1: field 'model'"));
  CHECK_THAT(error_of(h + "a,1,1,0,\n"), Contains("no node with GPUs"));
}

TEST_CASE("run: OpenB pods on an OpenB cluster honour gpu_spec and report skips", "[cluster][inventory][openb]") {
  test::TempDir dir("inv-run");
  const std::string nodes = dir.write("nodes.csv",
                                      "sn,cpu_milli,memory_mib,gpu,model\n"
                                      "p0,64000,262144,2,P100\n"
                                      "v0,96000,786432,2,V100M32\n");
  const std::string pods = dir.write(
      "pods.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
      "cpu,1000,1,0,0,,BE,Succeeded,0,10,0\n"
      "any,1000,1,1,1000,,LS,Succeeded,0,100,0\n"
      "v100,1000,1,1,1000,V100M32,LS,Succeeded,0,50,0\n"
      "a10,1000,1,1,1000,A10,LS,Succeeded,0,50,0\n"
      "share,1000,1,1,250,P100|V100M32,LS,Succeeded,10,40,10\n");
  RunSpec spec;
  spec.cluster = "alibaba-openb:" + nodes;
  spec.trace = pods;
  spec.format = TraceFormat::AlibabaOpenb;
  spec.policy = "fifo";
  PolicyRegistry registry = make_default_registry();
  RunOutput out = run_simulation(spec, registry);
  CHECK(out.summary.jobs_read == 4);
  CHECK(out.summary.rows_skipped == 1);
  CHECK(out.summary.completed == 3);
  CHECK(out.summary.rejected == 1);
  auto rec = [&](const std::string& id) {
    auto it = std::find_if(out.records.begin(), out.records.end(), [&](const JobRecord& r) { return r.job_id == id; });
    REQUIRE(it != out.records.end());
    return *it;
  };
  CHECK(rec("any").gpu_types == "p100");  // fifo takes the first type in cluster order
  CHECK(rec("v100").gpu_types == "v100m32");
  CHECK(rec("v100").finish_s == Approx(50.0));
  CHECK_THAT(rec("a10").reason, Contains("a10") && Contains("none of which"));
  CHECK(rec("share").finish_s == Approx(40.0));  // starts at 10 on the second p100, runs 30 s
  CHECK(rec("share").gpu_types == "p100");
  const auto& notes = out.summary.input_notes;
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("1 CPU-only pods") != std::string::npos; }));
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("alibaba-openb cluster: 2 nodes") != std::string::npos; }));
  std::ostringstream json;
  write_summary_json(json, out.summary, out.info);
  CHECK_THAT(json.str(), Contains("\"rows_skipped\": 1") && Contains("\"input_notes\""));
}

TEST_CASE("inventory: the real Alibaba node lists", "[cluster][inventory][data]") {
  if (auto p = test::shared_data("alibaba-openb-2023/openb_node_list_gpu_node.csv")) {
    ImportedCluster imp = import_node_inventory(InventoryFormat::AlibabaOpenb, *p);
    CHECK(imp.cluster.nodes().size() == 1213);
    CHECK(imp.cluster.gpu_types().size() == 7);
    CHECK(gpus_of(imp.cluster, "g2") == 549 * 8);
    CHECK(gpus_of(imp.cluster, "t4") == 387 * 2 + 17 * 4);
    CHECK(gpus_of(imp.cluster, "v100m16") == 28 * 4 + 19 + 8 * 8);
  }
  if (auto p = test::shared_data("alibaba-openb-2023/openb_node_list_all_node.csv")) {
    std::vector<std::string> notes;
    Cluster c = resolve_cluster(*p, &notes);
    CHECK(c.nodes().size() == 1213);
    CHECK_THAT(notes.at(0), Contains("310 nodes without GPUs skipped"));
  }
  if (auto p = test::shared_data("alibaba-pai-2020/pai_machine_spec.csv")) {
    std::vector<std::string> notes;
    Cluster c = resolve_cluster(*p, &notes);  // detected through pai_machine_spec.header
    CHECK(c.nodes().size() == 798 + 497 + 135 + 104);
    CHECK(c.total_gpus() == 798 * 2 + 497 * 2 + 135 * 8 + 104 * 8);
    CHECK_THAT(notes.at(0), Contains("83 nodes without GPUs skipped"));
    CHECK_THAT(notes.at(1), Contains("280 MISC machines"));
  }
  if (auto p = test::shared_data("alibaba-spot-gpu-2026/node_info_df.csv")) {
    Cluster c = resolve_cluster(*p);
    CHECK(c.nodes().size() == 4278);
    CHECK(gpus_of(c, "a10") == 2494);
    CHECK(gpus_of(c, "h800") == 219 * 8);
  }
}

TEST_CASE("run: the real OpenB pods on the real OpenB cluster", "[cluster][inventory][openb][data]") {
  auto nodes = test::shared_data("alibaba-openb-2023/openb_node_list_gpu_node.csv");
  auto pods = test::shared_data("alibaba-openb-2023/openb_pod_list_gpuspec33.csv");
  if (!nodes || !pods) return;
  RunSpec spec;
  spec.cluster = *nodes;
  spec.trace = *pods;
  spec.policy = "fifo";
  PolicyRegistry registry = make_default_registry();
  RunOutput out = run_simulation(spec, registry);
  CHECK(out.info.format == "alibaba-openb");
  CHECK(out.summary.jobs_read == 7064);
  CHECK(out.summary.rows_skipped == 1088);
  CHECK(out.summary.completed == 7064);
  // 6,212 GPUs never all busy: no job queues, so the mean JCT is the mean pod duration of the file.
  CHECK(out.summary.queueing_mean_s == 0.0);
  CHECK(out.summary.jct_mean_s == Approx(27114.230039637598).epsilon(1e-9));
  // Every constrained pod that ran did so on one of its allowed types (fifo's first type is p100,
  // which most constraints exclude).
  const Workload w = read_trace(*pods, TraceFormat::AlibabaOpenb);
  std::map<std::string, const JobSpec*> by_id;
  for (const JobSpec& j : w.jobs) by_id[j.id] = &j;
  std::size_t constrained = 0, off_p100 = 0;
  for (const JobRecord& r : out.records) {
    const JobSpec& j = *by_id.at(r.job_id);
    if (j.allowed_gpu_types.empty() || r.gpu_types.empty()) continue;  // empty: zero-length, never placed
    ++constrained;
    off_p100 += r.gpu_types != "p100" ? 1 : 0;
    CHECK(std::find(j.allowed_gpu_types.begin(), j.allowed_gpu_types.end(), r.gpu_types) != j.allowed_gpu_types.end());
  }
  CHECK(constrained == 2388);
  // The cluster never fills, so fifo's first-type rule puts a constrained pod on p100 exactly when
  // its gpu_spec allows P100: 461 of the file's specs name P100.
  CHECK(constrained - off_p100 == 461);
}
