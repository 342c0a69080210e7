// The fit-check of the step-time models (fit_check.hpp): pollux-fit's optimiser on exact synthetic
// data, the analytic predictor's hand-computed steps, and the held-out figures on real profiles.
#include <catch2/catch.hpp>

#include <cmath>

#include "hetsim/perf/fit_check.hpp"
#include "hetsim/perf/pollux_fit.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

StepSample row(const std::string& placement, double bsz, double step_s, double sync_s) {
  StepSample s;
  s.placement = placement;
  s.num_nodes = static_cast<int>(placement.size());
  for (char c : placement) s.num_replicas += c - '0';
  s.local_bsz = bsz;
  s.step_time_s = step_s;
  s.sync_time_s = sync_s;
  return s;
}

// A site like AWS g4dn.12xlarge: 4 GPUs on PCIe (12 GB/s, 5 us per hop), 50 Gbit/s NIC.
MeasuredSite toy_site() { return MeasuredSite{"toy", 4, InterconnectKind::Pcie, 12.0, 50.0}; }

}  // namespace

TEST_CASE("pollux-fit recovers the parameters that generated exact step times") {
  PolluxPerfParams truth;
  truth.alpha_c = 0.05;
  truth.beta_c = 0.002;
  truth.alpha_r = 0.02;
  truth.beta_r = 0.003;
  truth.alpha_n = 0.08;
  truth.beta_n = 0.004;
  truth.gamma = 2.0;
  std::vector<StepSample> rows;
  for (const char* placement : {"1", "2", "3", "4", "11", "22", "44", "444", "4444"})
    for (double b : {8.0, 16.0, 32.0, 64.0, 128.0}) {
      StepSample s = row(placement, b, 0.0, 0.0);
      StepTime t = truth.predict(s.num_nodes, s.num_replicas, b);
      s.step_time_s = t.step_s;
      s.sync_time_s = t.sync_s;  // measured sync = the part of the step beyond compute
      rows.push_back(s);
    }
  const PolluxPerfParams fit = fit_pollux_params(rows);
  CHECK(fit.alpha_c == Approx(truth.alpha_c).epsilon(0.01));
  CHECK(fit.beta_c == Approx(truth.beta_c).epsilon(0.01));
  CHECK(fit.gamma == Approx(truth.gamma).epsilon(0.02));
  for (const StepSample& s : rows)
    CHECK(fit.predict(s.num_nodes, s.num_replicas, s.local_bsz).step_s == Approx(s.step_time_s).epsilon(0.005));
  CHECK_THROWS_AS(fit_pollux_params({}), std::invalid_argument);
}

TEST_CASE("pollux-fit without multi-node rows keeps Pollux's prior: inter-node 10% slower") {
  std::vector<StepSample> rows;
  for (double b : {10.0, 20.0, 40.0}) {
    rows.push_back(row("1", b, 0.01 * b, 0.0));
    rows.push_back(row("2", b, 0.01 * b + 0.05, 0.05));
    rows.push_back(row("4", b, 0.01 * b + 0.07, 0.07));
  }
  const PolluxPerfParams p = fit_pollux_params(rows);
  CHECK(p.alpha_n >= 1.1 * p.alpha_r * 0.999999);
  CHECK(p.beta_n >= 1.1 * p.beta_r * 0.999999);
  CHECK(p.predict(2, 4, 20.0).step_s >= p.predict(1, 4, 20.0).step_s);
}

TEST_CASE("analytic predictor: compute from single-GPU rows plus ring all-reduce on the site") {
  const std::vector<StepSample> single{row("1", 10, 0.1, 0.0), row("1", 20, 0.2, 0.0), row("1", 20, 0.22, 0.0)};
  const double bytes = 1.2e9;
  const AnalyticStepPredictor pred(toy_site(), 2, bytes, single);
  // Equal batches averaged (0.21 at 20); interpolation inside, clamp below, last segment beyond.
  CHECK(pred.compute_s(10) == Approx(0.1));
  CHECK(pred.compute_s(15) == Approx(0.155));
  CHECK(pred.compute_s(5) == Approx(0.1));
  CHECK(pred.compute_s(30) == Approx(0.32));
  // One GPU: the compute time alone.
  auto one = pred.predict(row("1", 15, 0, 0));
  REQUIRE(one);
  CHECK(one->step_s == Approx(0.155));
  // Two GPUs of one node: ring of 2, two steps of S/2 over 12 GB/s PCIe plus GPU-switch-GPU
  // latency 2 x 5 us: comm = 2 (0.6e9 / 12e9 + 10e-6) = 0.10002 s; step = c + comm - 0.5 min.
  auto two = pred.predict(row("2", 15, 0, 0));
  REQUIRE(two);
  CHECK(two->comm_s == Approx(0.10002));
  CHECK(two->step_s == Approx(0.155 + 0.10002 - 0.5 * 0.10002));
  // Two nodes x 1 GPU: the ring crosses both 50 Gbit/s (6.25 GB/s) NICs; latency per hop
  // GPU-switch-ToR-switch-GPU = 5 + 5 + 5 + 5 us: comm = 2 (0.6e9 / 6.25e9 + 20e-6) = 0.19204 s.
  auto spread = pred.predict(row("11", 15, 0, 0));
  REQUIRE(spread);
  CHECK(spread->comm_s == Approx(0.19204));
  // A scalability row (no placement): 3 replicas on 2 nodes = 2 + 1, more than one node.
  StepSample scal = row("", 15, 0, 0);
  scal.num_nodes = 2;
  scal.num_replicas = 3;
  auto s3 = pred.predict(scal);
  REQUIRE(s3);
  CHECK(s3->comm_s > two->comm_s);
  // Placements the site cannot hold: 5 GPUs on a 4-GPU node, 3 nodes on a 2-node cluster.
  CHECK_FALSE(pred.predict(row("5", 15, 0, 0)));
  CHECK_FALSE(pred.predict(row("111", 15, 0, 0)));
  CHECK_THROWS_AS(AnalyticStepPredictor(toy_site(), 2, bytes, {}), std::invalid_argument);
  CHECK_THROWS_AS(AnalyticStepPredictor(toy_site(), 2, 0.0, single), std::invalid_argument);
  CHECK_THROWS_AS(AnalyticStepPredictor(toy_site(), 2, bytes, {row("2", 10, 0.1, 0.0)}), std::invalid_argument);
}

TEST_CASE("fit-check tables: gradient sizes are 4 bytes per parameter, sites per GPU type") {
  CHECK(*pollux_gradient_bytes("cifar10") == Approx(4 * 11'173'962.0));
  CHECK(*pollux_gradient_bytes("imagenet") == Approx(4 * 25'557'032.0));
  CHECK_FALSE(pollux_gradient_bytes("gpt_pmp"));
  CHECK(measured_site("t4")->nic_gbps == 50.0);
  CHECK(measured_site("a100")->interconnect == InterconnectKind::NvSwitch);
  CHECK_FALSE(measured_site("k80"));
}

TEST_CASE("fit-check on ncf T4: pollux-fit within its band, analytic far off (documented gap)") {
  auto root = test::shared_data("pollux/traces");
  if (!root) return;
  std::map<std::string, PolluxApplication> apps;
  apps.emplace("ncf", PolluxApplication::load("ncf", {*root}));
  auto rows = fit_check(apps);
  REQUIRE(rows.size() == 1);
  const FitCheckRow& r = rows[0];
  CHECK(r.gpu_type == "t4");
  CHECK(r.train_rows == 1060);
  CHECK(r.test_rows == 1059);
  CHECK(r.data_parallel);
  // Measured 6.7% / 20.8% (docs/EXPERIMENTS.md); a perfect fit would mean the check leaks rows.
  CHECK(r.median_rel_err > 0.05);
  CHECK(r.median_rel_err < 0.08);
  CHECK(r.p90_rel_err > 0.17);
  CHECK(r.p90_rel_err < 0.23);
  // The analytic model with the documented 50 Gbit/s under-predicts the measured sync (65.2%).
  CHECK(r.analytic_errors.size() == 1059);
  CHECK(r.analytic_note.empty());
  CHECK(r.analytic_median_rel_err > 0.55);
  CHECK(r.analytic_median_rel_err < 0.75);
}

TEST_CASE("fit-check keeps Sia's pipeline-parallel gpt_pmp out of the data-parallel figures") {
  auto sia = test::shared_data("sia/traces");
  if (!sia) return;
  std::map<std::string, PolluxApplication> apps;
  apps.emplace("gpt_pmp", PolluxApplication::load("gpt_pmp", {*sia}));
  auto rows = fit_check(apps);
  REQUIRE(rows.size() == 2);  // a100 (-dgx-ext) and rtx2080ti
  for (const FitCheckRow& r : rows) {
    CHECK_FALSE(r.data_parallel);
    CHECK(r.analytic_errors.empty());
    CHECK(r.analytic_note == "not data parallel");
  }
}
