// Experiment specs accept what the command line accepts (cluster inventories, ElasticFlow profile
// folders), flags that would be silently ignored are errors, JSON inputs refuse duplicate keys,
// out-of-range seeds are refused, model/cluster errors name the real cause, and a round length
// that the longest job alone would need more than kMaxRounds rounds of is refused up front.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/experiment/run_keys.hpp"
#include "hetsim/experiment/spec.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/run.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using Catch::Contains;
using hetsim::test::expect_input_error;
using hetsim::test::run_cli;
using namespace hetsim;

namespace {

const char* kOpenb = "sn,cpu_milli,memory_mib,gpu,model\np0,64000,262144,2,P100\nv0,96000,786432,8,V100M32\n";
const char* kSpot = "gpu_model,gpu_capacity_num,cpu_num,node_name\nA10,4,32,1\nA10,2,32,2\n";

ExperimentSpec load(const std::string& path) {
  PolicyRegistry registry = make_default_registry();
  return load_experiment_spec(path, registry);
}

std::string setting(const ExperimentSpec& spec, const std::string& key) {
  for (const auto& [k, v] : spec.settings)
    if (k == key) return value_text(v);
  FAIL("no setting " << key);
  return {};
}

// The row of the markdown table in docs/experiment-spec.md whose first cell is `key`.
std::string doc_row(const std::string& key) {
  std::ifstream in(test::source_path("docs/experiment-spec.md"));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("| `" + key + "` |", 0) == 0) return line;
  FAIL("docs/experiment-spec.md has no row for " << key);
  return {};
}

}  // namespace

TEST_CASE("spec: cluster accepts every --cluster form, paths relative to the spec", "[experiment][spec][cluster]") {
  test::TempDir dir("specflags-cluster");
  dir.write("inv/openb.csv", kOpenb);
  dir.write("inv/spot.csv", kSpot);
  dir.write("inv/pai.csv", "a1,T4,96,512,2\na2,V100,96,512,8\n");
  dir.write("inv/pai.header", "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n");
  const std::string inv = (dir.path / "inv").lexically_normal().generic_string();
  struct Case {
    std::string value, stored;
    int gpus;
  };
  for (const Case& c : {Case{"alibaba-openb:../inv/openb.csv", "alibaba-openb:" + inv + "/openb.csv", 10},
                        Case{"alibaba-spot:../inv/spot.csv", "alibaba-spot:" + inv + "/spot.csv", 6},
                        Case{"alibaba-pai:../inv/pai.csv", "alibaba-pai:" + inv + "/pai.csv", 10},
                        Case{"../inv/openb.csv", inv + "/openb.csv", 10},  // a bare inventory path
                        Case{"gavel-24", "gavel-24", 24}}) {
    INFO(c.value);
    const std::string path = dir.write("exp/s.json", R"({"policies": ["fifo"], "cluster": ")" + c.value + "\"}");
    const ExperimentSpec spec = load(path);
    CHECK(setting(spec, "cluster") == c.stored);
    PolicyRegistry registry = make_default_registry();
    const auto points = expand_points(spec, registry);
    REQUIRE(points.size() == 1);
    CHECK(resolve_cluster(points[0].run.cluster).total_gpus() == c.gpus);
  }
  // The same resolution's errors, prefixed with the spec file and key.
  const std::string empty = dir.write("exp/e.json", R"({"policies": ["fifo"], "cluster": "alibaba-openb:"})");
  CHECK_THROWS_WITH(load(empty), Contains("e.json: field 'cluster': 'alibaba-openb:'") &&
                                     Contains("names no inventory file: the path after the colon is empty"));
  const std::string missing = dir.write("exp/m.json", R"({"policies": ["fifo"], "cluster": "nope.json"})");
  CHECK_THROWS_WITH(load(missing), Contains("m.json: field 'cluster': 'nope.json'") &&
                                       Contains("neither a cluster preset") && Contains("alibaba-spot:"));
  dir.write("inv/dup.csv", "gpu_model,gpu_capacity_num,cpu_num,node_name\nA10,4,32,1\nA10,2,32,1\n");
  const std::string dup = dir.write("exp/d.json", R"({"policies": ["fifo"], "cluster": "alibaba-spot:../inv/dup.csv"})");
  CHECK_THROWS_WITH(load(dup), Contains("d.json: field 'cluster'") &&
                                   Contains("dup.csv:3: field 'node_name': node name 'node-1' already used on line 2"));
}

TEST_CASE("spec: throughputs accepts a table file or an ElasticFlow profile folder", "[experiment][spec][perf]") {
  test::TempDir dir("specflags-tput");
  dir.write("ef/throughputs_A100/bert.csv", "global_batch_size,1,2\n64,6,8\n");
  dir.write("plain/readme.txt", "not a profile\n");
  dir.write("gavel.json", "{}");
  const std::string ef = dir.write("exp/ef.json", R"({"policies": ["fifo"], "throughputs": "../ef"})");
  CHECK(setting(load(ef), "throughputs") == (dir.path / "ef").lexically_normal().generic_string());
  const std::string one = dir.write("exp/one.json", R"({"policies": ["fifo"], "throughputs": "../ef/throughputs_A100"})");
  CHECK_NOTHROW(load(one));
  const std::string file = dir.write("exp/file.json", R"({"policies": ["fifo"], "throughputs": "../gavel.json"})");
  CHECK_NOTHROW(load(file));
  const std::string plain = dir.write("exp/plain.json", R"({"policies": ["fifo"], "throughputs": "../plain"})");
  CHECK_THROWS_WITH(load(plain), Contains("plain.json: field 'throughputs': '../plain'") &&
                                     Contains("not an ElasticFlow profile folder"));
  const std::string none = dir.write("exp/none.json", R"({"policies": ["fifo"], "throughputs": "../none.json"})");
  CHECK_THROWS_WITH(load(none), Contains("none.json: field 'throughputs': '../none.json'") &&
                                    Contains("none.json: field '--throughputs': no such file or folder"));
  // The kind rule the CLI uses picks the reader.
  CHECK(throughput_file_kind((dir.path / "ef").string()) == "elasticflow-table");
  CHECK(throughput_file_kind((dir.path / "gavel.json").string()) == "gavel-table");
  CHECK(throughput_file_kind(dir.write("jt.json", R"({"job_types": []})")) == "job-types");
  CHECK(throughput_file_kind(dir.write("heet.json", R"({"epoch_time_s": {}})")) == "heet-profile");
}

TEST_CASE("spec: the real ElasticFlow profiles folder is accepted as throughputs", "[experiment][spec][data]") {
  auto profiles = test::shared_data("elasticflow-profiles");
  if (!profiles) return;
  test::TempDir dir("specflags-efdata");
  const std::string path =
      dir.write("s.json", R"({"policies": ["fifo"], "throughputs": ")" + *profiles + R"(", "cluster": "default"})");
  CHECK(setting(load(path), "throughputs") == std::filesystem::path(*profiles).lexically_normal().generic_string());
}

TEST_CASE("docs: experiment-spec.md lists every accepted value of the enumerated keys", "[experiment][spec][docs]") {
  auto lists_all = [](const std::string& key, const std::vector<std::string>& names) {
    const std::string row = doc_row(key);
    for (const std::string& n : names) {
      INFO(key << ": " << n);
      CHECK_THAT(row, Contains("`" + n + "`"));
    }
  };
  lists_all("format", trace_format_names());
  lists_all("model", throughput_model_names());
  lists_all("placement", placement_names());
  lists_all("mechanism", {"auto", "event", "gavel"});
  lists_all("step_model", {"pollux-table", "pollux-fit"});
  const std::string cluster = doc_row("cluster");
  for (const char* prefix : {"alibaba-openb:", "alibaba-pai:", "alibaba-spot:"}) CHECK_THAT(cluster, Contains(prefix));
  const std::string throughputs = doc_row("throughputs");
  for (const char* kind : {"Gavel", "Heet", "job-types", "ElasticFlow"}) CHECK_THAT(throughputs, Contains(kind));
  // The keys' help texts are built from the same lists.
  for (const RunKey& k : run_keys()) {
    if (k.name == "format")
      for (const std::string& n : trace_format_names()) CHECK_THAT(k.help, Contains(n));
    if (k.name == "model")
      for (const std::string& n : throughput_model_names()) CHECK_THAT(k.help, Contains(n));
  }
  REQUIRE(trace_format_names().size() == 9);
  for (const std::string& n : trace_format_names()) CHECK(parse_trace_format(n));
}

TEST_CASE("cli: flags that would be ignored are errors", "[cli]") {
  // Placement belongs to the event mechanism; the gavel mechanism places jobs itself.
  expect_input_error("run -q --mechanism gavel --policy gavel-maxmin --placement spread",
                     "field '--placement': 'spread' applies to the event mechanism only; policy 'gavel-maxmin' runs "
                     "under the gavel mechanism, which places jobs itself");
  expect_input_error("run -q --policy gavel-maxmin --placement topology-aware",  // auto = gavel here
                     "field '--placement': 'topology-aware' applies to the event mechanism only");
  expect_input_error("compare -q --policies fifo,gavel-maxmin --mechanism gavel --placement random",
                     "field '--placement': 'random' applies to the event mechanism only");
  // Goodput-model flags without a workload.
  const std::string why = "only applies to a Pollux/Sia workload (the goodput model): add --workload or drop it";
  expect_input_error("run -q --step-model pollux-fit", "field '--step-model': " + why);
  expect_input_error("run -q --step-model pollux-table", "field '--step-model': " + why);  // even the default
  expect_input_error("run -q --exact-epochs", "field '--exact-epochs': " + why);
  expect_input_error("run -q --sia-restart-costs", "field '--sia-restart-costs': " + why);
  test::TempDir dir("specflags-ignored");
  const std::string spec = dir.write("ee.json", R"({"policies": ["fifo"], "exact_epochs": true})");
  expect_input_error("sweep --dry-run " + spec, "ee.json: field 'exact_epochs': point fifo: " + why);
  const std::string gp = dir.write("gp.json", R"({"policies": ["gavel-maxmin"], "placement": "spread"})");
  expect_input_error("sweep --dry-run " + gp, "gp.json");
  expect_input_error("sweep --dry-run " + gp, "'spread' applies to the event mechanism only");
  // Still accepted: the default placement under gavel, a placement under the event mechanism.
  auto r = run_cli("run -q --mechanism gavel --policy gavel-maxmin --placement consolidate --interval 3600");
  CHECK(r.exit_code == 0);
  r = run_cli("run -q --placement spread");
  CHECK(r.exit_code == 0);
}

TEST_CASE("json inputs: a key repeated in one object names the file, line and key", "[util][json]") {
  test::TempDir dir("specflags-dupkeys");
  const std::string cluster = dir.write("lab.json",
                                        "{\n"
                                        "  \"gpu_types\": [{\"name\": \"v100\"}],\n"
                                        "  \"nodes\": [\n"
                                        "    {\"gpu_type\": \"v100\", \"gpus\": 4},\n"
                                        "    {\"gpu_type\": \"v100\",\n"
                                        "     \"gpus\": 4,\n"
                                        "     \"gpus\": 8}\n"
                                        "  ]\n"
                                        "}\n");
  CHECK_THROWS_WITH(parse_json_file(cluster),
                    Contains("lab.json:7: field 'gpus': duplicate key (first given on line 6); give each key once"));
  expect_input_error("run -q --cluster " + cluster, "lab.json:7: field 'gpus': duplicate key (first given on line 6)");
  // The same key in different objects, and a key-like string value, are fine.
  const std::string ok = dir.write("ok.json", "{\"a\": {\"x\": 1}, \"b\": {\"x\": \"\\\"a\\\": 2\"}, \"c\": [{\"x\": 1}, {\"x\": 2}]}");
  CHECK(parse_json_file(ok)["c"][1]["x"] == 2);
  // Experiment specs (ordered parser), also inside nested objects; escaped quotes do not shift lines.
  const std::string spec = dir.write("s.json",
                                     "{\"policies\": [\"fifo\"], \"note\\\"\": 1,\n"
                                     " \"generator\": {\"jobs\": 3,\n"
                                     "   \"jobs\": 4}}\n");
  CHECK_THROWS_WITH(read_json_file(spec), Contains("s.json:3: field 'jobs': duplicate key (first given on line 2)"));
  const std::string seed = dir.write("seed.json", "{\"policies\": [\"fifo\"],\n \"seed\": 1,\n \"seed\": 2}\n");
  expect_input_error("sweep --dry-run " + seed, "seed.json:3: field 'seed': duplicate key (first given on line 2)");
}

TEST_CASE("json inputs: a number beyond double's range names the file, line and key, exit 2", "[util][json]") {
  test::TempDir dir("specflags-overflow");
  const std::string cluster = dir.write("big.json",
                                        "{\n"
                                        "  \"gpu_types\": [{\"name\": \"v100\"}],\n"
                                        "  \"nodes\": [{\"gpu_type\": \"v100\",\n"
                                        "             \"gpus\": 1e400}]\n"
                                        "}\n");
  CHECK_THROWS_WITH(parse_json_file(cluster), Contains("big.json:4: field 'gpus': number out of range"));
  expect_input_error("run -q --cluster " + cluster, "big.json:4: field 'gpus': number out of range (beyond +-1.8e308)");
  const std::string spec = dir.write("s.json", "{\"policies\": [\"fifo\"],\n \"seed\": -1e999}\n");
  expect_input_error("sweep --dry-run " + spec, "s.json:2: field 'seed': number out of range");
}

TEST_CASE("cli: an empty number and a repeated key are refused, not read as 0 or overwritten", "[cli]") {
  for (const char* flag : {"--until", "--interval", "--restart-overhead", "--seed", "--cluster-scale"})
    expect_input_error(std::string("run -q ") + flag + " ''", "field '" + std::string(flag) + "': expected a number, got an empty value");
  expect_input_error("run -q --model-param network_efficiency=0.5 --model-param network_efficiency=0.7",
                     "field '--model-param': key 'network_efficiency' given twice ('network_efficiency=0.5' and "
                     "'network_efficiency=0.7'); give each key once");
  expect_input_error("run -q --param a=1 --param a=2", "key 'a' given twice");
  for (const char* flag : {"--trace", "--throughputs", "--out", "--timeline", "--cluster"})
    expect_input_error(std::string("run -q ") + flag + " ''", "field '" + std::string(flag) + "': expected a value, got an empty one");
}

TEST_CASE("cli: a round due beyond the 1e12 s horizon never comes, its jobs end unfinished, at once", "[cli]") {
  test::TempDir dir("specflags-horizon");
  // A runs in the first round (t=0); B and C arrive later and join the next round at 1e12 s,
  // where they start but cannot finish; nothing after that round is scheduled.
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,8,10\nB,5,8,10\nC,6,8,10\n");
  const std::string out = (dir.path / "o").string();
  const auto r = run_cli("run -q --trace " + trace + " --interval 1e12 --out " + out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("2 of 3 jobs did not finish without an --until horizon"));
  const std::string jobs = test::slurp(out + "/jobs.csv");
  CHECK_THAT(jobs, Contains("A,0.000000,0.000000,10.000000,10.000000"));
  CHECK_THAT(jobs, Contains("B,5.000000,1000000000000.000000,,,999999999995.000000,8,8,v100,0,0,0.000000,0.000000,unfinished,"
                            "would finish beyond the simulation horizon of 1e+12 s on its GPUs"));
}

TEST_CASE("sweep and check: an undeclared model parameter or a malformed trace fails at spec load", "[cli][experiment]") {
  test::TempDir dir("specflags-load");
  const std::string model = dir.write("m.json", "{\"policies\": [\"fifo\"], \"model_param.foo\": 1}\n");
  expect_input_error("sweep --dry-run " + model, "has no parameter 'foo'");
  const std::string trace = dir.write("bad.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,one,10\n");
  const std::string spec = dir.write("t.json", "{\"policies\": [\"fifo\", \"srtf\"], \"trace\": \"bad.csv\"}\n");
  expect_input_error("sweep --dry-run " + spec, "bad.csv:2: field 'num_gpus'");
  expect_input_error("check " + spec + " --baseline " + (dir.path / "b.csv").string() + " --update-baseline", "bad.csv:2: field 'num_gpus'");
}

TEST_CASE("cli: seeds beyond 2^64-1 are refused, not clamped", "[cli]") {
  const std::string msg = "must be a non-negative integer (0 .. 18446744073709551615), got '";
  expect_input_error("run -q --seed 18446744073709551616", msg + "18446744073709551616'");
  expect_input_error("run -q --seed 99999999999999999999999", msg + "99999999999999999999999'");
  expect_input_error("compare -q --policies fifo --seed 18446744073709551616", msg + "18446744073709551616'");
  expect_input_error("predict-check --seed 18446744073709551616", msg + "18446744073709551616'");
  auto r = run_cli("run -q --seed 18446744073709551615");
  CHECK(r.exit_code == 0);
  // A spec seed beyond the range is not a JSON integer at all: JSON reads it as a double.
  test::TempDir dir("specflags-seed");
  const std::string spec = dir.write("s.json", R"({"policies": ["fifo"], "seed": 18446744073709551616})");
  expect_input_error("sweep --dry-run " + spec, "s.json: field 'seed': an integer out of range: 1.8446744073709552e+19");
}

TEST_CASE("cli: model and cluster errors name the real cause", "[cli]") {
  test::TempDir dir("specflags-msgs");
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,1,10\n");
  expect_input_error("run -q --trace " + trace + " --model-param overlap=0.5",
                     "field '--model-param overlap': without --throughputs the model is 'duration', which takes no "
                     "parameters");
  expect_input_error("run -q --trace " + trace + " --model-param spread=consolidated",
                     "without --throughputs the model is 'duration'");
  // "auto" resolves to the table's model before its parameters are checked.
  const std::string heet = dir.write("heet.json", R"({"epoch_time_s": {"v100": {}}})");
  CHECK_THROWS_WITH(make_throughput_model("auto", heet, {{"spread", "consolidated"}}, *make_preset("default")),
                    Contains("model 'heet-profile' takes no parameters"));
  expect_input_error("run -q --cluster alibaba-openb:",
                     "field '--cluster': 'alibaba-openb:' names no inventory file: the path after the colon is empty");
  expect_input_error("run -q --cluster alibaba-spot:", "field '--cluster': 'alibaba-spot:' names no inventory file");
  const std::string spot = dir.write("spot.csv", "gpu_model,gpu_capacity_num,cpu_num,node_name\nA10,4,32,7\nA10,2,32,7\n");
  expect_input_error("run -q --cluster alibaba-spot:" + spot,
                     "spot.csv:3: field 'node_name': node name 'node-7' already used on line 2");
  const std::string openb = dir.write("openb.csv", "sn,cpu_milli,memory_mib,gpu,model\np0,64000,262144,2,P100\np0,1,1,1,P100\n");
  expect_input_error("run -q --cluster " + openb, "openb.csv:3: field 'sn': node name 'p0' already used on line 2");
}

TEST_CASE("cli: a round length the longest job alone needs more than kMaxRounds of is refused up front", "[cli]") {
  REQUIRE(kMaxRounds == 1e8);
  test::TempDir dir("specflags-rounds");
  // One job of 1e6 s on one GPU: 1e9 rounds of 1 ms, ten times the limit.
  const std::string trace = dir.write("t.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,1,1000000\n");
  expect_input_error("run -q --trace " + trace + " --interval 0.001",
                     "field '--interval': job 'A' alone needs 1e+06 s (its work at its best rate plus the restart "
                     "overhead): at least 1e+09 rounds of 0.001 s (limit 1e+08): use --interval 0.01 or more, or "
                     "--interval 0 (event-driven)");
  expect_input_error("run -q --trace " + trace + " --mechanism gavel --policy gavel-maxmin --interval 0.001",
                     "at least 1e+09 rounds of 0.001 s (limit 1e+08): use --interval 0.01 or more");
  // compare checks the inputs once before running its policies.
  expect_input_error("compare -q --policies fifo,srtf --trace " + trace + " --interval 0.001", "at least 1e+09 rounds");
  // A restart overhead counts too: 1e12 s of it in 360 s rounds.
  const std::string short_job = dir.write("s.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,1,10\n");
  expect_input_error("run -q --trace " + short_job + " --mechanism gavel --policy gavel-maxmin --restart-overhead 1e12",
                     "job 'A' alone needs 1e+12 s");
  // Idle time takes no rounds: two 10 s jobs 2e5 s apart run (2e4 rounds), though the arrival
  // span is 2e8 rounds of 1 ms.
  const std::string apart = dir.write("a.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,1,10\nB,200000,1,10\n");
  CHECK(run_cli("run -q --trace " + apart + " --interval 0.001").exit_code == 0);
  CHECK(run_cli("run -q --trace " + apart + " --mechanism gavel --policy gavel-maxmin --interval 0.001").exit_code == 0);
}

TEST_CASE("cli: predict-check refuses infinite or negative ridge weights", "[cli]") {
  expect_input_error("predict-check --lambda inf", "field '--lambda': must be a finite number, not negative");
  expect_input_error("predict-check --lambda -1", "field '--lambda': must be a finite number, not negative");
  expect_input_error("predict-check --table-lambda inf", "field '--table-lambda': must be a finite number, not negative");
}
