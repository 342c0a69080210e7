// hetsim's identity as a user and a paper's reader meet it: `hetsim --version`, and the version
// every summary.json records (docs/outputs.md, hetsim_version).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_support.hpp"
#include "temp_dir.hpp"
#include "hetsim/version.hpp"

using hetsim::test::run_cli;

TEST_CASE("cli version: hetsim --version prints the project version and exits 0") {
  const auto r = run_cli("--version");
  CHECK(r.exit_code == 0);
  CHECK(r.output.rfind("hetsim 0.2.0", 0) == 0);
  // The same text the library reports, on one line (git describe appended in a checkout).
  CHECK(r.output == "hetsim " + hetsim::version_text() + "\n");
  CHECK(hetsim::version() == "0.2.0");
  if (!hetsim::git_describe().empty())
    CHECK_THAT(r.output, Catch::Contains("(git " + std::string(hetsim::git_describe()) + ")"));
}

TEST_CASE("cli version: summary.json records hetsim_version, the same in two runs") {
  const hetsim::test::TempDir dir("identity");
  REQUIRE(run_cli("run -q --out " + dir.str() + "/a").exit_code == 0);
  REQUIRE(run_cli("run -q --out " + dir.str() + "/b").exit_code == 0);
  const std::string a = hetsim::test::slurp(dir.path / "a/summary.json");
  const auto j = nlohmann::json::parse(a);
  REQUIRE(j.contains("hetsim_version"));
  CHECK(j["hetsim_version"] == hetsim::version_text());
  CHECK(j["hetsim_version"].get<std::string>().rfind("0.2.0", 0) == 0);
  CHECK(a == hetsim::test::slurp(dir.path / "b/summary.json"));  // determinism holds with the key
}

TEST_CASE("cli settings: summary.json records every setting, and its settings alone run the same run again") {
  // Issue 18 item 5: "the exact settings". The settings object is a sweep spec's run keys, so the
  // run is repeated from the file alone (the table beside the spec, as its file name says).
  const hetsim::test::TempDir dir("settings");
  const std::string table = std::string(HETSIM_SOURCE_DIR) + "/traces/gavel-throughputs.json";
  const auto r = run_cli("run -q --policy tiresias --param starvation_factor=2 --param queue_threshold_gpu_s=100 "
                         "--generate 30 --throughputs " + table + " --model-param spread=consolidated --interval 60 "
                         "--until 50000 --seed 7 --cluster-scale 2 --out " + dir.str() + "/run");
  REQUIRE(r.exit_code == 0);
  const std::string summary = hetsim::test::slurp(dir.path / "run/summary.json");
  const auto settings = nlohmann::ordered_json::parse(summary)["settings"];
  CHECK(settings.dump() ==
        R"({"cluster":"default","cluster_scale":2,"format":"auto","heet_round_s":120.0,"model":"auto",)"
        R"("profiling":"oracle","throughputs":"gavel-throughputs.json","policy":"tiresias","mechanism":"auto",)"
        R"("placement":"consolidate","network":"alone","restart_overhead_s":0.0,"interval_s":60.0,)"
        R"("schedule_on_arrival":false,"until_s":50000.0,"seed":7,"generator.jobs":30,"generator.jobs_per_hour":4.0,)"
        R"("generator.multi_gpu":true,"generator.reference_gpu":"v100","param.queue_threshold_gpu_s":"100",)"
        R"("param.starvation_factor":"2","model_param.spread":"consolidated"})");
  // The same run from a spec made of those settings: byte-identical outputs.
  nlohmann::ordered_json spec = settings;
  spec["policies"] = nlohmann::ordered_json::array({spec["policy"]});
  spec.erase("policy");
  dir.write("again/gavel-throughputs.json", hetsim::test::slurp(table));
  const std::string spec_path = dir.write("again/spec.json", spec.dump());
  REQUIRE(run_cli("sweep -q " + spec_path + " --out " + dir.str() + "/again/out").exit_code == 0);
  CHECK(hetsim::test::slurp(dir.path / "again/out/points/tiresias/summary.json") == summary);
  CHECK(hetsim::test::slurp(dir.path / "again/out/points/tiresias/jobs.csv") ==
        hetsim::test::slurp(dir.path / "run/jobs.csv"));
  // Not metrics: compare.csv and results.csv carry no settings.* column.
  CHECK(hetsim::test::slurp(dir.path / "again/out/results.csv").find("settings.") == std::string::npos);
}

TEST_CASE("cli settings: summary.json names the run's timeline as a path from --out, only when both are given") {
  // scripts/report.py and plot.py read it to draw this run's timeline where a folder holds several.
  const hetsim::test::TempDir dir("timeline-name");
  const auto timeline_of = [&](const std::string& options) {
    REQUIRE(run_cli("run -q --out " + dir.str() + "/run " + options).exit_code == 0);
    const auto j = nlohmann::json::parse(hetsim::test::slurp(dir.path / "run/summary.json"));
    return j.contains("timeline") ? j["timeline"].get<std::string>() : std::string("(none)");
  };
  CHECK(timeline_of("--timeline " + dir.str() + "/run/t.json") == "t.json");
  CHECK(timeline_of("--timeline " + dir.str() + "/run/./../run/u.json") == "u.json");
  CHECK(timeline_of("--timeline " + dir.str() + "/elsewhere.json") == "../elsewhere.json");
  CHECK(timeline_of("") == "(none)");
}
