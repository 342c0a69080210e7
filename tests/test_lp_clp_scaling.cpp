// Clp's own scaling made Debian's Clp 1.17.6 abort (assertion `elValue` in
// ClpPackedMatrix::gutsOfTransposeTimesByRowGE3) on gavel-makespan's first LP for 177 identical
// ResNet-50 jobs on gavel-24 (found by the new-user trial of 2026-12-04; 176 jobs did not abort).
// src/policy/lp_clp.cpp turns that scaling off; this run must finish every job.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hetsim/metrics/recorder.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/run.hpp"
#include "test_support.hpp"

using namespace hetsim;
using hetsim::test::shared_data;  // was only visible through the unity batch before it

TEST_CASE("clp: gavel-makespan on 177 ResNet-50 jobs runs to the end (Clp scaling off)", "[lp][clp]") {
  auto tput = shared_data("gavel/simulation_throughputs.json");
  if (!tput) return;
  const auto trace = std::filesystem::temp_directory_path() / "hetsim_clp_177.trace";
  {
    std::ofstream f(trace);
    const int gpus[] = {1, 2, 4, 8};
    for (int i = 0; i < 177; ++i)
      f << "ResNet-50 (batch size 128)\tcmd\t-s\t0\t" << 5000 + (i % 3) * 100000 << "\t0\t" << gpus[i % 4] << "\n";
  }
  RunSpec spec;
  spec.cluster = "gavel-24";
  spec.trace = trace.string();
  spec.throughputs = *tput;
  spec.policy = "gavel-makespan";
  spec.params = {{"solver", "clp"}, {"group", "false"}};  // the per-job LP is the one that aborted
  spec.mechanism_kind = "gavel";
  spec.mechanism.interval_s = 360;
  spec.seed = 0;
  RunOutput out = run_simulation(spec, make_default_registry());
  std::filesystem::remove(trace);
  std::ostringstream s;
  write_summary_json(s, out.summary, out.info);
  const nlohmann::json j = nlohmann::json::parse(s.str());
  CHECK(j["completed"].get<int>() == 177);
  CHECK(j["unfinished"].get<int>() == 0);
  // Pinned from `hetsim run --cluster gavel-24 --trace <this trace> --throughputs ... --policy
  // gavel-makespan --param solver=clp --param group=false` (360 s rounds, seed 0).
  CHECK(j["jct_mean_s"].get<double>() == Approx(552759.249).epsilon(1e-7));
}
