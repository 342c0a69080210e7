// Progress and logs (issue 18 item 4): progress lines on a non-terminal stderr, none under -q,
// outputs unchanged by progress, --log-level checked. The hidden --progress-period 0 makes even a
// short run report, so nothing here waits on a clock.
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>

#include "cli_support.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
namespace fs = std::filesystem;

namespace {

// Runs hetsim with stdout and stderr kept apart: returns {exit, stdout, stderr}.
struct Split {
  int exit_code;
  std::string out, err;
};
Split run_split(const test::TempDir& dir, const std::string& args) {
  // Not run_cli: it joins stderr to stdout, and these tests need them apart.
  const std::string cmd = std::string(HETSIM_CLI_PATH) + " " + args + " >" + (dir.path / "o.txt").string() + " 2>" +
                          (dir.path / "e.txt").string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::slurp(dir.path / "o.txt"), test::slurp(dir.path / "e.txt")};
}

// stdout without the wall-time row and the outputs line (it names the folder), which differ between runs.
std::string without_wall_time(const std::string& text) {
  std::string kept, line;
  for (char c : text) {
    line += c;
    if (c != '\n') continue;
    if (line.find("wall time") == std::string::npos && line.rfind("outputs:", 0) != 0) kept += line;
    line.clear();
  }
  return kept;
}

}  // namespace

TEST_CASE("progress: a run past the threshold reports on a non-terminal stderr, and not with -q", "[cli][progress]") {
  test::TempDir dir("progress-run");
  const Split with = run_split(dir, "run --progress-period 0 --out " + (dir.path / "a").string());
  REQUIRE(with.exit_code == 0);
  CHECK_THAT(with.err, Catch::Contains("progress: simulated") && Catch::Contains("jobs done of"));
  CHECK(with.err.find('\r') == std::string::npos);  // plain lines in a log, not redraws
  const Split quiet = run_split(dir, "run -q --progress-period 0 --out " + (dir.path / "b").string());
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  const Split plain = run_split(dir, "run --out " + (dir.path / "c").string());  // default 1 s threshold: silent
  CHECK(plain.err.find("progress:") == std::string::npos);
  CHECK(without_wall_time(with.out) == without_wall_time(plain.out));
  for (const char* f : {"jobs.csv", "summary.json"}) {
    CHECK(test::slurp(dir.path / "a" / f) == test::slurp(dir.path / "b" / f));
    CHECK(test::slurp(dir.path / "a" / f) == test::slurp(dir.path / "c" / f));
  }
}

TEST_CASE("progress: sweep and compare report each run's wall time on stderr only", "[cli][progress]") {
  test::TempDir dir("progress-batch");
  const Split c = run_split(dir, "compare --policies fifo,srtf --progress-period 0 --out " + (dir.path / "cmp").string());
  REQUIRE(c.exit_code == 0);
  CHECK_THAT(c.err, Catch::Contains("hetsim: fifo done in") && Catch::Contains("progress: 2/2 runs done"));
  CHECK(c.out.find("done in") == std::string::npos);
  const std::string spec = dir.write("s.json", R"({"cluster": "default", "policies": ["fifo"], "sweep": {"seed": [0, 1]}})");
  const Split s = run_split(dir, "sweep " + spec + " --progress-period 0 --out " + (dir.path / "sw").string());
  REQUIRE(s.exit_code == 0);
  CHECK_THAT(s.err, Catch::Contains("hetsim: point fifo__seed=1 done in"));
  const Split q = run_split(dir, "sweep " + spec + " -q --fresh --out " + (dir.path / "sw").string());
  CHECK(q.err.empty());
}

TEST_CASE("log level: bad values exit 2, error hides warnings", "[cli][progress]") {
  test::expect_input_error("run --log-level loud", "--log-level");
  test::expect_input_error("sweep x.json --log-level verbose", "--log-level");
  CHECK(test::run_cli("run -q --log-level info").exit_code == 0);
  test::TempDir dir("log-level");
  // A run whose inputs have notes (the OpenB reader's): shown at warning, hidden at error.
  const std::string src = HETSIM_SOURCE_DIR;
  const std::string args = "run -q --cluster alibaba-openb:" + src + "/traces/openb-nodes.csv --trace " + src +
                           "/traces/openb-pods.csv";
  const Split warn = run_split(dir, args);
  const Split err = run_split(dir, args + " --log-level error");
  CHECK_THAT(warn.err, Catch::Contains("hetsim: alibaba-openb: 5 GPU pods read as jobs"));
  CHECK(err.err.empty());
  CHECK(warn.exit_code == 0);
  CHECK(err.exit_code == 0);
}

TEST_CASE("log level: compare shows the shared inputs' notes once and hides them at error level", "[cli][progress]") {
  test::TempDir dir("log-level-compare");
  const std::string src = HETSIM_SOURCE_DIR;
  const std::string args = "compare -q --policies fifo,srtf,las --cluster alibaba-openb:" + src +
                           "/traces/openb-nodes.csv --trace " + src + "/traces/openb-pods.csv";
  const Split shown = run_split(dir, args);
  REQUIRE(shown.exit_code == 0);
  // The OpenB reader's note about the pod that shares a GPU: once, not once per policy.
  const std::string note = "1 GPU-sharing pods (num_gpu = 1, gpu_milli < 1000) hold their fraction of one GPU";
  const auto first = shown.err.find(note);
  REQUIRE(first != std::string::npos);
  CHECK(shown.err.find(note, first + 1) == std::string::npos);
  const Split hidden = run_split(dir, args + " --log-level error");
  CHECK(hidden.exit_code == 0);
  CHECK(hidden.err.empty());
}

TEST_CASE("log level: progress shows at warning and info, not at error or with -q", "[cli][progress]") {
  // Progress is chatter of the default level (the --log-level help: "warning (default: also
  // warnings, input notes and progress)"), so error, which promises errors only, silences it.
  test::TempDir dir("log-level-progress");
  const std::string run = "run --progress-period 0";
  for (const char* level : {"warning", "info"}) {
    INFO(level);
    const Split s = run_split(dir, run + " --log-level " + level);
    CHECK(s.exit_code == 0);
    CHECK_THAT(s.err, Catch::Contains("progress: simulated") && Catch::Contains("jobs done of"));
  }
  const Split error = run_split(dir, run + " --log-level error");
  CHECK(error.exit_code == 0);
  CHECK(error.err.empty());
  CHECK_THAT(error.out, Catch::Contains("jobs read"));  // stdout is -q's business, not the log level's
  // -q silences progress at every level; info's detail stays (it is the log, not progress).
  const Split quiet = run_split(dir, run + " -q --log-level info");
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.find("progress:") == std::string::npos);
  CHECK_THAT(quiet.err, Catch::StartsWith("hetsim: info: ") && Catch::Contains(" scheduling passes\n"));
  CHECK(quiet.out.empty());
  // compare and sweep: their per-run lines and the bar go the same way.
  const Split c = run_split(dir, "compare --policies fifo,srtf --progress-period 0 --log-level error");
  CHECK(c.exit_code == 0);
  CHECK(c.err.empty());
  const std::string spec = dir.write("s.json", R"({"cluster": "default", "policies": ["fifo"], "sweep": {"seed": [0, 1]}})");
  const Split s = run_split(dir, "sweep " + spec + " --progress-period 0 --log-level error --out " + (dir.path / "sw").string());
  CHECK(s.exit_code == 0);
  CHECK(s.err.empty());
}
