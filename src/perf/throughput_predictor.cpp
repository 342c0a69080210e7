// Heet's predictor (Mo, Xu, Xu, ASPLOS'24) as the physical step-time form (Optimus, EuroSys'18;
// Pollux, OSDI'21) combined with the collaborative-filtering completion, chosen by cross-validation
// on the profiled cells only (docs/models.md, "Physical scaling form").
#include "hetsim/perf/throughput_predictor.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <optional>
#include <utility>

#include "hetsim/perf/predict_check.hpp"

namespace hetsim {
namespace {

enum class Method { cf, form, form_cf };

const char* method_name(Method m) { return m == Method::cf ? "cf" : m == Method::form ? "form" : "form+cf"; }

// Every cell under one method; known cells keep their measurement. `cf_values` is the plain
// completion's (used for method cf and where the form has no prediction).
std::vector<double> combine(const ProfileTensor& known, const CompletionOptions& copt, const PhysicalFitOptions& fopt,
                            Method m, const std::vector<double>& cf_values) {
  if (m == Method::cf) return cf_values;
  const PhysicalForm form = fit_physical_form(known, fopt);
  const std::size_t J = known.dim_gpus(), K = known.dim_configs();
  std::vector<double> phys(known.size());
  for (std::size_t n = 0; n < known.size(); ++n) phys[n] = form.throughput(n / (J * K), (n / K) % J, n % K);
  std::vector<double> out(known.size());
  if (m == Method::form_cf) {
    // The residual the form leaves, measured / form, completed like a profile (log space).
    ProfileTensor ratio = known;
    for (std::size_t n = 0; n < known.size(); ++n)
      ratio.values[n] = known.measured(n) && std::isfinite(phys[n]) ? known.values[n] / phys[n] : std::nan("");
    if (ratio.measured_count() > 0) {
      // The interaction tables alone (no CP, no inner CV): the residual is small and smooth, and the
      // inner cross-validation would double the cost.
      CompletionOptions ropt = copt;
      ropt.auto_select = false;
      ropt.rank = 0;
      ropt.pair_rank = 0;
      const CompletionResult r = complete_tensor(ratio, ropt);
      for (std::size_t n = 0; n < known.size(); ++n) phys[n] = std::isfinite(phys[n]) ? phys[n] * r.values[n] : phys[n];
    }
  }
  for (std::size_t n = 0; n < known.size(); ++n)
    out[n] = known.measured(n) ? known.values[n] : std::isfinite(phys[n]) && phys[n] > 0.0 ? phys[n] : cf_values[n];
  return out;
}

bool has_dense_jobs(const ProfileTensor& known) {
  const std::size_t row = known.dim_gpus() * known.dim_configs();
  std::size_t lo = std::numeric_limits<std::size_t>::max(), hi = 0;
  for (std::size_t i = 0; i < known.dim_jobs(); ++i) {
    std::size_t c = 0;
    for (std::size_t n = i * row; n < (i + 1) * row; ++n) c += known.measured(n);
    if (c == 0) continue;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  return hi >= 2 * lo && hi > 0;
}

// Above this many known cells (Sia's table: about 8,000 in new-job; Heet's 144, Gavel's under 400)
// the cross-validation uses 4 job-type folds instead of 8 and caps the form's sweeps at 100: it only
// ranks two methods, and at full effort it cost minutes of CPU per check (issue 15).
constexpr std::size_t kLargeKnownCells = 2000;

// The folds: for each, the cells kept for training (the rest of the known cells are scored).
// `job_folds`: at most this many job-type folds in the online setting.
std::vector<std::vector<char>> cv_folds(const ProfileTensor& known, std::uint64_t seed, std::size_t job_folds) {
  const std::size_t I = known.dim_jobs(), row = known.dim_gpus() * known.dim_configs();
  std::vector<std::size_t> count(I, 0);
  for (std::size_t n = 0; n < known.size(); ++n) count[n / row] += known.measured(n);
  std::size_t sparsest = std::numeric_limits<std::size_t>::max();
  for (std::size_t c : count)
    if (c > 0) sparsest = std::min(sparsest, c);
  std::vector<std::size_t> dense;
  for (std::size_t i = 0; i < I; ++i)
    if (count[i] >= 2 * sparsest) dense.push_back(i);
  std::mt19937_64 rng(seed ^ 0xc2b2ae3d27d4eb4fULL);
  constexpr std::size_t kFolds = 4;
  std::vector<std::vector<char>> folds;
  std::vector<char> is_known(known.size(), 0);
  for (std::size_t n = 0; n < known.size(); ++n) is_known[n] = known.measured(n);
  if (dense.size() >= 2) {
    // Heet's online setting: earlier job types are known in full; a fold makes one of them "new".
    // A new job type's other batch sizes are usually known, so prefer job types whose family
    // keeps another fully known member (a fold without it would test a rarer case).
    std::vector<std::size_t> eligible;
    for (std::size_t d : dense)
      for (std::size_t e : dense)
        if (e != d && job_family(known.jobs[e]) == job_family(known.jobs[d])) {
          eligible.push_back(d);
          break;
        }
    if (eligible.size() < 2) eligible = dense;
    for (std::size_t n = eligible.size(); n > 1; --n) std::swap(eligible[n - 1], eligible[rng() % n]);
    // Each fold scores one job type's row: up to `job_folds` of them (each fold refits everything).
    for (std::size_t f = 0; f < std::min(job_folds, eligible.size()); ++f) {
      std::vector<char> train = is_known;
      const std::size_t i = eligible[f];
      for (std::size_t n = i * row; n < (i + 1) * row; ++n) train[n] = 0;
      for (std::size_t n : active_profiling_cells(known, i, sparsest)) train[n] = 1;
      folds.push_back(std::move(train));
    }
    return folds;
  }
  std::vector<std::size_t> cells;
  for (std::size_t n = 0; n < known.size(); ++n)
    if (is_known[n]) cells.push_back(n);
  for (std::size_t n = cells.size(); n > 1; --n) std::swap(cells[n - 1], cells[rng() % n]);
  for (std::size_t f = 0; f < kFolds && cells.size() >= kFolds; ++f) {
    std::vector<char> train = is_known;
    for (std::size_t c = f; c < cells.size(); c += kFolds) train[cells[c]] = 0;
    folds.push_back(std::move(train));
  }
  return folds;
}

// The method whose median is the lower whatever errors the `rest` cells still to score have
// (nullopt while that is open), by choose_method()'s rule (form+cf only if its median is lower by
// more than 1e-12). Stopping the folds then gives the same choice for less CPU: exact, not a
// heuristic (Sia's table: the folds were most of a trial's CPU).
std::optional<Method> median_decided(const std::vector<double>& err_cf, const std::vector<double>& err_form_cf,
                                     std::size_t rest) {
  if (err_cf.empty() || err_form_cf.empty()) return std::nullopt;
  const auto [cf_lo, cf_hi] = median_bounds(err_cf, rest);
  const auto [fc_lo, fc_hi] = median_bounds(err_form_cf, rest);
  if (fc_hi < cf_lo - 1e-12) return Method::form_cf;
  if (!(fc_lo < cf_hi - 1e-12)) return Method::cf;
  return std::nullopt;
}

Method choose_method(const ProfileTensor& known, const PredictorOptions& options) {
  const bool large = known.measured_count() > kLargeKnownCells;
  const std::vector<std::vector<char>> folds = cv_folds(known, options.completion.seed, large ? 4 : 8);
  // Without fully known job types the form has nothing to carry to a sparse one, and random-cell
  // folds chose it where it lost (all-new on Gavel's table: 28.3% against 23.1% median): CF alone.
  if (folds.empty() || !has_dense_jobs(known)) return Method::cf;
  // Cross-validation only ranks the methods: one CF start and fewer sweeps are enough for that.
  CompletionOptions cv = options.completion;
  cv.restarts = 1;
  cv.max_iterations = std::min(cv.max_iterations, 100);
  // ... and the CF of the interaction tables without CP components (what its own CV picks on these
  // profiles), not its inner cross-validation: that would multiply the cost by the candidates.
  cv.auto_select = false;
  cv.rank = 0;
  cv.pair_rank = 0;
  PhysicalFitOptions form = options.form;
  if (large) form.max_sweeps = std::min(form.max_sweeps, 100);
  std::array<std::vector<double>, 3> err;
  // Cells each fold scores, so that the folds still to run can be bounded (median_decided()).
  std::vector<std::size_t> scored(folds.size(), 0);
  for (std::size_t f = 0; f < folds.size(); ++f)
    for (std::size_t n = 0; n < known.size(); ++n) scored[f] += known.measured(n) && !folds[f][n];
  std::size_t remaining = 0;
  for (std::size_t c : scored) remaining += c;
  for (std::size_t f = 0; f < folds.size(); ++f) {
    if (const auto decided = median_decided(err[static_cast<std::size_t>(Method::cf)],
                                            err[static_cast<std::size_t>(Method::form_cf)], remaining))
      return *decided;
    remaining -= scored[f];
    ProfileTensor train = known;
    for (std::size_t n = 0; n < known.size(); ++n)
      if (!folds[f][n]) train.values[n] = std::nan("");
    cv.seed = options.completion.seed + f;
    const std::vector<double> cf = complete_tensor(train, cv).values;
    // The form alone is not a candidate: on the profiles checked it never beat the form + CF.
    for (Method m : {Method::cf, Method::form_cf}) {
      const std::vector<double> pred = combine(train, cv, form, m, cf);
      for (std::size_t n = 0; n < known.size(); ++n)
        if (known.measured(n) && !folds[f][n])
          err[static_cast<std::size_t>(m)].push_back(std::abs(std::log(pred[n] / known.values[n])));
    }
  }
  // The median, as the accuracy target is stated: a few cells no method predicts do not decide.
  std::array<double, 3> score{};
  for (std::size_t m = 0; m < 3; ++m) score[m] = error_stats(err[m]).median_pct;
  Method best = Method::cf;
  if (score[static_cast<std::size_t>(Method::form_cf)] < score[static_cast<std::size_t>(Method::cf)] - 1e-12)
    best = Method::form_cf;
  return best;
}

}  // namespace

CompletionResult predict_throughputs(const ProfileTensor& known, const PredictorOptions& options) {
  CompletionOptions completion = options.completion;
  completion.configuration_folds = options.all_new;
  CompletionResult cf = complete_tensor(known, completion);
  if (!options.physical || options.all_new) return cf;
  const Method m = choose_method(known, options);
  if (m == Method::cf) return cf;
  CompletionResult out = cf;
  out.values = combine(known, options.completion, options.form, m, cf.values);
  out.method = method_name(m);
  return out;
}

}  // namespace hetsim
