// The one registry shape: duplicate names are refused, and `hetsim list`, --help, detection
// errors, --model-param checks and the spec-key-to-flag table are generated from the registries.
#include <stdexcept>
#include <string>

#include "cli_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/experiment/run_keys.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/run.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/registry.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using Catch::Contains;
using hetsim::test::expect_input_error;
using hetsim::test::run_cli;
using namespace hetsim;

namespace {

struct Named {
  std::string name;
  int value = 0;
};

// A job-types JSON: the smallest input the analytic model accepts.
const char* kJobTypes = R"({"job_types": {"m": {"gradient_bytes": 1000, "step_time_s": {"v100": 0.5}}}})";

}  // namespace

TEST_CASE("registry: entries keep registration order and a duplicate name throws", "[registry]") {
  Registry<Named> r("widget");
  r.add({"b", 1});
  r.add({"a", 2});
  CHECK(r.names() == std::vector<std::string>{"b", "a"});
  CHECK(r.joined_names() == "b, a");
  REQUIRE(r.find("a"));
  CHECK(r.find("a")->value == 2);
  CHECK(r.find("c") == nullptr);
  CHECK_THROWS_MATCHES(r.add({"a", 3}), std::logic_error, Catch::Message("widget registered twice: a"));
  CHECK(r.all().size() == 2);

  // The default registries refuse a second entry under a built-in name too.
  PlacementRegistry placements = make_default_placement_registry();
  CHECK_THROWS_AS(placements.add({"spread", "again", "test", {}, nullptr}), std::logic_error);
  ModelRegistry models = make_default_model_registry();
  CHECK_THROWS_AS(models.add({"analytic", "again", "test", {}, nullptr}), std::logic_error);
  FormatRegistry formats = make_default_format_registry();
  CHECK_THROWS_AS(formats.add({"gavel", "again", "test", {}, TraceFormat::Gavel, nullptr, nullptr, ""}),
                  std::logic_error);
  PolicyRegistry policies = make_default_registry();
  CHECK_THROWS_MATCHES(policies.add({"fifo", "again", "test", {}, nullptr, nullptr}), std::logic_error,
                       Catch::Message("policy registered twice: fifo"));
}

TEST_CASE("registry: the name helpers read the default registries", "[registry]") {
  CHECK(placement_names() == std::vector<std::string>{"consolidate", "spread", "topology-aware", "network-aware", "yarn", "random"});
  CHECK(throughput_model_names() ==
        std::vector<std::string>{"auto", "gavel-table", "heet-profile", "elasticflow-table", "duration", "analytic"});
  const FormatRegistry formats = make_default_format_registry();
  CHECK(formats.all().size() == 8);
  std::vector<std::string> expected{"auto"};
  for (const FormatInfo& f : formats.all()) {
    expected.push_back(f.name);
    INFO(f.name);
    CHECK(to_string(f.format) == f.name);
    CHECK(parse_trace_format(f.name) == f.format);
    CHECK(make_placement(f.name) == nullptr);  // names of one kind are not names of another
  }
  CHECK(trace_format_names() == expected);
  for (const std::string& name : placement_names()) {
    auto p = make_placement(name, 7);
    REQUIRE(p);
    CHECK(p->name() == name);
  }
}

TEST_CASE("registry: the detection error names every registered format and its rule", "[registry][trace]") {
  try {
    detect_trace_format("odd.txt", "\nthis is not a trace\n");
    FAIL("detection accepted a line no format matches");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Contains("odd.txt:2") && Contains("cannot detect"));
    const FormatRegistry formats = make_default_format_registry();
    for (const FormatInfo& f : formats.all()) {
      INFO(f.name);
      CHECK_THAT(msg, Contains(f.name + ": " + f.detect_rule));
    }
  }
  // Every format with a rule is found by it; itp-ef has none (its files look like itp).
  const FormatRegistry formats = make_default_format_registry();
  for (const FormatInfo& f : formats.all()) CHECK(static_cast<bool>(f.detect) == (f.name != "itp-ef"));
}

TEST_CASE("cli: hetsim list placements|models|formats prints every registered name with its parameters",
          "[registry][cli]") {
  auto listed = [](const std::string& what) {
    const auto r = run_cli("list " + what);
    CHECK(r.exit_code == 0);
    return r.output;
  };
  const std::string placements = listed("placements");
  const PlacementRegistry placement_registry = make_default_placement_registry();
  for (const PlacementInfo& p : placement_registry.all()) {
    CHECK_THAT(placements, Contains(p.name + "\n  " + p.summary + "\n  source: " + p.source + "\n"));
  }
  const std::string models = listed("models");
  const ModelRegistry model_registry = make_default_model_registry();
  for (const ModelInfo& m : model_registry.all()) {
    INFO(m.name);
    CHECK_THAT(models, Contains(m.name + "\n  " + m.summary + "\n  source: " + m.source + "\n"));
    for (const ParamInfo& p : m.params)
      CHECK_THAT(models, Contains("  --model-param " + p.name + "=" + p.default_value + "  " + p.help));
  }
  CHECK_THAT(models, Contains("--model-param overlap=0.5  fraction of min(compute, comm) hidden by overlap (in [0, 1])"));
  CHECK_THAT(models, Contains("--model-param ps_shards=1") && Contains("(in [1, 1e+06])"));
  CHECK_THAT(models, Contains("--model-param spread=unconsolidated"));
  const std::string formats = listed("formats");
  const FormatRegistry format_registry = make_default_format_registry();
  for (const FormatInfo& f : format_registry.all()) {
    INFO(f.name);
    CHECK_THAT(formats, Contains(f.name + "\n  " + f.summary + "\n  source: " + f.source + "\n"));
  }
  CHECK_THAT(formats, Contains("  --heet-round=120  seconds per arrival round"));
  const std::string policies = listed("policies");
  CHECK_THAT(policies, Contains("tiresias\n") && Contains("  --param queue_threshold_gpu_s=57600  "));

  const auto bad = run_cli("list gpus");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output,
             Contains("field 'list': unknown list 'gpus' (policies, placements, models, formats, presets)"));
}

TEST_CASE("cli: run --help names the registered formats, models and placements", "[registry][cli]") {
  const auto r = run_cli("run --help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("auto (detect by the first line) or " + make_default_format_registry().joined_names()));
  CHECK_THAT(r.output, Contains("Throughput model: " + make_default_model_registry().joined_names()));
  CHECK_THAT(r.output, Contains("Placement policy (event mechanism): " + make_default_placement_registry().joined_names()));
  CHECK_THAT(r.output, Contains("analytic: comm=auto, levels=ar,ar,ar, ps_shards=1, overlap=0.5, rebalance=false"));
}

TEST_CASE("cli: every spec key maps to a real flag of hetsim run", "[registry][cli][experiment]") {
  const auto help = run_cli("run --help");
  REQUIRE(help.exit_code == 0);
  for (const RunKey& k : run_keys()) {
    INFO(k.name << " -> " << k.flag);
    CHECK(cli_flag_of(k.name) == k.flag);
    CHECK(k.flag.starts_with("--"));
    // CLI11 prints each option as "  --flag TYPE" or "  --flag  help" (a flag takes no value).
    CHECK_THAT(help.output, Contains("  " + k.flag + " "));
  }
}

TEST_CASE("cli: an undeclared --model-param key or an out-of-range value is refused", "[registry][cli][model]") {
  test::TempDir dir("registry-model-param");
  const std::string types = dir.write("types.json", kJobTypes);
  const std::string base = "run -q --cluster default --model analytic --throughputs " + types;
  expect_input_error(base + " --model-param bogus=1",
                     "field '--model-param bogus': model 'analytic' has no parameter 'bogus' (it has: comm, levels, "
                     "ps_shards, overlap, rebalance)");
  expect_input_error(base + " --model-param overlap=2", "field '--model-param overlap': must be in [0, 1], got 2");
  expect_input_error(base + " --model-param ps_shards=0", "field '--model-param ps_shards': must be in [1, 1e+06], got 0");
  expect_input_error("run -q --model duration --model-param spread=consolidated",
                     "field '--model-param spread': model 'duration' takes no parameters (got 'spread')");
  // Spec validation finds it too, naming the spec key; under "auto" (the file picks the model) a
  // key that some model declares waits for the file, one that no model declares is refused at once.
  RunSpec spec;
  spec.model = "analytic";
  spec.model_params = {{"overlap", "0.25"}, {"ps_shards", "4"}};
  CHECK_FALSE(find_run_spec_problem(spec));
  spec.model_params["shards"] = "4";
  auto problem = find_run_spec_problem(spec);
  REQUIRE(problem);
  CHECK(problem->key == "model_param.shards");
  CHECK_THAT(problem->message, Contains("model 'analytic' has no parameter 'shards'"));
  CHECK(cli_flag_of(problem->key) == "--model-param shards");
  spec.model = "auto";
  problem = find_run_spec_problem(spec);
  REQUIRE(problem);
  CHECK_THAT(problem->message, Contains("model 'auto' (whichever model it picks) has no parameter 'shards'"));
  spec.model_params.erase("shards");
  CHECK_FALSE(find_run_spec_problem(spec));
  // The same check in the library, before any file is read.
  const Cluster cluster = *make_preset("default");
  CHECK_THROWS_WITH(make_throughput_model("gavel-table", "/nonexistent.json", {{"comm", "ring"}}, cluster),
                    Contains("--model-param comm") && Contains("(it has: spread)"));
}

TEST_CASE("docs: the README's run options name every registered format, model and placement", "[registry][docs]") {
  const std::string readme = test::slurp(test::source_path("README.md"));
  auto listed_after = [&](const std::string& flag, const std::vector<std::string>& names) {
    const std::size_t at = readme.find("`" + flag + " ");
    REQUIRE(at != std::string::npos);
    const std::string usage = readme.substr(at, readme.find('`', at + 1) - at);
    for (const std::string& n : names) {
      INFO(flag << " " << n);
      CHECK_THAT(usage + "|", Contains(n + "|"));
    }
  };
  listed_after("--format", trace_format_names());
  listed_after("--model", throughput_model_names());
  listed_after("--placement", placement_names());
}
