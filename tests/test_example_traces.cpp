// The example inputs of traces/ (traces/README.md) keep working: every file parses with the
// project's readers (job counts and one field checked by hand against the file), format detection
// names the right reader, every command of traces/README.md runs and exits 0, and every file there
// is described in the README.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cli_support.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"

namespace {

namespace fs = std::filesystem;
using hetsim::TraceFormat;

std::string example(const std::string& name) { return hetsim::test::source_path("traces/" + name); }

const hetsim::JobSpec& job(const hetsim::Workload& w, const std::string& id) {
  for (const auto& j : w.jobs)
    if (j.id == id) return j;
  FAIL("no job " << id << " in " << w.source);
  throw std::logic_error("unreachable");
}

// The commands of traces/README.md: lines that are exactly `$B ...` in backticks.
std::vector<std::string> readme_commands() {
  std::vector<std::string> out;
  std::istringstream in(hetsim::test::slurp(example("README.md")));
  for (std::string line; std::getline(in, line);) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, 4, "`$B ") != 0 || line.back() != '`') continue;
    out.push_back(line.substr(start + 4, line.size() - start - 5));
  }
  return out;
}

// Runs `hetsim ARGS` from the repository root (the README's paths are relative to it).
int run_from_root(const std::string& args) {
  const hetsim::test::CliResult r = hetsim::test::run_cli(args, HETSIM_SOURCE_DIR);
  INFO(r.output);
  CHECK(r.exit_code >= 0);  // exited (not killed by a signal)
  return r.exit_code;
}

}  // namespace

TEST_CASE("example traces: native, gavel, philly and heet parse with their hand-checked fields") {
  const auto native = hetsim::read_trace(example("native.csv"), TraceFormat::Native);
  REQUIRE(native.jobs.size() == 7);
  CHECK(job(native, "cnn-wide").min_gpus == 2);
  CHECK(job(native, "cnn-wide").max_gpus == 8);
  CHECK(job(native, "lm-big").priority_weight == 2.0);
  CHECK(job(native, "noop").work == 0.0);

  const auto gavel = hetsim::read_trace(example("gavel.trace"), TraceFormat::Gavel);
  REQUIRE(gavel.jobs.size() == 5);
  const auto& lm = job(gavel, "gavel-3");  // line 3: ToyLM, 20,000 steps at 600 s on 4 GPUs
  CHECK(lm.job_type == "ToyLM (batch size 20)");
  CHECK(lm.global_batch_size == 20);
  CHECK(lm.work == 20000.0);
  CHECK(lm.requested_gpus == 4);
  CHECK(lm.submit.seconds() == 600.0);

  // Rebased to the earliest timestamp, 2017-10-03 09:00:00 on line 3.
  const auto philly = hetsim::read_trace(example("philly.csv"), TraceFormat::Philly);
  REQUIRE(philly.jobs.size() == 6);
  CHECK(philly.jobs.front().id == "philly-3");
  CHECK(job(philly, "philly-2").submit.seconds() == 1800.0);
  CHECK(job(philly, "philly-7").submit.seconds() == 16 * 3600.0);

  const auto heet = hetsim::read_trace(example("heet.dat"), TraceFormat::Heet);
  REQUIRE(heet.jobs.size() == 5);
  CHECK(job(heet, "heet-4").submit.seconds() == 3 * 120.0);  // round 3 of 120 s
  CHECK(job(heet, "heet-4").work == 8.0);
  CHECK(job(heet, "heet-4").unit == hetsim::WorkUnit::Epochs);
}

TEST_CASE("example traces: alibaba-openb, itp, itp-ef and the pollux workload parse") {
  const auto openb = hetsim::read_trace(example("openb-pods.csv"), TraceFormat::AlibabaOpenb);
  REQUIRE(openb.jobs.size() == 5);
  CHECK(openb.rows_skipped == 1);  // pod-d has no GPU
  CHECK(job(openb, "pod-c").work == 7000.0);  // deletion 7400 - scheduled 400
  CHECK(job(openb, "pod-c").allowed_gpu_types == std::vector<std::string>{"v100"});
  CHECK(job(openb, "pod-f").work == 600.0);  // never scheduled: deletion 1300 - creation 700

  const auto itp = hetsim::read_trace(example("itp.csv"), TraceFormat::Itp);
  REQUIRE(itp.jobs.size() == 5);
  CHECK(job(itp, "itp-4").submit.seconds() == 90000.0);
  CHECK(job(itp, "itp-4").work == 7200.0);

  const auto ef = hetsim::read_trace(example("itp-ef.csv"), TraceFormat::ItpEf);
  REQUIRE(ef.jobs.size() == 4);
  CHECK(job(ef, "ef-3").work == 9000.0);
  CHECK(job(ef, "ef-3").unit == hetsim::WorkUnit::Iterations);
  CHECK(job(ef, "ef-3").job_type == "toyresnet");

  const auto pollux = hetsim::read_trace(example("pollux-workload.csv"), TraceFormat::Pollux);
  REQUIRE(pollux.jobs.size() == 4);
  CHECK(job(pollux, "toy-3").requested_gpus == 4);
  CHECK(job(pollux, "toy-3").global_batch_size == 256);
  CHECK(job(pollux, "toy-3").job_type == "toyapp");
}

TEST_CASE("example traces: detection picks each file's reader") {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"native.csv", "native"}, {"gavel.trace", "gavel"},          {"philly.csv", "philly"},
      {"heet.dat", "heet"},     {"openb-pods.csv", "alibaba-openb"}, {"itp.csv", "itp"},
      {"itp-ef.csv", "itp"},    {"pollux-workload.csv", "pollux"}};  // itp-ef has no rule: it reads as itp
  for (const auto& [file, format] : files) {
    INFO(file);
    CHECK(hetsim::read_trace(example(file), TraceFormat::Auto).format == format);
  }
}

TEST_CASE("example traces: the cluster spec and the node inventory") {
  const hetsim::Cluster c = hetsim::load_cluster_spec(example("cluster-2rack.json"));
  CHECK(c.name() == "example-2rack");
  CHECK(c.total_gpus() == 20);
  CHECK(c.nodes().size() == 5);
  CHECK(c.racks().size() == 2);
  const auto imported = hetsim::import_node_inventory(hetsim::InventoryFormat::AlibabaOpenb, example("openb-nodes.csv"));
  CHECK(imported.cluster.total_gpus() == 12);
  CHECK(imported.cluster.nodes().size() == 4);  // node-c1 has no GPU
}

TEST_CASE("example traces: every command of traces/README.md exits 0") {
  const hetsim::test::TempDir dir("example-traces");
  const auto commands = readme_commands();
  CHECK(commands.size() >= 11);
  for (std::size_t i = 0; i < commands.size(); ++i) {
    std::string args = commands[i];
    if (args.rfind("run ", 0) == 0) args += " -q --out " + dir.str() + "/" + std::to_string(i);
    INFO("hetsim " << args);
    CHECK(run_from_root(args) == 0);
  }
}

TEST_CASE("example traces: every file in traces/ is described in its README") {
  const std::string readme = hetsim::test::slurp(example("README.md"));
  for (const auto& entry : fs::directory_iterator(example(""))) {
    const std::string name = entry.path().filename().string();
    if (name == "README.md") continue;
    INFO(name);
    CHECK(readme.find("`" + name + (entry.is_directory() ? "/" : "")) != std::string::npos);
  }
}

TEST_CASE("example traces: a trace without jobs is an error naming the file and the format") {
  const hetsim::test::TempDir dir("no-jobs");
  const std::string empty = dir.write("empty.trace", "");
  const std::string header_only = dir.write("itp.csv", "job_id,submission_time,duration,num_gpu\n");
  // gavel and heet have no header, so an empty file parses as zero jobs; itp as a header only.
  for (auto [path, format, name] : {std::tuple{empty, TraceFormat::Gavel, "gavel"}, std::tuple{empty, TraceFormat::Heet, "heet"},
                                    std::tuple{header_only, TraceFormat::Itp, "itp"}}) {
    try {
      (void)hetsim::read_trace(path, format);
      FAIL("expected an InputError for " << name);
    } catch (const hetsim::InputError& e) {
      CHECK(e.file() == path);
      CHECK(std::string(e.what()) == path + ": the trace holds no jobs (read as format '" + name + "')");
    }
  }
}
