// Determinism over the whole policy registry, through the CLI as a user runs it (one process per
// run, so hash seeds and allocation addresses differ between the two runs compared):
//  - every registered policy run twice on the same inputs and seed writes byte-identical files;
//  - compare and sweep on 1 and 2 threads (--jobs) write byte-identical output folders.
// No output file is excluded: none records timing (wall time and solver seconds go to stdout only,
// docs/architecture.md "Determinism"); the folder comparison would show one that did.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "hetsim/policy/registry.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
namespace fs = std::filesystem;

namespace {

// Every regular file under `root`, by path relative to it, with its bytes.
std::map<std::string, std::string> folder_contents(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file()) files[fs::relative(entry.path(), root).generic_string()] = test::slurp(entry.path());
  return files;
}

// The two folders hold the same files with the same bytes; names the first difference.
void require_same_folders(const fs::path& a, const fs::path& b) {
  const auto fa = folder_contents(a), fb = folder_contents(b);
  std::vector<std::string> names_a, names_b;
  for (const auto& [name, bytes] : fa) names_a.push_back(name);
  for (const auto& [name, bytes] : fb) names_b.push_back(name);
  REQUIRE(names_a == names_b);
  REQUIRE_FALSE(names_a.empty());
  for (const auto& [name, bytes] : fa) {
    INFO("file " << name << " differs between " << a << " and " << b);
    CHECK(bytes == fb.at(name));
  }
}

std::string shell_quoted(const fs::path& p) { return fmt::format("'{}'", p.string()); }

// The two fixtures: the built-in synthetic workload on the default cluster (no files), with a
// restart overhead so preemptions cost; and, for the goodput policies that need one, the first 8
// jobs of Pollux workload 1 on pollux-64 in 60 s rounds (shared data).
const std::string kSyntheticArgs = "--seed 7 --restart-overhead 5";

struct PolluxFixture {
  std::string args;  // empty when the shared data is absent
};

PolluxFixture pollux_fixture(const test::TempDir& dir) {
  auto workload = test::shared_data("pollux/workloads/workload-1.csv");
  auto profiles = test::shared_data("pollux/traces");
  if (!workload || !profiles) return {};
  const std::string text = test::slurp(*workload);
  std::size_t pos = 0;
  for (int line = 0; line < 9 && pos != std::string::npos; ++line) pos = text.find('\n', pos + 1);
  const std::string small = dir.write("pollux8.csv", text.substr(0, pos + 1));
  return {"--cluster pollux-64 --workload " + shell_quoted(small) + " --profiles " + shell_quoted(*profiles) +
          " --interval 60 --seed 7"};
}

bool needs_goodput_workload(const test::CliResult& r) {
  return r.exit_code == 2 && r.output.find("needs a Pollux/Sia workload") != std::string::npos;
}

// allox matches jobs to single GPUs (the synthetic workload has multi-GPU jobs, which it rejects,
// exit code 3): it runs on a trace of 1-GPU jobs instead, on the default cluster with the same seed
// and restart overhead, so that the comparison covers a run with every job completed.
bool needs_single_gpu_jobs(const test::CliResult& r) {
  return r.exit_code == 3 && r.output.find("matches jobs to single GPUs") != std::string::npos;
}

std::string single_gpu_fixture(const test::TempDir& dir) {
  const std::string trace = dir.write("single.csv",
                                      "job_id,submit_s,num_gpus,duration_s\n"
                                      "a,0,1,600\nb,0,1,300\nc,10,1,900\nd,20,1,120\ne,400,1,50\nf,400,1,700\n");
  return kSyntheticArgs + " --trace " + shell_quoted(trace);
}

}  // namespace

TEST_CASE("determinism: every registered policy, run twice, writes byte-identical outputs") {
  test::TempDir dir("determinism-policies");
  const PolluxFixture pollux = pollux_fixture(dir);
  const PolicyRegistry registry = make_default_registry();
  std::vector<std::string> on_synthetic, on_pollux, on_single_gpu, skipped;
  for (const PolicyInfo& info : registry.all()) {
    INFO("policy " << info.name);
    const fs::path a = dir.path / info.name / "a", b = dir.path / info.name / "b";
    auto run = [&](const std::string& fixture, const fs::path& out) {
      return test::run_cli("run -q --policy " + info.name + " " + fixture + " --out " + shell_quoted(out) +
                           " --timeline " + shell_quoted(out / "timeline.json"));
    };
    std::string fixture = kSyntheticArgs;
    test::CliResult first = run(fixture, a);
    if (needs_goodput_workload(first)) {
      if (pollux.args.empty()) {
        skipped.push_back(info.name);
        continue;
      }
      fixture = pollux.args;
      first = run(fixture, a);
      on_pollux.push_back(info.name);
    } else if (needs_single_gpu_jobs(first)) {
      fixture = single_gpu_fixture(dir);
      first = run(fixture, a);
      on_single_gpu.push_back(info.name);
    } else {
      on_synthetic.push_back(info.name);
    }
    REQUIRE(first.exit_code == 0);
    REQUIRE(run(fixture, b).exit_code == 0);
    CHECK(fs::exists(a / "jobs.csv"));
    CHECK(fs::exists(a / "summary.json"));
    require_same_folders(a, b);
  }
  if (!skipped.empty()) {
    std::string names;
    for (const std::string& n : skipped) names += " " + n;
    WARN("SKIPPED (they need a Pollux/Sia workload and the shared data is absent):" << names);
  }
  CHECK(on_synthetic.size() + on_pollux.size() + on_single_gpu.size() + skipped.size() == registry.all().size());
  CHECK(on_synthetic.size() >= 10);
}

namespace {

// The registered policies that run on `fixture` (the others need a goodput workload), comma-joined.
std::vector<std::string> policies_running_on(const std::string& fixture, const test::TempDir& dir) {
  std::vector<std::string> names;
  const PolicyRegistry registry = make_default_registry();
  for (const PolicyInfo& info : registry.all()) {
    const test::CliResult r =
        test::run_cli("run -q --policy " + info.name + " " + fixture + " --out " + shell_quoted(dir.path / "probe"));
    if (r.exit_code == 0) names.push_back(info.name);
  }
  return names;
}

std::string joined(const std::vector<std::string>& names, const std::string& before, const std::string& after,
                   const std::string& separator) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += separator;
    out += before;
    out += n;
    out += after;
  }
  return out;
}

}  // namespace

TEST_CASE("determinism: compare on 1 and 2 threads writes byte-identical folders") {
  test::TempDir dir("determinism-compare");
  const std::string policies = joined(policies_running_on(kSyntheticArgs, dir), "", "", ",");
  INFO("policies " << policies);
  REQUIRE(policies.find("gavel-maxmin") != std::string::npos);  // both mechanisms are in the set
  for (int threads : {1, 2}) {
    const fs::path out = dir.path / fmt::format("j{}", threads);
    REQUIRE(test::run_cli("compare -q --policies " + policies + " " + kSyntheticArgs + " --jobs " +
                          std::to_string(threads) + " --out " + shell_quoted(out))
                .exit_code == 0);
  }
  require_same_folders(dir.path / "j1", dir.path / "j2");
  const PolluxFixture pollux = pollux_fixture(dir);
  if (pollux.args.empty()) return;
  for (int threads : {1, 2}) {
    const fs::path out = dir.path / fmt::format("pollux-j{}", threads);
    REQUIRE(test::run_cli("compare -q --policies pollux,optimus,tiresias " + pollux.args + " --jobs " +
                          std::to_string(threads) + " --out " + shell_quoted(out))
                .exit_code == 0);
  }
  require_same_folders(dir.path / "pollux-j1", dir.path / "pollux-j2");
}

TEST_CASE("determinism: sweep on 1 and 2 threads writes byte-identical folders") {
  test::TempDir dir("determinism-sweep");
  const std::string policies = joined(policies_running_on(kSyntheticArgs, dir), "\"", "\"", ", ");
  const std::string spec = dir.write("spec.json", R"({"name": "det", "cluster": "default", "restart_overhead_s": 5,
    "policies": [)" + policies + R"(], "sweep": {"seed": [1, 2], "cluster_scale": [1, 2]}})");
  for (int threads : {1, 2}) {
    const fs::path out = dir.path / fmt::format("j{}", threads);
    const test::CliResult r = test::run_cli("sweep -q " + shell_quoted(spec) + " --jobs " + std::to_string(threads) +
                                            " --out " + shell_quoted(out));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  CHECK(fs::exists(dir.path / "j1" / "results.csv"));
  require_same_folders(dir.path / "j1", dir.path / "j2");
}
