// Fitting the physical step-time form of data-parallel training (Optimus, Peng et al., EuroSys'18;
// Pollux, Qiao et al., OSDI'21) to a partly measured profile tensor; see physical_form.hpp for the
// form and docs/models.md ("Physical scaling form") for why it is fitted this way.
#include "hetsim/perf/physical_form.hpp"

#include "hetsim/perf/nnls.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <fmt/format.h>
#include <stdexcept>

namespace hetsim {

double PhysicalForm::time_per_unit(std::size_t i, std::size_t j, std::size_t k) const {
  const std::size_t K = config_gpus.size();
  return u[i] * a[j] / config_gpus[k] + v[i] * b[j] + g[i] * comm[j * K + k];
}

double PhysicalForm::throughput(std::size_t i, std::size_t j, std::size_t k) const {
  const double t = time_per_unit(i, j, k);
  return t > 0.0 && std::isfinite(t) ? 1.0 / t : std::nan("");
}

namespace {

struct Cell {
  std::size_t i, j, k;
  double time;  // 1 / throughput
};

// The batch size a row key carries: "model@64" (Heet, Sia) or "Model (batch size 64)" (Gavel); NaN
// without one.
double batch_of_key(const std::string& key) {
  std::size_t at = key.find('@');
  if (at != std::string::npos) {
    ++at;
  } else if ((at = key.find("(batch size ")) != std::string::npos) {
    at += 12;
  } else {
    return std::nan("");
  }
  double b = 0.0;
  std::size_t digits = 0;
  while (at + digits < key.size() && std::isdigit(static_cast<unsigned char>(key[at + digits]))) {
    b = 10.0 * b + (key[at + digits] - '0');
    ++digits;
  }
  return digits > 0 && b > 0.0 ? b : std::nan("");
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

class FormFit {
 public:
  FormFit(const ProfileTensor& known, const PhysicalFitOptions& options) : options_(options) {
    I_ = known.dim_jobs(), J_ = known.dim_gpus(), K_ = known.dim_configs();
    by_job_.resize(I_);
    by_gpu_.resize(J_);
    for (std::size_t i = 0; i < I_; ++i)
      for (std::size_t j = 0; j < J_; ++j)
        for (std::size_t k = 0; k < K_; ++k) {
          const double x = known.at(i, j, k);
          if (std::isnan(x)) continue;
          if (!(x > 0.0) || !std::isfinite(x))
            throw std::invalid_argument(fmt::format("physical form needs positive throughputs; {} is {}",
                                                    known.describe(known.index(i, j, k)), x));
          by_job_[i].push_back(cells_.size());
          by_gpu_[j].push_back(cells_.size());
          cells_.push_back({i, j, k, 1.0 / x});
        }
    if (cells_.empty()) throw std::invalid_argument("physical form needs at least one known cell");
    for (const std::string& key : known.jobs) {
      family_.push_back(job_family(key));
      log_batch_.push_back(std::log(batch_of_key(key)));
    }
    f_.config_gpus = known.config_gpus;
    f_.u.assign(I_, 0.0), f_.v.assign(I_, 0.0), f_.g.assign(I_, 0.0);
    f_.a.assign(J_, 1.0), f_.b.assign(J_, 1.0), f_.comm.assign(J_ * K_, 0.0);
    // Start: communication growing like the ring all-reduce volume 2(n-1)/n (Pollux sec. 3.2).
    for (std::size_t j = 0; j < J_; ++j)
      for (std::size_t k = 0; k < K_; ++k) f_.comm[j * K_ + k] = 1.0 - 1.0 / std::max(1, f_.config_gpus[k]);
  }

  PhysicalForm run() {
    double last = std::numeric_limits<double>::infinity();
    for (int s = 0; s < options_.max_sweeps; ++s) {
      job_step();
      gpu_step();
      f_.sweeps = s + 1;
      const double l = loss();
      if (l < 1e-28 || std::abs(last - l) <= options_.tolerance * std::max(l, 1e-300)) break;
      last = l;
    }
    fill_uninformed_comm();
    f_.loss = loss();
    return f_;
  }

 private:
  double loss() const {
    double s = 0.0;
    for (const Cell& c : cells_) {
      const double r = f_.time_per_unit(c.i, c.j, c.k) / c.time - 1.0;
      s += r * r;
    }
    return s;
  }

  // Columns of the job step: (u, v, g), or (u, g) with v = u when the fixed cost is per GPU type only.
  std::vector<double> job_features(const Cell& c) const {
    const double compute = f_.a[c.j] / f_.config_gpus[c.k] / c.time, fixed = f_.b[c.j] / c.time;
    const double comm = f_.comm[c.j * K_ + c.k] / c.time;
    if (!options_.job_fixed_cost) return {compute + fixed, comm};
    return {compute, fixed, comm};
  }
  void set_job(std::size_t i, const Eigen::VectorXd& x) {
    f_.u[i] = x(0);
    f_.v[i] = options_.job_fixed_cost ? x(1) : x(0);
    f_.g[i] = x(x.size() - 1);
  }

  double job_param(std::size_t i, Eigen::Index c) const {
    if (c == 0) return f_.u[i];
    return options_.job_fixed_cost && c == 1 ? f_.v[i] : f_.g[i];
  }
  Eigen::MatrixXd job_design(std::size_t i) const;
  Eigen::VectorXd solve_with_prior(const Eigen::MatrixXd& A, const Eigen::VectorXd& prior, double mu) const;
  std::vector<Eigen::VectorXd> family_priors(const std::vector<char>& donor) const;
  void job_step();
  void gpu_step();
  void fill_uninformed_comm();

  PhysicalFitOptions options_;
  std::size_t I_ = 0, J_ = 0, K_ = 0;
  std::vector<Cell> cells_;
  std::vector<std::vector<std::size_t>> by_job_, by_gpu_;
  std::vector<std::string> family_;  // job_family() of each row
  std::vector<double> log_batch_;    // log of the batch size in the row key, NaN without one
  PhysicalForm f_;
};

// Per job type: (u, v, g) by NNLS on the relative error. A job type whose cells do not identify
// all three (fewer than three cells, or all on one GPU count) is also pulled towards the median
// proportions (v/u, g/u) of the identified job types, so e.g. a job profiled on one GPU only still
// gets a communication cost rather than none.
Eigen::MatrixXd FormFit::job_design(std::size_t i) const {
  const auto P = static_cast<Eigen::Index>(options_.job_fixed_cost ? 3 : 2);
  Eigen::MatrixXd A(static_cast<Eigen::Index>(by_job_[i].size()), P);
  for (std::size_t r = 0; r < by_job_[i].size(); ++r) {
    const auto fe = job_features(cells_[by_job_[i][r]]);
    for (Eigen::Index c = 0; c < P; ++c) A(static_cast<Eigen::Index>(r), c) = fe[static_cast<std::size_t>(c)];
  }
  return A;
}

// NNLS of the job's cells plus rows pulling each parameter towards `prior` (relative, weight mu;
// a zero prior entry pulls towards 0 on the scale of the prior's first entry).
Eigen::VectorXd FormFit::solve_with_prior(const Eigen::MatrixXd& A, const Eigen::VectorXd& prior, double mu) const {
  const Eigen::Index P = A.cols();
  Eigen::MatrixXd Ar = Eigen::MatrixXd::Zero(A.rows() + P, P);
  Eigen::VectorXd br = Eigen::VectorXd::Zero(A.rows() + P);
  Ar.topRows(A.rows()) = A;
  br.head(A.rows()).setOnes();
  const double floor = std::max(prior.maxCoeff(), 1e-300);
  for (Eigen::Index c = 0; c < P; ++c) {
    const bool informed = prior(c) > 1e-9 * floor;
    Ar(A.rows() + c, c) = mu / (informed ? prior(c) : floor);
    br(A.rows() + c) = informed ? mu : 0.0;
  }
  return nnls_reference(Ar, br);
}

// Per job type: (u, v, g) by NNLS on the relative error. Job types with at least twice as many
// cells as parameters are fitted freely and are the donors of two priors for the others:
//  - the family prior (a model at another batch size; job_family()): each parameter carried over
//    from the family's donors along a power law in the batch size whose exponent is fitted across
//    all families (per epoch, compute is the same at any batch while the per-step costs scale
//    with 1/batch; per step, compute grows with the batch; the data says which);
//  - else, for a job type its cells cannot identify, the donors' median proportions (v/u, g/u).
void FormFit::job_step() {
  const auto P = static_cast<Eigen::Index>(options_.job_fixed_cost ? 3 : 2);
  std::vector<char> donor(I_, 0);
  for (std::size_t i = 0; i < I_; ++i) {
    const Eigen::MatrixXd A = job_design(i);
    if (A.rows() >= 2 * P && A.colPivHouseholderQr().rank() == P) {
      donor[i] = 1;
      set_job(i, nnls_reference(A, Eigen::VectorXd::Ones(A.rows())));
    }
  }
  const std::vector<Eigen::VectorXd> family_prior = family_priors(donor);
  std::vector<std::vector<double>> ratios(static_cast<std::size_t>(P));
  for (std::size_t i = 0; i < I_; ++i)
    if (donor[i] && f_.u[i] > 0.0)
      for (Eigen::Index c = 1; c < P; ++c) ratios[static_cast<std::size_t>(c)].push_back(job_param(i, c) / f_.u[i]);
  Eigen::VectorXd dir(P);
  dir(0) = 1.0;
  for (Eigen::Index c = 1; c < P; ++c)
    dir(c) = ratios[static_cast<std::size_t>(c)].empty() ? 0.05 : median(ratios[static_cast<std::size_t>(c)]);
  for (std::size_t i = 0; i < I_; ++i) {
    if (donor[i] || by_job_[i].empty()) continue;
    const Eigen::MatrixXd A = job_design(i);
    if (family_prior[i].size() == P && options_.family_weight > 0.0) {
      set_job(i, solve_with_prior(A, family_prior[i], std::sqrt(options_.family_weight)));
    } else if (A.rows() >= P && A.colPivHouseholderQr().rank() == P) {
      set_job(i, nnls_reference(A, Eigen::VectorXd::Ones(A.rows())));
    } else {
      // Scale of the median proportions first, then the parameters near that multiple of them.
      const double s = std::max(0.0, (A * dir).sum() / std::max(1e-300, (A * dir).squaredNorm()));
      set_job(i, solve_with_prior(A, s * dir, std::sqrt(options_.prior_weight)));
    }
  }
}

// For every job type with donors of its family other than itself: the parameters they imply at
// its batch size (geometric mean over those donors); else an empty vector.
std::vector<Eigen::VectorXd> FormFit::family_priors(const std::vector<char>& donor) const {
  const auto P = static_cast<Eigen::Index>(options_.job_fixed_cost ? 3 : 2);
  // Exponent per parameter: least squares over same-family donor pairs of d log(param) / d log(batch).
  Eigen::VectorXd slope = Eigen::VectorXd::Zero(P);
  for (Eigen::Index c = 0; c < P; ++c) {
    double num = 0.0, den = 0.0;
    for (std::size_t x = 0; x < I_; ++x)
      for (std::size_t y = x + 1; y < I_; ++y) {
        if (!donor[x] || !donor[y] || family_[x] != family_[y] || std::isnan(log_batch_[x]) || std::isnan(log_batch_[y]))
          continue;
        const double px = job_param(x, c), py = job_param(y, c);
        if (!(px > 0.0 && py > 0.0)) continue;
        const double db = log_batch_[y] - log_batch_[x];
        num += db * (std::log(py) - std::log(px));
        den += db * db;
      }
    slope(c) = den > 0.0 ? num / den : 0.0;
  }
  std::vector<Eigen::VectorXd> out(I_);
  for (std::size_t i = 0; i < I_; ++i) {
    if (std::isnan(log_batch_[i])) continue;
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(P);
    std::vector<int> count(static_cast<std::size_t>(P), 0);
    for (std::size_t d = 0; d < I_; ++d) {
      if (!donor[d] || d == i || family_[d] != family_[i] || std::isnan(log_batch_[d])) continue;
      for (Eigen::Index c = 0; c < P; ++c) {
        const double p = job_param(d, c);
        if (!(p > 0.0)) continue;
        sum(c) += std::log(p) + slope(c) * (log_batch_[i] - log_batch_[d]);
        ++count[static_cast<std::size_t>(c)];
      }
    }
    if (count[0] == 0) continue;
    Eigen::VectorXd prior(P);
    for (Eigen::Index c = 0; c < P; ++c)
      prior(c) = count[static_cast<std::size_t>(c)] > 0 ? std::exp(sum(c) / count[static_cast<std::size_t>(c)]) : 0.0;
    out[i] = prior;
  }
  return out;
}

// Per GPU type: (a_j, b_j, K[j, k] for every multi-GPU configuration) by NNLS on the relative error.
// Each row has one configuration column, so those columns are orthogonal: the NNLS runs on the
// structured normal equations (nnls.hpp).
void FormFit::gpu_step() {
  std::vector<Eigen::Index> col_of(K_, -1);
  Eigen::Index comm_cols = 0;
  for (std::size_t k = 0; k < K_; ++k)
    if (f_.config_gpus[k] > 1) col_of[k] = comm_cols++;
  for (std::size_t j = 0; j < J_; ++j) {
    if (by_gpu_[j].empty()) continue;
    NnlsGram g;
    g.dense_cols = 2;
    g.dense = Eigen::MatrixXd::Zero(2, 2);
    g.cross = Eigen::MatrixXd::Zero(comm_cols, 2);
    g.diag = Eigen::VectorXd::Zero(comm_cols);
    g.atb = Eigen::VectorXd::Zero(2 + comm_cols);
    double max_abs = 0.0;
    for (std::size_t r : by_gpu_[j]) {
      const Cell& c = cells_[r];
      const double x0 = f_.u[c.i] / f_.config_gpus[c.k] / c.time, x1 = f_.v[c.i] / c.time;
      g.dense(0, 0) += x0 * x0, g.dense(0, 1) += x0 * x1, g.dense(1, 1) += x1 * x1;
      g.atb(0) += x0, g.atb(1) += x1;
      max_abs = std::max({max_abs, std::abs(x0), std::abs(x1)});
      if (col_of[c.k] < 0) continue;
      const double x2 = f_.g[c.i] / c.time;
      const Eigen::Index s = col_of[c.k];
      g.cross(s, 0) += x2 * x0, g.cross(s, 1) += x2 * x1, g.diag(s) += x2 * x2, g.atb(2 + s) += x2;
      max_abs = std::max(max_abs, std::abs(x2));
    }
    g.dense(1, 0) = g.dense(0, 1);
    g.tol = 1e-12 * std::max(1.0, max_abs) * std::max<double>(1.0, static_cast<double>(by_gpu_[j].size()));
    // Cold start, as the textbook: with few cells the minimiser is not unique, and a warm start
    // lands on another one (Heet new-job 8.4% became 11.0%).
    const Eigen::VectorXd x = nnls_gram(g);
    f_.a[j] = x(0), f_.b[j] = x(1);
    for (std::size_t k = 0; k < K_; ++k) f_.comm[j * K_ + k] = col_of[k] >= 0 ? x(2 + col_of[k]) : 0.0;
  }
}

// K[j, k] of a multi-GPU configuration no known cell of GPU type j informs: the informed
// configuration of j with the nearest GPU count (ties: the larger), else the median over the GPU
// types informed at k, else 0.
void FormFit::fill_uninformed_comm() {
  std::vector<char> informed(J_ * K_, 0);
  for (const Cell& c : cells_)
    if (f_.g[c.i] > 0.0) informed[c.j * K_ + c.k] = 1;
  const std::vector<double> fitted = f_.comm;
  for (std::size_t j = 0; j < J_; ++j)
    for (std::size_t k = 0; k < K_; ++k) {
      if (informed[j * K_ + k] || f_.config_gpus[k] <= 1) continue;
      std::ptrdiff_t best = -1;
      for (std::size_t q = 0; q < K_; ++q) {
        if (!informed[j * K_ + q] || f_.config_gpus[q] <= 1) continue;
        const int d = std::abs(f_.config_gpus[q] - f_.config_gpus[k]);
        const int bd = best < 0 ? 0 : std::abs(f_.config_gpus[static_cast<std::size_t>(best)] - f_.config_gpus[k]);
        if (best < 0 || d < bd || (d == bd && f_.config_gpus[q] > f_.config_gpus[static_cast<std::size_t>(best)]))
          best = static_cast<std::ptrdiff_t>(q);
      }
      if (best >= 0) {
        f_.comm[j * K_ + k] = fitted[j * K_ + static_cast<std::size_t>(best)];
        continue;
      }
      std::vector<double> others;
      for (std::size_t o = 0; o < J_; ++o)
        if (informed[o * K_ + k]) others.push_back(fitted[o * K_ + k]);
      f_.comm[j * K_ + k] = median(others);
    }
}

}  // namespace

PhysicalForm fit_physical_form(const ProfileTensor& known, const PhysicalFitOptions& options) {
  return FormFit(known, options).run();
}

}  // namespace hetsim
