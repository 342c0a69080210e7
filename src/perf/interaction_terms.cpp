// Ridge-shrunk additive terms of the profile-tensor completion (ours; see interaction_terms.hpp and
// docs/models.md). Backfitting as in Hastie & Tibshirani, "Generalized Additive Models" (1990).
#include "interaction_terms.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace hetsim::detail {

TensorLayout make_layout(const ProfileTensor& t) {
  TensorLayout l;
  l.dims = {t.dim_jobs(), t.dim_gpus(), t.dim_configs()};
  std::map<std::string, std::size_t> ids;  // ordered: family numbering independent of hashing
  for (const std::string& job : t.jobs) ids.emplace(job_family(job), 0);
  std::size_t n = 0;
  for (auto& [name, id] : ids) id = n++;
  l.families = n;
  for (const std::string& job : t.jobs) l.family.push_back(ids.at(job_family(job)));
  for (int g : t.config_gpus) l.log2_gpus.push_back(std::log2(static_cast<double>(std::max(1, g))));
  return l;
}

AdditiveTerms::AdditiveTerms(const TensorLayout& layout, std::vector<TermSpec> terms)
    : layout_(layout), terms_(std::move(terms)) {
  for (const TermSpec& t : terms_) tables_.emplace_back(table_size(t.kind), 0.0);
}

std::size_t AdditiveTerms::table_size(TermKind kind) const {
  const auto [I, J, K] = layout_.dims;
  const std::size_t F = layout_.families;
  switch (kind) {
    case TermKind::job: case TermKind::job_slope: return I;
    case TermKind::gpu: return J;
    case TermKind::config: return K;
    case TermKind::gpu_config: return J * K;
    case TermKind::family_gpu: case TermKind::family_gpu_slope: return F * J;
    case TermKind::family_config: return F * K;
    case TermKind::job_gpu: case TermKind::job_gpu_slope: return I * J;
    case TermKind::job_config: return I * K;
    case TermKind::family_slope: return F;
    case TermKind::slope: return 1;
    case TermKind::gpu_slope: return J;
  }
  return 0;
}

std::size_t AdditiveTerms::key(TermKind kind, std::size_t i, std::size_t j, std::size_t k) const {
  const std::size_t J = layout_.dims[1], K = layout_.dims[2];
  const std::size_t f = layout_.family[i];
  switch (kind) {
    case TermKind::job: case TermKind::job_slope: return i;
    case TermKind::gpu: return j;
    case TermKind::config: return k;
    case TermKind::gpu_config: return j * K + k;
    case TermKind::family_gpu: case TermKind::family_gpu_slope: return f * J + j;
    case TermKind::family_config: return f * K + k;
    case TermKind::job_gpu: case TermKind::job_gpu_slope: return i * J + j;
    case TermKind::job_config: return i * K + k;
    case TermKind::family_slope: return f;
    case TermKind::slope: return 0;
    case TermKind::gpu_slope: return j;
  }
  return 0;
}

double AdditiveTerms::covariate(TermKind kind, std::size_t k) const {
  switch (kind) {
    case TermKind::slope: case TermKind::gpu_slope: case TermKind::family_slope: case TermKind::job_slope:
    case TermKind::family_gpu_slope: case TermKind::job_gpu_slope:
      return layout_.log2_gpus[k];
    default: return 1.0;
  }
}

double AdditiveTerms::predict(std::size_t i, std::size_t j, std::size_t k) const {
  double s = 0.0;
  for (std::size_t t = 0; t < terms_.size(); ++t)
    s += tables_[t][key(terms_[t].kind, i, j, k)] * covariate(terms_[t].kind, k);
  return s;
}

void AdditiveTerms::add_predictions(std::vector<double>& out) const {
  const auto [I, J, K] = layout_.dims;
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    const TermKind kind = terms_[t].kind;
    const std::vector<double>& table = tables_[t];
    for (std::size_t i = 0; i < I; ++i)
      for (std::size_t j = 0; j < J; ++j)
        for (std::size_t k = 0; k < K; ++k) out[(i * J + j) * K + k] += table[key(kind, i, j, k)] * covariate(kind, k);
  }
}

double AdditiveTerms::predict_bound(std::size_t o) const {
  double s = 0.0;
  for (std::size_t t = 0; t < terms_.size(); ++t) s += tables_[t][bound_key_[t][o]] * bound_x_[t][o];
  return s;
}

void AdditiveTerms::bind(const std::vector<TensorObservation>& obs) {
  bound_ = &obs;
  bound_size_ = obs.size();
  bound_key_.assign(terms_.size(), std::vector<std::uint32_t>(obs.size()));
  bound_x_.assign(terms_.size(), std::vector<double>(obs.size()));
  unit_x_.assign(terms_.size(), 1);
  runs_.assign(terms_.size(), 0);
  den_.assign(terms_.size(), {});
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    const TermKind kind = terms_[t].kind;
    den_[t].assign(tables_[t].size(), 0.0);
    std::size_t changes = 0;
    for (std::size_t o = 0; o < obs.size(); ++o) {
      const auto& [i, j, k] = obs[o].at;
      const std::size_t q = key(kind, i, j, k);
      const double x = covariate(kind, k);
      bound_key_[t][o] = static_cast<std::uint32_t>(q);
      bound_x_[t][o] = x;
      if (x != 1.0) unit_x_[t] = 0;
      den_[t][q] += x * x;
      changes += o > 0 && bound_key_[t][o - 1] != q;
    }
    // Cells in (job, GPU type, configuration) order give runs of 152 cells per (job, GPU type) on
    // Sia's table; cells in a random order (cross-validation folds) give none: the run form would
    // then mispredict its branch, so it is used only where runs average 4 cells or more.
    runs_[t] = 4 * changes <= obs.size();
  }
}

namespace {

// Adds every cell's share to num[keys[o]] in cell order, each value computed by `share(o)`. With
// `runs`, a run of cells on one key is summed in a register: the same additions in the same order
// (bit-identical), without a store-to-load round trip per cell (the scatter into a few entries was
// latency-bound: most of predict-check's CPU on Sia's table).
template <class Share>
void scatter(const std::vector<std::uint32_t>& keys, bool runs, std::vector<double>& num, Share share) {
  if (!runs || keys.empty()) {
    for (std::size_t o = 0; o < keys.size(); ++o) num[keys[o]] += share(o);
    return;
  }
  std::uint32_t cur = keys[0];
  double acc = num[cur];
  for (std::size_t o = 0; o < keys.size(); ++o) {
    if (keys[o] != cur) {
      num[cur] = acc;
      cur = keys[o];
      acc = num[cur];
    }
    acc += share(o);
  }
  num[cur] = acc;
}

// Adds term t's share of the ridge numerator, sum over its cells of (residual + entry x) x.
// With x = 1 the products by x are exact, so the unit form gives the same bits.
void accumulate(const std::vector<std::uint32_t>& keys, const std::vector<double>& xs, bool unit, bool runs,
                const std::vector<double>& table, const std::vector<double>& residual, std::vector<double>& num) {
  if (unit)
    scatter(keys, runs, num, [&](std::size_t o) { return residual[o] + table[keys[o]]; });
  else
    scatter(keys, runs, num, [&](std::size_t o) { return (residual[o] + table[keys[o]] * xs[o]) * xs[o]; });
}

}  // namespace

void AdditiveTerms::sweep(const std::vector<TensorObservation>& obs, std::vector<double>& residual) {
  if (bound_ != &obs || bound_size_ != obs.size()) bind(obs);
  if (terms_.empty()) return;
  // Backfitting visits term t's cells twice: its numerator, then the residual update after its
  // table changed. The update of term t and the numerator of term t + 1 share one pass over the
  // cells (same operations in the same order per cell as two passes: same result, half the memory
  // traffic; this loop was most of predict-check's CPU on Sia's table).
  std::vector<double> num(tables_[0].size(), 0.0), delta;
  accumulate(bound_key_[0], bound_x_[0], unit_x_[0], runs_[0], tables_[0], residual, num);
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    std::vector<double>& table = tables_[t];
    const std::vector<double>& den = den_[t];
    delta.assign(table.size(), 0.0);
    // An entry no known cell informs keeps 0 (its ridge optimum): the term then predicts nothing.
    for (std::size_t q = 0; q < table.size(); ++q)
      if (den[q] > 0.0) {
        const double updated = num[q] / (den[q] + terms_[t].lambda);
        delta[q] = updated - table[q];
        table[q] = updated;
      }
    const std::vector<std::uint32_t>& keys = bound_key_[t];
    const std::vector<double>& xs = bound_x_[t];
    const bool unit = unit_x_[t];
    if (t + 1 == terms_.size()) {
      for (std::size_t o = 0; o < keys.size(); ++o) residual[o] -= unit ? delta[keys[o]] : delta[keys[o]] * xs[o];
      break;
    }
    const std::size_t u = t + 1;
    std::vector<double> next(tables_[u].size(), 0.0);
    const std::vector<std::uint32_t>& nkeys = bound_key_[u];
    const std::vector<double>& nxs = bound_x_[u];
    const std::vector<double>& ntable = tables_[u];
    // Residual update of term t, then term u's share from the updated residual, cell by cell.
    const auto update = [&](std::size_t o) {
      residual[o] -= unit ? delta[keys[o]] : delta[keys[o]] * xs[o];
      return residual[o];
    };
    if (unit_x_[u])
      scatter(nkeys, runs_[u], next, [&](std::size_t o) { return update(o) + ntable[nkeys[o]]; });
    else
      scatter(nkeys, runs_[u], next, [&](std::size_t o) {
        const double x = nxs[o];
        return (update(o) + ntable[nkeys[o]] * x) * x;
      });
    num.swap(next);
  }
}

double AdditiveTerms::penalty() const {
  double p = 0.0;
  for (std::size_t t = 0; t < terms_.size(); ++t)
    for (double v : tables_[t]) p += terms_[t].lambda * v * v;
  return p;
}

}  // namespace hetsim::detail
