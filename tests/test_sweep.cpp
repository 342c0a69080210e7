// Sweeps: results tables, resume, failed points, shards merged byte for byte, compare order.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <sstream>

#include "hetsim/experiment/compare.hpp"
#include "hetsim/experiment/results.hpp"
#include "hetsim/experiment/sweep.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
namespace fs = std::filesystem;

namespace {

// Six tiny points on the built-in default workload: 2 policies x 3 seeds.
const char* kSpec = R"({
  "name": "tiny", "cluster": "default",
  "policies": ["fifo", "srtf"],
  "sweep": {"seed": [0, 1, 2]},
  "metrics": ["completed", "jct_mean_s", "makespan_s"]
})";

// Every regular file under `root` by relative path, with its bytes.
std::map<std::string, std::string> tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files[fs::relative(e.path(), root).generic_string()] = test::slurp(e.path());
  return files;
}

}  // namespace

TEST_CASE("sweep: tidy results, one row per point and metric, and resume skips finished points", "[experiment][sweep]") {
  test::TempDir dir("sweep-basic");
  PolicyRegistry registry = make_default_registry();
  const auto spec = parse_experiment_spec(nlohmann::ordered_json::parse(kSpec), dir.write("s.json", kSpec), registry);
  const auto points = expand_points(spec, registry);
  SweepOptions o;
  o.out_dir = (dir.path / "out").string();
  o.threads = 2;
  std::size_t calls = 0;
  o.progress = [&](std::size_t done, std::size_t total, std::size_t) {
    ++calls;
    CHECK(done <= total);
  };
  SweepCounts c = run_sweep(spec, points, registry, o);
  CHECK(c.in_shard == 6);
  CHECK(c.ran == 6);
  CHECK(c.done == 6);
  CHECK(c.failed == 0);
  CHECK(calls == 6);
  const auto rows = read_results_csv((dir.path / "out/results.csv").string());
  REQUIRE(rows.size() == 6 * 3);
  CHECK(rows[0].point == "fifo__seed=0");
  CHECK(rows[0].metric == "completed");
  CHECK(rows[0].value == 60);  // the built-in workload has 60 jobs, all complete
  CHECK(rows[3].point == "srtf__seed=0");
  CHECK(rows[3].axis_values.at(0) == std::make_pair(std::string("seed"), std::string("0")));
  // The metric equals what the run wrote in its summary.json.
  const auto summary = summary_metrics(test::slurp(dir.path / "out/points/fifo__seed=0/summary.json"), "x");
  for (const auto& [k, v] : summary)
    if (k == "jct_mean_s") CHECK(rows[1].value == v);
  CHECK(fs::exists(dir.path / "out/points/fifo__seed=0/utilization.csv"));
  CHECK(fs::exists(dir.path / "out/points/fifo__seed=0/DONE"));

  // Resume: nothing is redone, and a point whose marker is gone (an interrupted run) is redone.
  const auto before = test::slurp(dir.path / "out/results.csv");
  fs::remove(dir.path / "out/points/srtf__seed=2/DONE");
  c = run_sweep(spec, points, registry, o);
  CHECK(c.skipped == 5);
  CHECK(c.ran == 1);
  CHECK(test::slurp(dir.path / "out/results.csv") == before);
  // A point folder from another spec (different fingerprint) is not trusted.
  dir.write("out/points/fifo__seed=1/point.json", "{}");
  c = run_sweep(spec, points, registry, o);
  CHECK(c.ran == 1);
  // DONE records each output's size and checksum: a jobs.csv cut short (a full disk, a copy
  // interrupted) or changed since is not trusted, the point runs again and the file is whole.
  const fs::path jobs = dir.path / "out/points/srtf__seed=1/jobs.csv";
  const std::string whole = test::slurp(jobs);
  CHECK_THAT(test::slurp(dir.path / "out/points/srtf__seed=1/DONE"),
             Catch::StartsWith(fmt::format("jobs.csv {} ", whole.size())));
  fs::resize_file(jobs, whole.size() / 2);
  const auto srtf1 = std::find_if(points.begin(), points.end(), [](const auto& p) { return p.id == "srtf__seed=1"; });
  REQUIRE(srtf1 != points.end());
  CHECK(point_status((dir.path / "out/points/srtf__seed=1").string(), srtf1->fingerprint) == PointStatus::Missing);
  c = run_sweep(spec, points, registry, o);
  CHECK(c.ran == 1);
  CHECK(test::slurp(jobs) == whole);
  o.resume = false;
  CHECK(run_sweep(spec, points, registry, o).ran == 6);
}

TEST_CASE("sweep: a point that fails mid-sweep is recorded with its error, the others complete", "[experiment][sweep]") {
  test::TempDir dir("sweep-fail");
  dir.write("good.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,10\nb,5,2,20\n");
  dir.write("bad.csv", "job_id,submit_s,num_gpus,duration_s\na,0,one,10\n");
  const std::string text = R"({"policies": ["fifo", "srtf"], "sweep": {"trace": ["good.csv", "bad.csv"]}})";
  PolicyRegistry registry = make_default_registry();
  const auto spec = parse_experiment_spec(nlohmann::ordered_json::parse(text), dir.write("s.json", text), registry);
  const auto points = expand_points(spec, registry);
  SweepOptions o;
  o.out_dir = (dir.path / "out").string();
  o.threads = 2;
  const SweepCounts c = run_sweep(spec, points, registry, o);
  CHECK(c.done == 2);
  CHECK(c.failed == 2);
  const std::string failures = test::slurp(dir.path / "out/failures.csv");
  CHECK_THAT(failures, Catch::Contains("fifo__trace=") && Catch::Contains("bad.csv:2") && Catch::Contains("num_gpus"));
  const auto metrics = summary_metrics(test::slurp(dir.path / ("out/points/" + points[0].id + "/summary.json")), "x");
  CHECK(metrics.size() > 10);
  CHECK(read_results_csv((dir.path / "out/results.csv").string()).size() == 2 * metrics.size());
  CHECK(fs::exists(dir.path / ("out/points/" + points[2].id + "/FAILED")));
}

TEST_CASE("sweep: N shards merged equal one unsharded run, byte for byte", "[experiment][sweep][shard]") {
  test::TempDir dir("sweep-shards");
  PolicyRegistry registry = make_default_registry();
  const auto spec = parse_experiment_spec(nlohmann::ordered_json::parse(kSpec), dir.write("s.json", kSpec), registry);
  const auto points = expand_points(spec, registry);
  SweepOptions whole;
  whole.out_dir = (dir.path / "whole").string();
  whole.threads = 2;
  run_sweep(spec, points, registry, whole);

  for (int n : {1, 4, 7}) {  // 7 shards > 6 points: some shards are empty
    std::vector<std::string> shard_dirs;
    std::size_t covered = 0;
    for (int i = 0; i < n; ++i) {
      SweepOptions o;
      o.out_dir = (dir.path / fmt::format("n{}-shard{}", n, i)).string();
      o.shard = Shard{i, n};
      covered += run_sweep(spec, points, registry, o).in_shard;
      shard_dirs.push_back(o.out_dir);
    }
    CHECK(covered == points.size());
    const std::string merged = (dir.path / fmt::format("merged{}", n)).string();
    const SweepCounts c = merge_sweeps(spec, points, merged, shard_dirs);
    CHECK(c.done == points.size());
    CHECK(c.failed == 0);
    CHECK(tree(merged) == tree(whole.out_dir));
  }
  CHECK(fs::exists(dir.path / "n4-shard3/results.shard-3-of-4.csv"));
  // Shards sharing one folder (a cluster file system): merge into that folder itself.
  const fs::path shared = dir.path / "shared";
  for (int i = 0; i < 3; ++i) {
    SweepOptions o;
    o.out_dir = shared.string();
    o.shard = Shard{i, 3};
    run_sweep(spec, points, registry, o);
  }
  CHECK(merge_sweeps(spec, points, shared.string(), {shared.string()}).done == points.size());
  auto files = tree(shared);
  std::erase_if(files, [](const auto& f) { return f.first.find(".shard-") != std::string::npos; });
  CHECK(files == tree(whole.out_dir));
  // A missing shard leaves its points "not run" in failures.csv.
  std::vector<std::string> partial{(dir.path / "n4-shard0").string()};
  const SweepCounts c = merge_sweeps(spec, points, (dir.path / "partial").string(), partial);
  CHECK(c.done == 2);  // points 0 and 4
  CHECK(c.failed == 4);
  CHECK_THAT(test::slurp(dir.path / "partial/failures.csv"), Catch::Contains("not run"));
  // No shard named and a mistyped --out: an input error, and nothing is created.
  const fs::path typo = dir.path / "no-such-sweep";
  CHECK_THROWS_WITH(merge_sweeps(spec, points, typo.string(), {typo.string()}),
                    Catch::Contains("no-such-sweep") && Catch::Contains("not a sweep output folder"));
  CHECK_FALSE(fs::exists(typo));
  CHECK(parse_shard("2/5").index == 2);
  CHECK_THROWS_WITH(parse_shard("5/5"), Catch::Contains("--shard"));
  CHECK_THROWS(parse_shard("1"));
}

TEST_CASE("compare: entries keep the policy order whatever the threads, and match single runs", "[experiment][compare]") {
  PolicyRegistry registry = make_default_registry();
  RunSpec base;  // the built-in default
  std::vector<PolicyVariant> policies{{"srtf", "srtf", {}}, {"fifo", "fifo", {}}, {"fifo-fast", "fifo", {{"gpu_type", "fastest"}}}};
  const auto parallel = compare_policies(base, policies, registry, 3);
  const auto serial = compare_policies(base, policies, registry, 1);
  REQUIRE(parallel.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(parallel[i].policy == policies[i].label);
    CHECK(parallel[i].error.empty());
    CHECK(parallel[i].metrics == serial[i].metrics);
  }
  RunSpec one = base;
  one.policy = "srtf";
  CHECK(parallel[0].output->summary.jct_mean_s == run_simulation(one, registry).summary.jct_mean_s);
  std::ostringstream table, csv;
  print_compare_table(table, parallel);
  write_compare_csv(csv, parallel);
  CHECK_THAT(table.str(), Catch::Contains("JCT p99 (s)") && Catch::Contains("fifo-fast"));
  CHECK_THAT(csv.str(), Catch::StartsWith("policy,status,error,jobs_read,completed"));
  // A failing policy is reported in its row; the others still run.
  RunSpec broken = base;
  broken.trace = "/nonexistent.trace";
  const auto failed = compare_policies(broken, policies, registry, 2);
  CHECK_THAT(failed[1].error, Catch::Contains("nonexistent.trace"));
}
