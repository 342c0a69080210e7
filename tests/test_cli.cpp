// The hetsim binary as a user meets it: exit codes, error messages naming file/line/field, outputs.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.hpp"

namespace {

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

CliResult run_cli(const std::string& args) {
  std::string cmd = std::string(HETSIM_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// One folder per test process, so parallel ctest runs (and other checkouts) never share files.
std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() / ("hetsim-test-cli-" + std::to_string(getpid()));
}

std::string temp_file(const std::string& name, const std::string& content) {
  auto dir = temp_dir();
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path) << content;
  return path.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("cli: the default run needs no input and completes every job") {
  auto r = run_cli("run -q --out " + (temp_dir() / "default").string());
  CHECK(r.exit_code == 0);
  std::string summary = slurp((temp_dir() / "default/summary.json").string());
  CHECK_THAT(summary, Catch::Contains("\"jobs_read\": 60") && Catch::Contains("\"completed\": 60"));
}

TEST_CASE("cli: bad input exits 2 naming file, line and field") {
  auto bad = temp_file("bad.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,1,10\nB,x,1,5\n");
  auto r = run_cli("run --trace " + bad);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("bad.csv:3: field 'submit_s': expected a number, got 'x'"));

  r = run_cli("run --policy nope");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown policy 'nope'") && Catch::Contains("fifo"));

  r = run_cli("run --trace /nonexistent/trace.csv");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/nonexistent/trace.csv: cannot open file"));

  r = run_cli("run --cluster no-such-preset");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("no-such-preset") && Catch::Contains("gavel-108"));

  r = run_cli("run --param gpu_type");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("expected key=value"));
}

TEST_CASE("cli: rejected jobs are reported with their trace line, outputs are written, exit 3") {
  auto trace = temp_file("rej.csv", "job_id,submit_s,num_gpus,duration_s\nA,0,1,10\nB,1,1,-5\nC,2,99,5\n");
  auto out = (temp_dir() / "rej").string();
  auto r = run_cli("run -q --trace " + trace + " --out " + out);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, Catch::Contains("rej.csv:3: field 'duration_s': negative duration (-5)"));
  CHECK_THAT(r.output, Catch::Contains("rej.csv:4: job C requests 99 GPUs; cluster 'default' has 16"));
  std::string jobs = slurp(out + "/jobs.csv");
  CHECK_THAT(jobs, Catch::Contains("A,0.000000,0.000000,10.000000,10.000000,0.000000,1,1,v100,0,0,"));
  CHECK_THAT(jobs, Catch::Contains(",rejected,"));
  CHECK_THAT(slurp(out + "/summary.json"), Catch::Contains("\"rejected\": 2"));
}

TEST_CASE("cli: out-of-range times are errors or rejections, never a clock overflow or a hang") {
  auto r = run_cli("run -q --until -5");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("field '--until'"));
  r = run_cli("run -q --interval 0.0000004");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("field '--interval': must be 0 or at least 0.001 s"));
  r = run_cli("run -q --restart-overhead nan");
  CHECK(r.exit_code == 2);
  r = run_cli("run -q --jobs-per-hour 3");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("only apply with --generate"));
  auto trace = temp_file("far.csv", "job_id,submit_s,num_gpus,duration_s\na,5e12,1,5\nb,0,1,1e300\nc,0,1,10\n");
  r = run_cli("run -q --trace " + trace);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, Catch::Contains("far.csv:2: job a arrives at 5e+12 s, beyond the simulation horizon"));
  CHECK_THAT(r.output, Catch::Contains("far.csv:3: job b needs 1e+300 s"));
  r = run_cli("run -q --trace " + temp_dir().string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("is a directory"));
}

TEST_CASE("cli: list policies names each policy with its source") {
  auto r = run_cli("list policies");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("fifo") && Catch::Contains("srtf") && Catch::Contains("source:"));
}
