// Portable results (issue 18 item 6): point ids, the tables, point.json and summary.json carry no
// absolute path even when the spec names its files by absolute paths.
#include <filesystem>
#include <fmt/format.h>

#include "hetsim/experiment/results.hpp"
#include "hetsim/experiment/sweep.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
namespace fs = std::filesystem;

namespace {

const char* kTrace = "job_id,submit_s,num_gpus,duration_s\na,0,1,10\nb,5,2,20\n";

// Two traces with the same file name in different folders, named by absolute paths.
std::string absolute_spec(const test::TempDir& dir) {
  dir.write("data/seed=0/x.csv", kTrace);
  dir.write("data/seed=1/x.csv", kTrace);
  const std::string root = fs::absolute(dir.path).generic_string();
  return fmt::format(R"({{"cluster": "default", "policies": ["fifo"],
    "sweep": {{"trace": ["{0}/data/seed=0/x.csv", "{0}/data/seed=1/x.csv"]}},
    "metrics": ["completed"]}})", root);
}

}  // namespace

TEST_CASE("portable results: point ids have no absolute path when the spec uses absolute ones", "[experiment][portable]") {
  test::TempDir dir("portable-ids");
  const std::string text = absolute_spec(dir);
  PolicyRegistry registry = make_default_registry();
  const std::string spec_path = dir.write("spec/s.json", text);
  const auto spec = parse_experiment_spec(nlohmann::ordered_json::parse(text), spec_path, registry);
  const auto points = expand_points(spec, registry);
  REQUIRE(points.size() == 2);
  // The fewest trailing components that tell the two apart: the file names alone would collide.
  CHECK(points[0].id == "fifo__trace=seed=0_x.csv");
  CHECK(points[1].axis_values[0].second == "seed=1/x.csv");
  const std::string root = fs::absolute(dir.path).generic_string();
  for (const ExperimentPoint& p : points) {
    CHECK(p.id.find(root) == std::string::npos);
    CHECK(p.fingerprint.find(root) == std::string::npos);
    CHECK_THAT(p.fingerprint, Catch::Contains("../data/seed="));  // relative to the spec's folder
  }
  SweepOptions o;
  o.out_dir = (dir.path / "out").string();
  REQUIRE(run_sweep(spec, points, registry, o).done == 2);
  for (const char* name : {"results.csv", "points.csv", "failures.csv"})
    CHECK(test::slurp(dir.path / "out" / name).find(root) == std::string::npos);
  const std::string summary = test::slurp(dir.path / "out/points" / points[0].id / "summary.json");
  CHECK_THAT(summary, Catch::Contains("\"trace\": \"x.csv\""));
  CHECK_THAT(summary, Catch::Contains("\"busy_gpu_s_by_type\""));
}

TEST_CASE("portable results: a resume from another working directory finds the finished points", "[experiment][portable]") {
  test::TempDir dir("portable-resume");
  const std::string text = absolute_spec(dir);
  PolicyRegistry registry = make_default_registry();
  const std::string spec_path = dir.write("spec/s.json", text);
  const auto first = parse_experiment_spec(nlohmann::ordered_json::parse(text), spec_path, registry);
  SweepOptions o;
  o.out_dir = fs::absolute(dir.path / "out").string();
  REQUIRE(run_sweep(first, expand_points(first, registry), registry, o).ran == 2);
  // The same spec named relative to another working directory: same ids, same fingerprints.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path);
  const auto again = parse_experiment_spec(nlohmann::ordered_json::parse(text), "spec/s.json", registry);
  const auto points = expand_points(again, registry);
  const SweepCounts c = run_sweep(again, points, registry, o);
  fs::current_path(cwd);
  CHECK(c.skipped == 2);
  CHECK(c.ran == 0);
}
