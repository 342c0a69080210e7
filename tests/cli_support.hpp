#pragma once
// Running the hetsim binary from a test, as a user would, and checking an input error.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace hetsim::test {

struct CliResult {
  int exit_code;
  std::string output;  ///< stdout and stderr together
};

/// Runs `hetsim ARGS` through the shell (ARGS is shell text), from `cwd` when given (paths in ARGS
/// are then relative to it), with `env` (shell assignments such as "VAR=value") when given, and
/// collects its output.
inline CliResult run_cli(const std::string& args, const std::string& cwd = "", const std::string& env = "") {
  const std::string cd = cwd.empty() ? std::string() : "cd '" + cwd + "' && ";
  const std::string cmd = cd + env + (env.empty() ? "" : " ") + std::string(HETSIM_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// `hetsim ARGS` must stop with an input error (exit 2) whose message contains `message`.
inline void expect_input_error(const std::string& args, const std::string& message) {
  INFO("hetsim " << args);
  const CliResult r = run_cli(args);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(message));
}

}  // namespace hetsim::test
