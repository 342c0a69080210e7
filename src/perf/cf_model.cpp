// Planning model of the Heet policy: Heet's 3-D collaborative filtering (Mo, Xu, Xu, ASPLOS'24)
// completes the job x GPU x configuration tensor from the cells a new job's profiling runs
// measured. Which cells are profiled (by default the active rule of active_profiling_cells(), else
// a random share per job type) is our choice; the paper does not say how its profiling
// configurations are picked. Predictions come from predict_throughputs() (physical form + CF).
#include "hetsim/perf/cf_model.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <random>

#include "hetsim/perf/predict_check.hpp"
#include "hetsim/perf/throughput_predictor.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {

CfThroughputModel::CfThroughputModel(ProfileTensor truth, const Cluster& cluster, const CfModelOptions& options)
    : truth_(std::move(truth)) {
  if (!(options.profiled_fraction > 0.0 && options.profiled_fraction <= 1.0))
    throw InputError("", 0, "--profiled-fraction", fmt::format("must be in (0, 1], got {}", options.profiled_fraction));
  std::mt19937_64 rng(options.seed);
  std::vector<std::size_t> keep;
  if (options.profiled_fraction >= 1.0) {
    for (std::size_t n = 0; n < truth_.size(); ++n)
      if (truth_.measured(n)) keep.push_back(n);
  } else {
    keep = choose_profiled(truth_, options.profiled_fraction, rng, options.sampling);
  }
  profiled_.assign(truth_.size(), 0);
  for (std::size_t n : keep) profiled_[n] = 1;
  const std::size_t row = truth_.dim_gpus() * truth_.dim_configs();
  for (std::size_t i = 0; i < truth_.dim_jobs(); ++i) {
    int runs = 0;
    for (std::size_t n = i * row; n < (i + 1) * row; ++n) runs += profiled_[n];
    max_runs_ = std::max(max_runs_, runs);
  }
  CompletionOptions copt = options.completion;
  copt.seed = options.seed;
  CompletionResult done = predict_throughputs(keep_only(truth_, keep), PredictorOptions{copt, {}, options.physical_form});
  values_ = std::move(done.values);
  warnings_ = std::move(done.warnings);
  std::vector<double> ape;
  for (std::size_t n : done.predicted)
    if (truth_.measured(n)) ape.push_back(100.0 * std::abs(values_[n] - truth_.values[n]) / truth_.values[n]);
  median_error_pct_ = error_stats(ape).median_pct;
  for (const GpuType& t : cluster.gpu_types()) {
    auto c = truth_.find_gpu(t.name);
    gpu_col_.push_back(c ? static_cast<std::ptrdiff_t>(*c) : -1);
  }
}

std::optional<std::size_t> CfThroughputModel::row_of(const JobSpec& job) const {
  if (auto r = truth_.find_job(row_key(job.job_type, job.global_batch_size))) return r;
  return truth_.find_job(job.job_type);
}

double CfThroughputModel::rate(const JobSpec& job, const AllocationShape& shape) const {
  if (shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= gpu_col_.size()) return 0.0;
  const std::ptrdiff_t col = gpu_col_[static_cast<std::size_t>(shape.gpu_type)];
  const auto row = row_of(job);
  const auto cfg = truth_.find_config(std::to_string(shape.gpu_count));
  if (col < 0 || !row || !cfg) return 0.0;
  const std::size_t n = truth_.index(*row, static_cast<std::size_t>(col), *cfg);
  // A measured "cannot run" stays 0: the profile knows it, there is nothing to predict.
  if (std::binary_search(truth_.cannot_run.begin(), truth_.cannot_run.end(), n)) return 0.0;
  return values_[n];
}

std::optional<std::string> CfThroughputModel::check_job(const JobSpec& job, const Cluster&) const {
  if (!row_of(job))
    return fmt::format("job {}: job type '{}' (batch {}) is absent from every profile in {}: the collaborative "
                       "filter has no row to predict from",
                       job.id, job.job_type, job.global_batch_size, truth_.source);
  return std::nullopt;
}

std::vector<std::string> CfThroughputModel::predicted_cells() const {
  std::vector<std::string> out;
  for (std::size_t n = 0; n < truth_.size(); ++n)
    if (!profiled_[n]) out.push_back(truth_.describe(n));
  return out;
}

std::vector<std::string> CfThroughputModel::missing_predicted() const {
  std::vector<std::string> out;
  for (std::size_t n = 0; n < truth_.size(); ++n)
    if (!truth_.measured(n) && !std::binary_search(truth_.cannot_run.begin(), truth_.cannot_run.end(), n))
      out.push_back(truth_.describe(n));
  return out;
}

int CfThroughputModel::profiling_runs(const JobSpec& job) const {
  const auto row = row_of(job);
  if (!row) return 0;
  const std::size_t w = truth_.dim_gpus() * truth_.dim_configs();
  int runs = 0;
  for (std::size_t n = *row * w; n < (*row + 1) * w; ++n) runs += profiled_[n];
  return runs;
}

}  // namespace hetsim
