// A run killed by SIGTERM (scancel, a CI timeout) or SIGINT (Ctrl-C) leaves no hidden temporary
// output file (".NAME.tmp-*") behind, ends "killed by that signal" as before, and never touches
// the files an earlier run completed.
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "hetsim/util/temporary_files.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using hetsim::test::slurp;
using hetsim::test::TempDir;

namespace {

// Hidden temporaries of output files anywhere under `dir`.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(entry.path().string());
  return found;
}

// Starts `hetsim ARGS` without a shell (a shell's background job would ignore SIGINT), output discarded.
pid_t start_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text{HETSIM_CLI_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (std::FILE* null = std::freopen("/dev/null", "w", stdout)) (void)null;
    if (std::FILE* null = std::freopen("/dev/null", "w", stderr)) (void)null;
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

TEST_CASE("signals: SIGTERM and SIGINT remove the run's temporary files, completed files stay intact",
          "[outputs][cli][signals]") {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    INFO("signal " << signal_number);
    TempDir dir("signals-" + std::to_string(signal_number));
    const fs::path out = dir.path / "out";
    // Files of an earlier run, complete: the killed run must leave their bytes as they are.
    dir.write("out/summary.json", "{\"jobs_read\": 1}\n");
    dir.write("out/t.json", "{\"traceEvents\": []}\n");
    // 300,000 generated jobs, 100 a second, on the default cluster: about 5 s of work on a 2-core
    // machine, far longer than the moment the signal needs to land.
    const std::string table = std::string(HETSIM_SOURCE_DIR) + "/traces/gavel-throughputs.json";
    const pid_t pid = start_cli({"run", "-q", "--generate", "300000", "--jobs-per-hour", "360000", "--throughputs", table,
                                 "--out", out.string(), "--timeline", (out / "t.json").string()});
    REQUIRE(pid > 0);
    // The timeline's temporaries exist from before the run starts until it ends.
    bool running = false;
    for (int i = 0; i < 400 && !running; ++i) {  // up to 20 s on a loaded machine
      running = !temporaries(dir.path).empty();
      if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(running);
    REQUIRE(::kill(pid, signal_number) == 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);
    CHECK(temporaries(dir.path).empty());
    CHECK(slurp(out / "summary.json") == "{\"jobs_read\": 1}\n");
    CHECK(slurp(out / "t.json") == "{\"traceEvents\": []}\n");
    CHECK(!fs::exists(out / "t.allocations.csv"));  // never completed, so never renamed into place
  }
}

TEST_CASE("signals: a SIGTERM that comes while a run renames its outputs waits until the last is renamed",
          "[signals]") {
  // hetsim run holds a DeferTerminationSignals over its renames: the kill still ends the process,
  // but after the marker written inside the deferral (standing for the last rename).
  const TempDir dir("signals-defer");
  const fs::path marker = dir.path / "renamed-last";
  const pid_t pid = ::fork();
  if (pid == 0) {
    {
      const hetsim::DeferTerminationSignals deferred;
      std::raise(SIGTERM);
      if (std::FILE* f = std::fopen(marker.c_str(), "w")) std::fclose(f);
    }
    ::_exit(0);  // not reached: the deferred SIGTERM ends the process at the deferral's end
  }
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(fs::exists(marker));
}
