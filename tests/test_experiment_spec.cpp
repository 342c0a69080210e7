// Experiment specs: the key table, parsing, expansion into points, and errors that name the spec
// file and the key before anything runs.
#include <limits>
#include <set>

#include "hetsim/experiment/run_keys.hpp"
#include "hetsim/experiment/spec.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
using Json = nlohmann::ordered_json;

namespace {

ExperimentSpec parse(const std::string& text, const std::string& path = "exp/spec.json") {
  PolicyRegistry registry = make_default_registry();
  return parse_experiment_spec(Json::parse(text), path, registry);
}

}  // namespace

TEST_CASE("run keys: names are unique and each sets its RunSpec field", "[experiment][spec]") {
  const auto keys = run_keys();
  std::set<std::string> names;
  for (const RunKey& k : keys) CHECK(names.insert(k.name).second);
  RunSpec s;
  auto set = [&](const std::string& name, Json v) {
    for (const RunKey& k : keys)
      if (k.name == name) return k.set(s, v);
    FAIL("no key " << name);
  };
  set("interval_s", 360.0);
  set("seed", 7);
  set("cluster_scale", 3);
  set("until_s", 100.0);
  set("format", "gavel");
  set("generator.jobs_per_hour", 2.5);
  CHECK(s.mechanism.interval_s == 360.0);
  CHECK(s.seed == 7);
  CHECK(s.cluster_scale == 3);
  CHECK(s.mechanism.until_s == 100.0);
  CHECK(s.format == TraceFormat::Gavel);
  REQUIRE(s.generator);
  CHECK(s.generator->jobs_per_hour == 2.5);
  CHECK(s.generator->jobs == 1000);  // the other generator fields keep their defaults
  CHECK_THROWS_WITH(set("format", "csv"), Catch::Contains("unknown trace format"));
  CHECK_THROWS(set("seed", -1));
}

TEST_CASE("spec: axes nest in file order with policies innermost, ids and fields", "[experiment][spec]") {
  PolicyRegistry registry = make_default_registry();
  const ExperimentSpec spec = parse(R"({
    "name": "t", "cluster": "gavel-24", "interval_s": 60,
    "policies": ["srtf", {"name": "fifo", "params": {"gpu_type": ["first", "fastest"]}}],
    "sweep": {"seed": [0, 1], "cluster_scale": [1, 2, 3]},
    "metrics": ["jct_mean_s", "utilization_by_type.v100"]
  })");
  REQUIRE(spec.policies.size() == 3);
  CHECK(spec.policies[1].label == "fifo(gpu_type=first)");
  CHECK(spec.policies[2].label == "fifo(gpu_type=fastest)");
  const auto points = expand_points(spec, registry);
  REQUIRE(points.size() == 2 * 3 * 3);
  CHECK(points[0].id == "srtf__seed=0__cluster_scale=1");
  CHECK(points[1].id == "fifo(gpu_type=first)__seed=0__cluster_scale=1");
  CHECK(points[3].id == "srtf__seed=0__cluster_scale=2");  // the last axis turns fastest
  CHECK(points[9].id == "srtf__seed=1__cluster_scale=1");
  CHECK(points[5].run.params.at("gpu_type") == "fastest");
  CHECK(points[5].run.policy == "fifo");
  CHECK(points[17].run.seed == 1);
  CHECK(points[17].run.cluster_scale == 3);
  CHECK(points[17].run.mechanism.interval_s == 60);
  CHECK(points[17].run.cluster == "gavel-24");
  std::set<std::string> fingerprints;
  for (const auto& p : points) fingerprints.insert(p.fingerprint);
  CHECK(fingerprints.size() == points.size());
}

TEST_CASE("spec: nested generator object and relative paths", "[experiment][spec]") {
  test::TempDir dir("spec-paths");
  dir.write("data/tput.json", "{}");
  const std::string path = dir.write("exp/s.json", R"({
    "throughputs": "../data/tput.json",
    "generator": {"kind": "gavel", "jobs": 10},
    "policies": ["fifo"], "sweep": {"generator.jobs_per_hour": [1, 2.5]}
  })");
  PolicyRegistry registry = make_default_registry();
  const ExperimentSpec spec = load_experiment_spec(path, registry);
  REQUIRE(spec.settings.size() == 3);
  CHECK(spec.settings[0].second.get<std::string>() == (dir.path / "data/tput.json").lexically_normal().generic_string());
  CHECK(spec.settings[1].first == "generator.kind");
  CHECK(spec.settings[2].first == "generator.jobs");
  // The table has no 'v100' entry, so the generator check fails before any run, naming the table.
  CHECK_THROWS_WITH(expand_points(spec, registry), Catch::Contains("tput.json") && Catch::Contains("generator.reference_gpu"));
}

TEST_CASE("spec errors name the spec file and the key", "[experiment][spec]") {
  auto fails = [](const std::string& text, const std::string& key, const std::string& what) {
    CHECK_THROWS_WITH(parse(text), Catch::Contains("exp/spec.json") && Catch::Contains(key) && Catch::Contains(what));
  };
  fails(R"({"policies": ["fifo"], "clusetr": "x"})", "clusetr", "unknown key");
  fails(R"({"policies": ["fifo"], "generator": {"jobz": 3}})", "generator.jobz", "unknown key");
  fails(R"({"policies": ["fifo"], "trace": "missing.trace"})", "trace", "file not found: exp/missing.trace");
  fails(R"({"policies": ["fifo"], "cluster": "no-such-cluster"})", "cluster", "neither a cluster preset");
  fails(R"({"policies": ["fifo", "nope"]})", "policies[1].name", "unknown policy 'nope'");
  fails(R"({"policies": [{"name": "fifo", "params": {"bogus": 1}}]})", "policies[0].params", "bogus");
  fails(R"({"policies": ["fifo"], "seed": "zero"})", "seed", "expected an integer");
  fails(R"({"policies": ["fifo"], "interval_s": true})", "interval_s", "expected a number");
  fails(R"({"policies": ["fifo"], "metrics": ["jct_avg"]})", "metrics[0]", "unknown metric 'jct_avg'");
  fails(R"({"policies": ["fifo"], "seed": 1, "sweep": {"seed": [1, 2]}})", "sweep.seed", "also has a fixed value");
  fails(R"({"policies": ["fifo"], "sweep": {"seed": []}})", "sweep.seed", "non-empty array");
  fails(R"({"policies": ["fifo"], "sweep": {"seed": [1, 1]}})", "sweep.seed[1]", "repeated");
  fails(R"({"policies": ["fifo", "fifo"]})", "policies", "appears twice");
  fails(R"({"cluster": "default"})", "policies", "missing");
  fails(R"({"policies": ["fifo"], "sweep": {"policy": ["srtf"]}})", "sweep.policy", "under \"policies\"");
  // An unknown axis is named as the axis, not as its first value.
  fails(R"({"policies": ["fifo"], "sweep": {"nosuch": [1]}})", "field 'sweep.nosuch': unknown key 'nosuch'", "known:");
  fails(R"({"policies": ["fifo"], "generator": "x"})", "field 'generator'", "'generator' is a group");
  // A whole number written 1e3 is that integer; too large for a double's exact range is out of range.
  CHECK(parse(R"({"policies": ["fifo"], "seed": 1e3})").settings.at(0).second == 1000);
  fails(R"({"policies": ["fifo"], "seed": 1.5})", "field 'seed'", "expected an integer, got 1.5");
  fails(R"({"policies": ["fifo"], "seed": 1e30})", "field 'seed'", "an integer out of range: 1e+30");
  fails(R"({"policies": ["fifo"], "generator": {"jobs": 1e12}})", "field 'generator.jobs'", "1000000000000");
  // The name is the default output folder out/<name>: it must not escape out/ or be out/ itself.
  for (const char* bad : {"", ".", "..", "../../escaped_dir", "a/b", "a\\b", "/abs"}) {
    INFO(bad);
    // nlohmann writes the JSON string, escaping the backslash.
    fails(R"({"policies": ["fifo"], "name": )" + nlohmann::json(bad).dump() + "}", "field 'name'",
          "not usable as a folder name");
  }
  CHECK(parse(R"({"name": "gavel.fig9-v2", "policies": ["fifo"]})").name == "gavel.fig9-v2");
  // A policy parameter set for every point must be declared by every policy.
  PolicyRegistry registry = make_default_registry();
  const ExperimentSpec spec = parse(R"({"policies": ["fifo", "srtf"], "param.gpu_type": "fastest"})");
  CHECK_THROWS_WITH(expand_points(spec, registry), Catch::Contains("exp/spec.json") && Catch::Contains("srtf"));
}

TEST_CASE("spec files: missing file and bad JSON name the file and line", "[experiment][spec]") {
  test::TempDir dir("spec-json");
  PolicyRegistry registry = make_default_registry();
  CHECK_THROWS_WITH(load_experiment_spec((dir.path / "none.json").string(), registry), Catch::Contains("none.json"));
  const std::string bad = dir.write("bad.json", "{\n  \"policies\": [\"fifo\",]\n}\n");
  CHECK_THROWS_WITH(load_experiment_spec(bad, registry), Catch::Contains("bad.json:2"));
}

TEST_CASE("the committed experiment specs parse and expand", "[experiment][spec]") {
  PolicyRegistry registry = make_default_registry();
  const ExperimentSpec ci = load_experiment_spec(test::source_path("experiments/ci-small.json"), registry);
  CHECK(expand_points(ci, registry).size() == 2 * 2 * 3);
  if (!test::shared_data("gavel/simulation_throughputs.json")) return;
  const ExperimentSpec g = load_experiment_spec(test::source_path("experiments/gavel108-load.json"), registry);
  CHECK(expand_points(g, registry).size() == 3 * 5 * 3);
}

TEST_CASE("spec: Pollux/Sia workloads default to 30 s restarts as on the command line", "[experiment][spec]") {
  auto workload = test::shared_data("pollux/workloads/workload-1.csv");
  if (!workload) return;
  PolicyRegistry registry = make_default_registry();
  const std::string text = R"({"cluster": "pollux-64", "interval_s": 60, "policies": ["tiresias"], "workload": ")" +
                           *workload + R"("})";
  const auto spec = parse_experiment_spec(nlohmann::ordered_json::parse(text), "/spec.json", registry);
  CHECK(expand_points(spec, registry)[0].run.mechanism.restart_overhead_s == kPolluxRestartOverheadS);
  const auto given = parse_experiment_spec(
      nlohmann::ordered_json::parse(R"({"restart_overhead_s": 0, "policies": ["tiresias"], "workload": ")" + *workload + R"("})"),
      "/spec.json", registry);
  CHECK(expand_points(given, registry)[0].run.mechanism.restart_overhead_s == 0);
}

TEST_CASE("spec: every value's range is checked at load, with the command line's rules", "[experiment][spec]") {
  auto fails = [](const std::string& text, const std::string& field, const std::string& what) {
    CHECK_THROWS_WITH(parse(text), Catch::Contains("exp/spec.json: field '" + field + "': ") && Catch::Contains(what));
  };
  fails(R"({"policies": ["fifo"], "interval_s": -5})", "interval_s", "must be a number of seconds in [0, 1e+12], got -5");
  fails(R"({"policies": ["fifo"], "interval_s": 0.0001})", "interval_s", "must be 0 or at least 0.001 s");
  fails(R"({"policies": ["fifo"], "restart_overhead_s": 1e13})", "restart_overhead_s", "got 10000000000000");
  fails(R"({"policies": ["fifo"], "until_s": -1})", "until_s", "got -1");
  fails(R"({"policies": ["fifo"], "heet_round_s": 0})", "heet_round_s", "in (0, 1e+12], got 0");
  fails(R"({"policies": ["fifo"], "profiled_fraction": 0})", "profiled_fraction", "(0, 1], got 0");
  fails(R"({"policies": ["fifo"], "profiling_run_s": -30})", "profiling_run_s", "got -30");
  fails(R"({"policies": ["fifo"], "profiling_runs": -2})", "profiling_runs", "got -2");
  fails(R"({"policies": ["fifo"], "cluster_scale": 0})", "cluster_scale", "must be at least 1, got 0");
  fails(R"({"policies": ["fifo"], "mechanism": "rounds"})", "mechanism", "unknown mechanism 'rounds'");
  fails(R"({"policies": ["fifo"], "generator": {"jobs": 0}})", "generator.jobs", "must be at least 1 job, got 0");
  fails(R"({"policies": ["fifo"], "generator": {"jobs": 100000000}})", "generator.jobs", "must be at most 10000000 jobs");
  fails(R"({"policies": ["fifo"], "sweep": {"interval_s": [60, -60]}})", "sweep.interval_s[1]", "got -60");
  // A key that only conflicts with another is fine alone; the point check catches the pair.
  const ExperimentSpec spec = parse(R"({"policies": ["fifo"], "profiling": "cf"})");
  PolicyRegistry registry = make_default_registry();
  CHECK_THROWS_WITH(expand_points(spec, registry),
                    Catch::Contains("exp/spec.json: field 'profiling': point fifo: 'cf' predicts from a measured profile"));
}

TEST_CASE("run spec problems: defaults are valid, each problem names its key and CLI flag", "[experiment][spec]") {
  CHECK_FALSE(find_run_spec_problem(RunSpec{}));
  RunSpec s;
  s.mechanism.until_s = std::numeric_limits<double>::quiet_NaN();
  auto p = find_run_spec_problem(s);
  REQUIRE(p);
  CHECK(p->key == "until_s");
  CHECK_FALSE(p->combination);
  CHECK(cli_flag_of(p->key) == "--until");
  s = RunSpec{};
  s.workload = "w.csv";
  s.trace = "t.csv";
  p = find_run_spec_problem(s);
  REQUIRE(p);
  CHECK(p->key == "workload");
  CHECK(p->combination);
  CHECK(cli_flag_of("restart_overhead_s") == "--restart-overhead");
  CHECK(cli_flag_of("exact_epochs") == "--exact-epochs");
  // Once missing from the hand-written table; now the flag is a column of run_keys().
  CHECK(cli_flag_of("schedule_on_arrival") == "--schedule-on-arrival");
  CHECK(cli_flag_of("generator") == "--generate");  // a group: its first key's flag
  CHECK(cli_flag_of("model_param.comm") == "--model-param comm");
  CHECK(cli_flag_of("no_such_key") == "no_such_key");  // not in the table: the key itself
}
