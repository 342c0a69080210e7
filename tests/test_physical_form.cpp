// The physical scaling form, active profiling and the combined predictor (issue 15).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <unistd.h>

#include "hetsim/perf/physical_form.hpp"
#include "hetsim/perf/predict_check.hpp"
#include "hetsim/perf/throughput_predictor.hpp"
#include "cli_support.hpp"

using namespace hetsim;
using namespace hetsim::test;

namespace {

ProfileTensor pf_tensor(std::size_t I, std::size_t J, const std::vector<int>& gpus) {
  ProfileTensor t;
  for (std::size_t i = 0; i < I; ++i) t.jobs.push_back(fmt::format("j{}", i));
  for (std::size_t j = 0; j < J; ++j) t.gpus.push_back(fmt::format("g{}", j));
  for (int n : gpus) {
    t.configs.push_back(std::to_string(n));
    t.config_gpus.push_back(n);
  }
  t.values.assign(I * J * gpus.size(), std::nan(""));
  return t;
}

double pf_u01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

TEST_CASE("physical form: recovers its own synthetic parameters exactly") {
  // t = u_i a_j / n + v_i b_j + g_i K[j, n] with K = 0 on one GPU; every cell known.
  const std::size_t I = 6, J = 3;
  const std::vector<int> n{1, 2, 4, 8};
  const std::size_t K = n.size();
  std::mt19937_64 rng(11);
  std::vector<double> u(I), v(I), g(I), a(J), b(J), comm(J * K, 0.0);
  for (std::size_t i = 0; i < I; ++i) u[i] = 1 + 9 * pf_u01(rng), v[i] = 0.2 + pf_u01(rng), g[i] = 0.5 + 2 * pf_u01(rng);
  for (std::size_t j = 0; j < J; ++j) a[j] = 0.5 + pf_u01(rng), b[j] = 0.5 + pf_u01(rng);
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 1; k < K; ++k) comm[j * K + k] = 0.1 + pf_u01(rng);
  ProfileTensor t = pf_tensor(I, J, n);
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t k = 0; k < K; ++k)
        t.values[t.index(i, j, k)] = 1.0 / (u[i] * a[j] / n[k] + v[i] * b[j] + g[i] * comm[j * K + k]);
  // Alternating least squares converges linearly: let it run to the floating-point floor.
  PhysicalFitOptions po;
  po.max_sweeps = 100000;
  po.tolerance = 0.0;
  const PhysicalForm f = fit_physical_form(t, po);
  CHECK(f.loss < 1e-20);
  auto rel = [](double x, double y) { return std::abs(x - y) / std::abs(y); };
  // Each term's product is identified (a factor can move between u_i and a_j, not the product).
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t j = 0; j < J; ++j) {
      CHECK(rel(f.u[i] * f.a[j], u[i] * a[j]) < 1e-9);
      CHECK(rel(f.v[i] * f.b[j], v[i] * b[j]) < 1e-9);
      for (std::size_t k = 1; k < K; ++k) CHECK(rel(f.g[i] * f.comm[j * K + k], g[i] * comm[j * K + k]) < 1e-9);
      CHECK(f.comm[j * K] == 0.0);
      for (std::size_t k = 0; k < K; ++k) CHECK(rel(f.throughput(i, j, k), t.at(i, j, k)) < 1e-9);
    }
}

TEST_CASE("physical form: a new job's three chosen cells predict the rest of its row exactly") {
  // Five job types known in full, a sixth with only the active-profiling cells: one GPU on two GPU
  // types and the largest count on another identify its (u, v, g) exactly.
  const std::size_t I = 6, J = 3;
  const std::vector<int> n{1, 2, 4};
  std::mt19937_64 rng(5);
  std::vector<double> u(I), v(I), g(I), a(J), b(J), comm(J * 3, 0.0);
  for (std::size_t i = 0; i < I; ++i) u[i] = 1 + 9 * pf_u01(rng), v[i] = 0.2 + pf_u01(rng), g[i] = 0.5 + 2 * pf_u01(rng);
  for (std::size_t j = 0; j < J; ++j) a[j] = 0.5 + pf_u01(rng), b[j] = 0.5 + pf_u01(rng);
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 1; k < 3; ++k) comm[j * 3 + k] = 0.1 + pf_u01(rng);
  ProfileTensor truth = pf_tensor(I, J, n);
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t k = 0; k < 3; ++k)
        truth.values[truth.index(i, j, k)] = 1.0 / (u[i] * a[j] / n[k] + v[i] * b[j] + g[i] * comm[j * 3 + k]);
  std::vector<std::size_t> keep;
  for (std::size_t c = 0; c < 5 * J * 3; ++c) keep.push_back(c);
  const auto chosen = active_profiling_cells(truth, 5, 3);
  REQUIRE(chosen == std::vector<std::size_t>{truth.index(5, 0, 0), truth.index(5, 1, 2), truth.index(5, 2, 0)});
  keep.insert(keep.end(), chosen.begin(), chosen.end());
  const PhysicalForm f = fit_physical_form(keep_only(truth, keep));
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 0; k < 3; ++k)
      CHECK(std::abs(f.throughput(5, j, k) / truth.at(5, j, k) - 1.0) < 1e-9);
}

TEST_CASE("active profiling: picks the documented cells on a small hand example") {
  // One job type, GPU types g0 g1 g2, configurations 1, 2, 4 GPUs; g0 was never measured at 4.
  ProfileTensor t = pf_tensor(1, 3, {1, 2, 4});
  for (double& x : t.values) x = 1.0;
  t.values[t.index(0, 0, 2)] = std::nan("");
  // Types by measured cells: g1 (3), g2 (3), g0 (2). 1: one GPU on g1; 2: the largest on g2 (4
  // GPUs); 3: one GPU on g0; 5: the largest on g1 (4), on g0 (2, its largest measured);
  // 6: round-robin, farthest from the chosen counts: g1/2, g2/1 (2 doublings from 4), g2/2.
  const std::vector<std::size_t> all = active_profiling_cells(t, 0, 100);
  CHECK(all == std::vector<std::size_t>{t.index(0, 1, 0), t.index(0, 2, 2), t.index(0, 0, 0), t.index(0, 1, 2),
                                        t.index(0, 0, 1), t.index(0, 1, 1), t.index(0, 2, 0), t.index(0, 2, 1)});
  CHECK(active_profiling_cells(t, 0, 3) == std::vector<std::size_t>{t.index(0, 1, 0), t.index(0, 2, 2), t.index(0, 0, 0)});
  // With coverage: after the first cell, (GPU type, configuration) pairs nobody profiled come first.
  std::vector<int> covered(9, 1);
  covered[1 * 3 + 1] = 0;  // g1 / 2 GPUs
  CHECK(active_profiling_cells(t, 0, 3, covered) ==
        std::vector<std::size_t>{t.index(0, 1, 0), t.index(0, 1, 1), t.index(0, 2, 2)});
  // Through choose_profiled: round(0.25 x 8) = 2 cells, no random draw, sorted.
  std::mt19937_64 rng(1);
  const auto before = rng;
  CHECK(choose_profiled(t, 0.25, rng, ProfilingSampling::active) ==
        std::vector<std::size_t>{t.index(0, 1, 0), t.index(0, 2, 2)});
  CHECK(rng == before);
}

TEST_CASE("predictor: cross-validation picks the form on data the form generated") {
  const std::size_t I = 8, J = 3;
  const std::vector<int> n{1, 2, 4, 8};
  std::mt19937_64 rng(3);
  ProfileTensor truth = pf_tensor(I, J, n);
  std::vector<double> a(J), b(J), comm(J * 4, 0.0);
  for (std::size_t j = 0; j < J; ++j) a[j] = 0.5 + pf_u01(rng), b[j] = 0.5 + pf_u01(rng);
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 1; k < 4; ++k) comm[j * 4 + k] = 0.1 * k + pf_u01(rng);
  for (std::size_t i = 0; i < I; ++i) {
    const double u = 1 + 9 * pf_u01(rng), v = 0.2 + pf_u01(rng), g = 0.5 + 2 * pf_u01(rng);
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t k = 0; k < 4; ++k)
        truth.values[truth.index(i, j, k)] = 1.0 / (u * a[j] / n[k] + v * b[j] + g * comm[j * 4 + k]);
  }
  // Job types 0-5 known in full, 6 and 7 through their three active cells.
  std::vector<std::size_t> keep;
  for (std::size_t c = 0; c < 6 * J * 4; ++c) keep.push_back(c);
  for (std::size_t i : {6, 7})
    for (std::size_t c : active_profiling_cells(truth, i, 3)) keep.push_back(c);
  std::sort(keep.begin(), keep.end());
  PredictorOptions o;
  o.completion.auto_select = true;
  const CompletionResult r = predict_throughputs(keep_only(truth, keep), o);
  CHECK(r.method != "cf");
  // Not to 1e-9: the default fit stops after 400 sweeps (relative loss change 1e-15).
  for (std::size_t c : r.predicted) CHECK(std::abs(r.values[c] / truth.values[c] - 1.0) < 1e-3);
  o.physical = false;
  CHECK(predict_throughputs(keep_only(truth, keep), o).method == "cf");
}

namespace {

std::string pf_write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("hetsim-pf-{}-{}", ::getpid(), name);
  std::ofstream(path) << text;
  return path.string();
}

// Three job types on two GPU types, 1-4 GPUs; "small@64 / t4 / 4" is missing from the profile.
const char* const kPfProfile = R"({"epoch_time_s": {
  "v100": {"big": {"256": {"1": 100, "2": 53, "3": 37, "4": 29}}, "mid": {"128": {"1": 60, "2": 33, "3": 24, "4": 19}},
           "small": {"64": {"1": 20, "2": 12, "3": 9, "4": 8}}},
  "t4":   {"big": {"256": {"1": 260, "2": 136, "3": 94, "4": 73}}, "mid": {"128": {"1": 150, "2": 80, "3": 56, "4": 45}},
           "small": {"64": {"1": 48, "2": 27, "3": 20}}}}})";

}  // namespace

TEST_CASE("predict-check: byte-identical output across runs, the target line and the predicted missing cells") {
  const std::string profile = pf_write("profile.json", kPfProfile);
  const std::string args = "predict-check --gavel '' --sia '' --heet " + profile +
                           " --protocol new-job --trials 3 --fractions 0.25 0.5";
  const CliResult first = run_cli(args), second = run_cli(args);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output == second.output);
  CHECK_THAT(first.output, Catch::Contains("protocol new-job, sampling active"));
  CHECK_THAT(first.output, Catch::Contains("target: median absolute error < 10% at 25% profiled, protocol new-job, "
                                           "sampling active\n  heet-prototype: median "));
  CHECK_THAT(first.output, Catch::Contains("1 cell(s) absent from the profile, predicted and not scored: small@64 / t4 / 4"));
  const CliResult bad = run_cli("predict-check --gavel '' --sia '' --heet " + profile + " --sampling random");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("field '--sampling': 'random' is not 'active', 'uniform' or 'single-gpu'"));
}

TEST_CASE("profiling cf: a job type absent from every profile is an input error, missing cells are listed") {
  const std::string profile = pf_write("profile2.json", kPfProfile);
  const std::string good = pf_write("good.dat", "0,big,2,2,256\n1,small,1,1,64\n");
  const std::string base = "run -q --cluster heet-12 --format heet --policy heet --profiling cf --throughputs " + profile;
  const CliResult ok = run_cli(base + " --trace " + good + " --log-level info");
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Catch::Contains("cf: 1 cell(s) absent from " + profile + " were predicted: small@64 / t4 / 4"));
  const std::string absent = pf_write("absent.dat", "0,big,2,2,256\n1,tiny,1,1,32\n");
  const CliResult r = run_cli(base + " --trace " + absent);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(absent + ":2: field 'job_type': job "));
  CHECK_THAT(r.output, Catch::Contains("job type 'tiny' (batch 32) is absent from every profile in " + profile));
}

TEST_CASE("active profiling: placements of the same GPU count go fewest-profiled first") {
  // One job type on one GPU type; placements 1, 2 (say "2"), 2 (say "11"), 4 GPUs. One GPU first,
  // the largest next; the two 2-GPU placements are equally far (one doubling) from both: without
  // coverage the one listed first, with coverage the one fewer job types profiled.
  ProfileTensor t = pf_tensor(1, 1, {1, 2, 2, 4});
  for (double& x : t.values) x = 1.0;
  CHECK(active_profiling_cells(t, 0, 4) == std::vector<std::size_t>{0, 3, 1, 2});
  const std::vector<int> covered{5, 3, 1, 5};  // nothing uncovered: only the tie-break acts
  CHECK(active_profiling_cells(t, 0, 4, covered) == std::vector<std::size_t>{0, 3, 2, 1});
  CHECK(active_profiling_cells(t, 0, 3, covered) == std::vector<std::size_t>{0, 3, 2});
}
