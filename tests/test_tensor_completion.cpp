// Tensor completion (Heet's 3-D collaborative filtering) and its baselines.
#include <catch2/catch.hpp>
#include <cmath>
#include <fmt/format.h>
#include <random>

#include "hetsim/perf/predict_check.hpp"
#include "hetsim/perf/tensor_completion.hpp"
#include "hetsim/perf/throughput_predictor.hpp"

using namespace hetsim;

namespace {

ProfileTensor empty_tensor(std::size_t I, std::size_t J, std::size_t K) {
  ProfileTensor t;
  for (std::size_t i = 0; i < I; ++i) t.jobs.push_back(fmt::format("j{}", i));
  for (std::size_t j = 0; j < J; ++j) t.gpus.push_back(fmt::format("g{}", j));
  for (std::size_t k = 0; k < K; ++k) {
    t.configs.push_back(std::to_string(k + 1));
    t.config_gpus.push_back(static_cast<int>(k + 1));
  }
  t.values.assign(I * J * K, std::nan(""));
  return t;
}

double u01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

TEST_CASE("CP-ALS recovers a rank-2 tensor exactly from 40% of its entries") {
  const std::size_t I = 10, J = 8, K = 6;
  std::mt19937_64 rng(7);
  std::vector<double> a(I * 2), b(J * 2), c(K * 2);
  for (double& x : a) x = 0.5 + u01(rng);
  for (double& x : b) x = 0.5 + u01(rng);
  for (double& x : c) x = 0.5 + u01(rng);
  ProfileTensor truth = empty_tensor(I, J, K);
  for (std::size_t i = 0; i < I; ++i)
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t k = 0; k < K; ++k)
        truth.values[truth.index(i, j, k)] = a[i * 2] * b[j * 2] * c[k * 2] + a[i * 2 + 1] * b[j * 2 + 1] * c[k * 2 + 1];
  // Exactly 40% of the 480 cells, drawn without replacement.
  std::vector<std::size_t> cells(truth.size());
  for (std::size_t n = 0; n < cells.size(); ++n) cells[n] = n;
  for (std::size_t n = 0; n < 192; ++n) std::swap(cells[n], cells[n + rng() % (cells.size() - n)]);
  cells.resize(192);
  const ProfileTensor known = keep_only(truth, cells);
  REQUIRE(known.measured_count() == 192);

  CompletionOptions o;
  o.rank = 2;
  o.pair_rank = 0;
  o.main_effects = false;
  o.interactions = false;
  o.log_space = false;
  o.lambda = 1e-12;
  o.max_iterations = 3000;
  o.tolerance = 1e-15;
  o.restarts = 5;
  const CompletionResult r = complete_tensor(known, o);
  CHECK(r.warnings.empty());
  CHECK(r.rank == 2);
  REQUIRE(r.predicted.size() == 480 - 192);
  double worst = 0.0;
  for (std::size_t n : r.predicted) worst = std::max(worst, std::abs(r.values[n] - truth.values[n]) / truth.values[n]);
  CHECK(worst < 1e-6);
  // Known cells are returned as measured.
  for (std::size_t n : cells) CHECK(r.values[n] == truth.values[n]);
}

TEST_CASE("A rank the known cells cannot support is clamped with a warning") {
  ProfileTensor t = empty_tensor(3, 2, 2);  // dims sum to 7
  t.values[t.index(0, 0, 0)] = 1.0;
  t.values[t.index(1, 1, 1)] = 2.0;
  t.values[t.index(2, 0, 1)] = 3.0;
  t.values[t.index(2, 1, 0)] = 4.0;
  CompletionOptions o;
  o.rank = 5;
  o.pair_rank = 0;
  o.main_effects = false;
  o.interactions = false;
  const CompletionResult r = complete_tensor(t, o);
  // 4 known cells < 7 parameters of even one CP component: clamped to 0... and no component left,
  // so every prediction is the (log-)mean of nothing fitted: exp(0) = 1.
  CHECK(r.rank == 0);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("clamped to rank 0") != std::string::npos);
  CHECK(r.values[t.index(0, 1, 0)] == Approx(1.0));
  o.main_effects = true;
  o.rank = 1;
  const CompletionResult r2 = complete_tensor(t, o);
  CHECK(r2.rank == 0);
  CHECK(r2.warnings.size() == 1);
}

TEST_CASE("Completion rejects what it cannot fit") {
  ProfileTensor t = empty_tensor(2, 2, 2);
  CHECK_THROWS_AS(complete_tensor(t, {}), std::invalid_argument);  // nothing known
  t.values[0] = -1.0;
  CHECK_THROWS_AS(complete_tensor(t, {}), std::invalid_argument);  // log of a negative
}

TEST_CASE("Linear-scaling baseline scales the smallest known count per GPU type") {
  ProfileTensor t = empty_tensor(2, 2, 4);  // configs 1..4 GPUs
  t.values[t.index(0, 0, 1)] = 10.0;        // job 0, gpu 0, 2 GPUs -> 5 per GPU
  t.values[t.index(0, 0, 3)] = 16.0;        // 4 GPUs (not the smallest: ignored)
  t.values[t.index(0, 1, 0)] = 2.0;         // job 0, gpu 1: 2 per GPU (ratio g0/g1 = 2.5)
  t.values[t.index(1, 0, 0)] = 6.0;         // job 1, gpu 0 only
  const auto p = predict_linear_scaling(t);
  CHECK(p[t.index(0, 0, 0)] == Approx(5.0));
  CHECK(p[t.index(0, 0, 2)] == Approx(15.0));
  CHECK(p[t.index(0, 0, 3)] == 16.0);  // known stays
  CHECK(p[t.index(0, 1, 3)] == Approx(8.0));
  // job 1 on gpu 1: 6 per GPU on g0 x median ratio g1/g0 (0.4) = 2.4 per GPU.
  CHECK(p[t.index(1, 1, 1)] == Approx(4.8));
}

TEST_CASE("Stratified profiling keeps at least one cell of every job type") {
  ProfileTensor t = empty_tensor(5, 3, 4);
  for (double& v : t.values) v = 1.0;
  std::mt19937_64 rng(1);
  const auto keep = choose_profiled(t, 0.01, rng);
  CHECK(keep.size() == 5);
  std::mt19937_64 rng2(1);
  CHECK(choose_profiled(t, 0.25, rng2).size() == 15);  // 3 of 12 per row
}

TEST_CASE("Error statistics use nearest-rank percentiles") {
  const ErrorStats s = error_stats({5, 1, 4, 2, 3, 10, 6, 7, 8, 9});
  CHECK(s.median_pct == 5);
  CHECK(s.p90_pct == 9);
  CHECK(s.cells == 10);
}

TEST_CASE("Interaction terms learn per-job scaling exponents that main effects cannot") {
  // X = size_i * speed_j * n^e_i: jobs scale with different exponents (0.9 and 0.3), so a
  // main-effects model (one shared scaling curve) must miss, while the per-job slope in log2(GPUs)
  // carries each job's exponent from its known cells to its hidden ones.
  ProfileTensor t = empty_tensor(4, 3, 4);
  for (int g : {1, 2, 4, 8}) t.config_gpus[static_cast<std::size_t>(g == 1 ? 0 : g == 2 ? 1 : g == 4 ? 2 : 3)] = g;
  const double size[] = {1.0, 2.0, 4.0, 8.0}, speed[] = {1.0, 3.0, 5.0}, expo[] = {0.9, 0.3, 0.9, 0.3};
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k)
        t.values[t.index(i, j, k)] = size[i] * speed[j] * std::pow(t.config_gpus[k], expo[i]);
  // Known: every job on every GPU type at 1 and 2 GPUs, plus 8 GPUs on GPU type 0; hidden: 4 and 8 GPUs elsewhere.
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 2; ++k) keep.push_back(t.index(i, j, k));
    keep.push_back(t.index(i, 0, 3));
  }
  std::sort(keep.begin(), keep.end());
  const ProfileTensor known = keep_only(t, keep);
  CompletionOptions o;
  o.rank = 0;
  o.pair_rank = 0;
  auto worst = [&](const CompletionResult& r) {
    double w = 0.0;
    for (std::size_t n : r.predicted) w = std::max(w, std::abs(r.values[n] - t.values[n]) / t.values[n]);
    return w;
  };
  o.interactions = true;
  const CompletionResult with = complete_tensor(known, o);
  CHECK(with.interactions);
  // Not exact: the ridge (table_lambda 1) pulls each job's slope towards the shared one, which
  // costs up to ~16% at 8 GPUs on the types where only 1-2 GPUs were profiled.
  CHECK(worst(with) < 0.2);
  o.interactions = false;
  const CompletionResult without = complete_tensor(known, o);
  // Shared curve: 8^((0.9 + 0.3) / 2) vs 8^0.9 or 8^0.3 is off by a factor 8^0.3 = 1.87.
  CHECK(worst(without) > 0.4);
}

TEST_CASE("Job families group the same model at other batch sizes") {
  CHECK(job_family("vgg19@64") == "vgg19");
  CHECK(job_family("ResNet-50 (batch size 64)") == "ResNet-50");
  CHECK(job_family("A3C") == "A3C");
}

TEST_CASE("Single-GPU sampling profiles one single-GPU cell of every job type first") {
  ProfileTensor t = empty_tensor(5, 3, 4);  // configs 1..4 GPUs: one single-GPU config per type
  for (double& v : t.values) v = 1.0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    std::mt19937_64 rng(seed);
    const auto keep = choose_profiled(t, 0.25, rng, ProfilingSampling::single_gpu);
    CHECK(keep.size() == 15);  // 3 of 12 per row, as uniform
    for (std::size_t i = 0; i < 5; ++i) {
      int singles = 0;
      for (std::size_t n : keep)
        if (n / 12 == i && t.config_gpus[n % 4] == 1) ++singles;
      CHECK(singles >= 1);
    }
  }
}

TEST_CASE("Fully profiled job types keep every measured cell and draw nothing") {
  ProfileTensor t = empty_tensor(4, 3, 4);
  for (double& v : t.values) v = 1.0;
  t.values[t.index(1, 2, 3)] = std::nan("");  // one unmeasured cell in a fully profiled row stays out
  std::mt19937_64 rng(7);
  const auto keep = choose_profiled(t, 0.25, rng, ProfilingSampling::uniform, {1, 1, 0, 1});
  std::size_t row2 = 0;
  for (std::size_t n : keep) row2 += (n / 12 == 2);
  CHECK(row2 == 3);                     // the new job type: 3 of its 12
  CHECK(keep.size() == 12 + 11 + 3 + 12);
  // The new row's draw is the same as if it were the only row that draws.
  std::mt19937_64 a(7), b(7);
  ProfileTensor one = empty_tensor(1, 3, 4);
  for (double& v : one.values) v = 1.0;
  std::vector<std::size_t> alone = choose_profiled(one, 0.25, a);
  std::vector<std::size_t> mine;
  for (std::size_t n : choose_profiled(t, 0.25, b, ProfilingSampling::uniform, {1, 1, 0, 1}))
    if (n / 12 == 2) mine.push_back(n - 24);
  CHECK(mine == alone);
}

TEST_CASE("New-job protocol scores each job type once, on its own hidden cells") {
  // Exactly multiplicative tensor: size_i * speed_j * n^0.8. Every job type is new in exactly one
  // trial, so 6 job types x 9 hidden cells are scored, and the tables recover them closely.
  ProfileTensor t = empty_tensor(6, 3, 4);
  const double size[] = {1, 2, 3, 5, 7, 11}, speed[] = {1.0, 2.5, 4.0};
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k)
        t.values[t.index(i, j, k)] = size[i] * speed[j] * std::pow(t.config_gpus[k], 0.8);
  CompletionOptions o;
  o.rank = 0;
  o.pair_rank = 0;
  const PredictCheckRow r = predict_check(t, 0.25, 10, o, 3, ProfilingSampling::uniform, ProfilingProtocol::new_job);
  CHECK(r.cf.cells == 6 * 9);
  CHECK(r.known == 5 * 12 + 3);
  CHECK(r.cf.median_pct < 5.0);
  const PredictCheckRow all = predict_check(t, 0.25, 2, o, 3);
  CHECK(all.cf.cells == 2 * 6 * 9);
  CHECK(all.known == 6 * 3);
}

TEST_CASE("Median bounds bracket the nearest-rank median of every completion") {
  // Seen {3, 1, 2}, 2 values to come: 5 in all, the median is the 3rd smallest. Both coming below
  // everything: {0, 0, 1, 2, 3} -> 1 (the (3 - 2)-th seen); both above: {1, 2, 3, 9, 9} -> 3.
  const auto [lo, hi] = median_bounds({3, 1, 2}, 2);
  CHECK(lo == 1);
  CHECK(hi == 3);
  CHECK(error_stats({0, 0, 3, 1, 2}).median_pct == lo);
  CHECK(error_stats({9, 9, 3, 1, 2}).median_pct == hi);
  // Nothing to come: both bounds are the median itself. Three to come (6 in all, the 3rd
  // smallest): unbounded below (all three may be smaller), at most the 3rd seen.
  CHECK(median_bounds({3, 1, 2}, 0) == std::pair<double, double>{2, 2});
  const auto [lo3, hi3] = median_bounds({3, 1, 2}, 3);
  CHECK(std::isinf(lo3));
  CHECK(lo3 < 0);
  CHECK(hi3 == 3);
  CHECK(std::isinf(median_bounds({3, 1, 2}, 4).second));
}

TEST_CASE("Configuration folds apply only above a thousand known cells") {
  // 30 job types x 4 GPU types x 10 configurations; 900 known cells: the flag changes nothing (random
  // cell folds, no extra shrinkage candidates); 1,140 known: the CV may pick a shrunk table, and
  // whatever it picks is reported.
  auto make = [](std::size_t known_per_job) {
    ProfileTensor t = empty_tensor(30, 4, 10);
    std::mt19937_64 rng(11);
    for (std::size_t n = 0; n < t.size(); ++n) {
      const std::size_t i = n / 40, k = n % 10;
      t.values[n] = (1.0 + static_cast<double>(i)) * (0.5 + u01(rng)) * std::pow(static_cast<double>(k + 1), 0.7);
      if (n % 40 >= known_per_job) t.values[n] = std::nan("");
    }
    return t;
  };
  CompletionOptions plain;
  plain.auto_select = true;
  plain.max_iterations = 60;
  CompletionOptions folds = plain;
  folds.configuration_folds = true;
  const ProfileTensor small = make(30);
  REQUIRE(small.measured_count() == 900);
  const CompletionResult a = complete_tensor(small, plain), b = complete_tensor(small, folds);
  CHECK(a.values == b.values);
  CHECK(b.table_lambda_scale == 1.0);
  const ProfileTensor large = make(38);
  REQUIRE(large.measured_count() == 1140);
  const CompletionResult c = complete_tensor(large, folds);
  CHECK((c.table_lambda_scale == 1.0 || c.table_lambda_scale == 2.0 || c.table_lambda_scale == 4.0));
  CHECK(c.interactions);
}
