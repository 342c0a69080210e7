// `hetsim report`: the CLI runs scripts/report.py on an output folder and passes its exit code on
// (the page itself is checked in a real browser by tests/browser).
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using hetsim::test::run_cli;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("report: a run folder gives one self-contained page, -o chooses where", "[cli][report]") {
  hetsim::test::TempDir dir("cli-report");
  const fs::path run = dir.path / "run";
  REQUIRE(run_cli("run -q --out " + run.string() + " --timeline " + (run / "timeline.json").string()).exit_code == 0);
  const auto r = run_cli("report " + run.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains((run / "report.html").string()));
  const std::string page = read_text(run / "report.html");
  CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>") && Catch::Contains("<svg") && Catch::Contains("fifo"));
  // Opens offline: nothing is fetched (no script, stylesheet or image from elsewhere).
  CHECK(page.find("src=\"http") == std::string::npos);
  CHECK(page.find("href=\"http") == std::string::npos);
  REQUIRE(run_cli("report " + run.string() + " -o " + (dir.path / "elsewhere.html").string()).exit_code == 0);
  CHECK(read_text(dir.path / "elsewhere.html") == page);  // deterministic: the same folder, the same bytes
}

TEST_CASE("report: a folder that is no hetsim output, or a missing script, exits 2 with the reason", "[cli][report]") {
  hetsim::test::TempDir dir("cli-report-bad");
  fs::create_directories(dir.path / "empty");
  auto r = run_cli("report " + (dir.path / "empty").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("hetsim: error: " + (dir.path / "empty").string() + ": not a hetsim output folder"));
  CHECK(r.output.find("Traceback") == std::string::npos);
  r = run_cli("report " + (dir.path / "missing").string());
  CHECK(r.exit_code == 2);
  r = run_cli("report");  // DIR is required
  CHECK(r.exit_code == 2);
  // The script chosen by the environment must exist.
  r = run_cli("report " + dir.path.string(), "", "HETSIM_REPORT_SCRIPT=" + (dir.path / "nope.py").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("nope.py: field 'HETSIM_REPORT_SCRIPT': no such file"));
}
