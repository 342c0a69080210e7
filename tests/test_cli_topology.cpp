// `hetsim topology` and the run options of the topology work (--model, --placement), as a user
// meets them: exit codes, messages naming the field, the DOT file.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace {

using hetsim::test::expect_input_error;
using hetsim::test::run_cli;

std::filesystem::path topology_temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("hetsim-test-topology-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("cli topology: summary and a DOT file of sia-64") {
  const std::string dot = (topology_temp_dir() / "sia.dot").string();
  const auto r = run_cli("topology --cluster sia-64 --dot " + dot);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("64 GPUs on 11 nodes in 3 racks") &&
                           Catch::Contains("a100-0 .. a100-1 (2 nodes): 8 x a100, nvswitch 300 GB/s per GPU"));
  std::ifstream in(dot);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.rfind("graph G {", 0) == 0);
  CHECK_THAT(text, Catch::Contains("\"spine\"") && Catch::Contains("nvswitch 300 GB/s"));
}

TEST_CASE("cli topology: a GPU set's locality and communication times") {
  const auto r = run_cli("topology --cluster gavel-108-2rack --gpus 0,1,4,5 --bytes 1e9");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("locality multi-rack") && Catch::Contains("node=ar rack=- cluster=ar"));
  CHECK(run_cli("topology --gpus 0,0").exit_code == 2);
  CHECK_THAT(run_cli("topology --gpus 99").output, Catch::Contains("--gpus"));
}

TEST_CASE("cli topology: a bad network spec exits 2 naming the field") {
  const std::string spec = (topology_temp_dir() / "bad-net.json").string();
  std::ofstream(spec) << R"({"gpu_types": [{"name": "g"}],
    "nodes": [{"gpu_type": "g", "gpus": 4, "interconnect": {"kind": "infiniband"}}]})";
  const auto r = run_cli("topology --cluster " + spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("nodes[0].interconnect.kind") && Catch::Contains("infiniband"));
}

TEST_CASE("cli run: unknown model or placement, analytic without a profile") {
  auto r = run_cli("run --placement best");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--placement") && Catch::Contains("topology-aware"));
  expect_input_error("run --model magic", "--model");
  expect_input_error("run --model analytic", "--throughputs");
  r = run_cli("run -q --placement spread");
  CHECK(r.exit_code == 0);
}

TEST_CASE("cli topology: node runs name exactly the nodes of each rack") {
  // gavel-108-2rack alternates racks: rack0 holds v100-0, 2, 4, 6, 8 and rack1 v100-1, 3, 5, 7.
  const auto r = run_cli("topology --cluster gavel-108-2rack");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("rack rack0: 15 nodes, 60 GPUs") &&
                           Catch::Contains("  v100-0, v100-2, .., v100-8 (5 nodes, every 2nd number): 4 x v100") &&
                           Catch::Contains("  k80-1, k80-3, .., k80-7 (4 nodes, every 2nd number): 4 x k80"));
  CHECK_THAT(r.output, !Catch::Contains("v100-0 .. v100-8") && !Catch::Contains("v100-1 .. v100-7"));
  // Consecutive numbers keep the short range form.
  CHECK_THAT(run_cli("topology --cluster gavel-108").output, Catch::Contains("  v100-0 .. v100-8 (9 nodes): 4 x v100"));
}

TEST_CASE("cli topology: huge --bytes prints times in scientific notation, not hundreds of digits") {
  const auto r = run_cli("topology --cluster gavel-108 --gpus 0,1 --bytes 1e300");
  CHECK(r.exit_code == 0);
  std::istringstream lines(r.output);
  std::string line;
  int times = 0;
  while (std::getline(lines, line)) {
    INFO(line);
    CHECK(line.size() < 120);
    if (line.find(" s   ") != std::string::npos) {
      ++times;
      CHECK_THAT(line, Catch::Contains("e+2"));  // ~1e300 bytes over GB/s links: ~1e290 s
    }
  }
  CHECK(times == 4);  // ring, hierarchical, ps, auto
  // Two V100s of one node, NVLink 150 GB/s per direction: a 2-GPU ring moves the whole buffer once.
  CHECK_THAT(r.output, Catch::Contains("  ring          6.666667e+288 s"));
  // Below 1e9 s the fixed format with microseconds stays.
  const auto small = run_cli("topology --cluster gavel-108 --gpus 0,1 --bytes 0");
  CHECK_THAT(small.output, Catch::Contains("0.000000 s"));
}
