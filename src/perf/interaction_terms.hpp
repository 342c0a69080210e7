#pragma once
// Private part of the profile-tensor completion (tensor_completion.cpp): the ridge-shrunk additive
// "interaction terms" of its log-throughput model. This structure is ours, not Heet's (Mo et al.,
// ASPLOS'24 give no model); docs/models.md ("Interaction terms") explains each term and why.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hetsim/perf/profile_tensor.hpp"

namespace hetsim::detail {

/// One known cell in the fitting space (log value in log-space fits).
struct TensorObservation {
  std::array<std::size_t, 3> at;  ///< (job, GPU type, configuration)
  double y;
};

/// What the terms need to know about the tensor's axes besides their sizes.
struct TensorLayout {
  std::array<std::size_t, 3> dims{};  ///< jobs, GPU types, configurations
  std::vector<std::size_t> family;    ///< per job: index of its model family (job_family())
  std::size_t families = 0;
  std::vector<double> log2_gpus;      ///< per configuration: log2 of its GPU count
};

/// Layout of `t`: families from the job keys, log2 GPU counts from config_gpus.
TensorLayout make_layout(const ProfileTensor& t);

/// Which table a term is, by the axes its key is made of ("slope" terms multiply log2(GPUs)).
enum class TermKind {
  job, gpu, config,                      // main effects
  gpu_config, family_gpu, family_config,  // interactions shared by many jobs
  job_gpu, job_config,                    // per-job interactions
  slope, gpu_slope,                       // scaling exponent (per log2 GPUs): overall, per GPU type
  family_slope, job_slope,                // ... of a family / job
  family_gpu_slope, job_gpu_slope,        // ... per (family / job, GPU type)
};

/// A term and its ridge weight (a large weight shrinks the term towards 0).
struct TermSpec {
  TermKind kind;
  double lambda;
};

/// Sum of ridge-shrunk tables, fitted by backfitting (Hastie & Tibshirani, "Generalized Additive
/// Models", 1990): each sweep refits one term at a time to the residual of all others; with a
/// ridge every table entry has the closed form sum(x r) / (sum(x^2) + lambda) over its cells.
class AdditiveTerms {
 public:
  AdditiveTerms(const TensorLayout& layout, std::vector<TermSpec> terms);
  /// Contribution of every term to cell (i, j, k).
  double predict(std::size_t i, std::size_t j, std::size_t k) const;
  /// Adds every term's contribution to out[(i J + j) K + k] for every cell, term after term: per
  /// cell the same additions in the same order as predict() (bit-identical), without its per-cell
  /// key dispatch (the full tensor of Sia's table is 68,400 cells per fit).
  void add_predictions(std::vector<double>& out) const;
  /// Contribution of every term to observation o of the cells last bound (bind()).
  double predict_bound(std::size_t o) const;
  /// Caches every term's table entry and covariate for each cell of `obs` (the sweeps of one fit
  /// visit the same cells hundreds of times; recomputing the keys was most of predict-check's CPU).
  void bind(const std::vector<TensorObservation>& obs);
  /// One backfitting sweep. `residual[o]` must be obs[o].y minus everything fitted (these terms
  /// included) on entry and is kept so on exit. Binds `obs` first unless it is the bound list.
  void sweep(const std::vector<TensorObservation>& obs, std::vector<double>& residual);
  /// Ridge penalty sum lambda * entry^2 over all tables.
  double penalty() const;
  bool empty() const { return terms_.empty(); }

 private:
  std::size_t key(TermKind kind, std::size_t i, std::size_t j, std::size_t k) const;
  double covariate(TermKind kind, std::size_t k) const;
  std::size_t table_size(TermKind kind) const;

  const TensorLayout& layout_;
  std::vector<TermSpec> terms_;
  std::vector<std::vector<double>> tables_;  // per term
  // bind(): per term, per observation, its table entry and covariate; den_ = sum of covariate^2
  // per table entry (fixed for the bound cells).
  const std::vector<TensorObservation>* bound_ = nullptr;
  std::size_t bound_size_ = 0;
  std::vector<std::vector<std::uint32_t>> bound_key_;
  std::vector<std::vector<double>> bound_x_;
  std::vector<char> unit_x_;  // per term: its covariate is 1 for every cell (not a slope)
  // per term: consecutive bound cells mostly share its table entry (runs of one key), so the sweep
  // sums each run in a register instead of through memory (same additions, same order)
  std::vector<char> runs_;
  std::vector<std::vector<double>> den_;
};

}  // namespace hetsim::detail
