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
