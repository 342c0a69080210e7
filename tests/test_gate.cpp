// The regression gate: directions, tolerance, and the `hetsim check` exit codes on an equal and a
// deliberately worse baseline.
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/wait.h>

#include "hetsim/experiment/gate.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

ResultRow row(const std::string& metric, double value) { return ResultRow{"p", "fifo", {}, metric, value}; }

int exit_code(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("gate: direction, tolerance and verdicts", "[experiment][gate]") {
  CHECK(parse_tolerance("2%") == Approx(0.02));
  CHECK(parse_tolerance("0.05") == Approx(0.05));
  CHECK_THROWS_WITH(parse_tolerance("two"), Catch::Contains("--tolerance"));
  CHECK(metric_direction("jct_mean_s") == -1);
  CHECK(metric_direction("utilization_by_type.v100") == +1);
  CHECK(metric_direction("end_s") == 0);

  const std::vector<ResultRow> base{row("jct_mean_s", 100), row("makespan_s", 1000), row("utilization", 0.5),
                                    row("end_s", 10), row("restarts", 0), row("jct_p99_s", 300)};
  const std::vector<ResultRow> now{row("jct_mean_s", 101), row("makespan_s", 1100), row("utilization", 0.6),
                                   row("end_s", 10), row("restarts", 2), row("preemptions", 3)};
  const GateReport r = check_against_baseline(base, now, 0.02);
  REQUIRE(r.rows.size() == 7);
  CHECK(r.rows[0].verdict == GateVerdict::Within);  // +1% JCT
  CHECK(r.rows[1].verdict == GateVerdict::Worse);   // +10% makespan
  CHECK(r.rows[1].change == Approx(0.10));
  CHECK(r.rows[2].verdict == GateVerdict::Better);  // +20% utilisation
  CHECK(r.rows[3].verdict == GateVerdict::Same);
  CHECK(r.rows[4].verdict == GateVerdict::Worse);   // 0 -> 2 restarts
  CHECK(std::isinf(r.rows[4].change));
  CHECK(r.rows[5].verdict == GateVerdict::Missing);
  CHECK(r.rows[6].verdict == GateVerdict::New);
  CHECK_FALSE(r.passed());
  std::ostringstream text;
  print_gate_report(text, r, 0.02);
  CHECK_THAT(text.str(), Catch::Contains("makespan_s") && Catch::Contains("+10.00%") && Catch::Contains("WORSE") &&
                             Catch::Contains("FAIL") && !Catch::Contains("end_s"));
  CHECK(check_against_baseline(base, base, 0.0).passed());
  // A value absent from the baseline (an empty or truncated baseline file) fails the gate.
  CHECK_FALSE(check_against_baseline({}, {row("jct_mean_s", 100)}, 0.02).passed());
  // A metric with no known direction fails the gate when it moves.
  CHECK_FALSE(check_against_baseline({row("end_s", 10)}, {row("end_s", 20)}, 0.02).passed());
}

TEST_CASE("hetsim check passes on an equal baseline and fails on a deliberately worse one", "[experiment][gate][cli]") {
  test::TempDir dir("gate-cli");
  const std::string cli = HETSIM_CLI_PATH;
  const std::string spec = test::source_path("experiments/ci-small.json");
  const std::string baseline = (dir.path / "baseline.csv").string();
  REQUIRE(exit_code(cli + " check " + spec + " --baseline " + baseline + " --update-baseline") == 0);
  CHECK(exit_code(cli + " check " + spec + " --baseline " + baseline) == 0);
  // The committed baseline is what the code produces now.
  CHECK(test::slurp(baseline) == test::slurp(test::source_path("experiments/baselines/ci-small.csv")));

  // A baseline 10% better on JCT: the current code looks worse and the gate fails with exit code 5.
  const auto rows = read_results_csv(baseline);
  std::string better = "point,policy,cluster_scale,seed,metric,value\n";
  for (const ResultRow& r : rows) {
    const double v = r.metric == "jct_mean_s" ? r.value * 0.9 : r.value;
    better += fmt::format("{},{},{},{},{},{}\n", r.point, r.policy, r.axis_values[0].second, r.axis_values[1].second,
                          r.metric, metric_text(v));
  }
  const std::string worse = dir.write("better-baseline.csv", better);
  CHECK(exit_code(cli + " check " + spec + " --baseline " + worse) == 5);
  CHECK(exit_code(cli + " check " + spec + " --baseline " + worse + " --tolerance 12%") == 0);
  CHECK(exit_code(cli + " check " + spec + " --baseline " + (dir.path / "none.csv").string()) == 2);
}

TEST_CASE("gate: a baseline with a (point, metric) twice, or with no rows, is bad input", "[experiment][gate]") {
  test::TempDir dir("gate-bad-baseline");
  const std::string twice = dir.write("twice.csv",
                                      "point,policy,seed,metric,value\n"
                                      "a,fifo,0,jct_mean_s,10\n"
                                      "a,fifo,0,makespan_s,20\n"
                                      "a,fifo,0,jct_mean_s,5\n");
  try {
    (void)read_results_csv(twice);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.line() == 4);
    CHECK(e.field() == "metric");
    CHECK(e.message() == "point 'a' has metric 'jct_mean_s' twice (first on line 2)");
  }
  // Header only: every current value would be "new", which is a missing baseline, not a regression.
  const std::string header_only = dir.write("header.csv", "point,policy,seed,metric,value\n");
  CHECK(read_results_csv(header_only).empty());
  const std::string cli = HETSIM_CLI_PATH;
  CHECK(exit_code(cli + " check " + test::source_path("experiments/ci-small.json") + " --baseline " + header_only) == 2);
}
