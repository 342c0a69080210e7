#pragma once
/// `pollux-fit`: the parametric step-time model of Pollux (Qiao et al., OSDI'21, section 3.2; code
/// petuum/adaptdl goodput.py PerfParams) that Sia also uses, fitted per application and GPU type:
///   T_compute(b)  = alpha_c + beta_c * b                      (b = per-GPU batch)
///   T_sync(n, r)  = 0 for r = 1; alpha_r + beta_r * max(r-2, 0) on one node;
///                   alpha_n + beta_n * max(r-2, 0) across nodes (n > 1)
///   T_step        = (T_compute^gamma + T_sync^gamma)^(1/gamma)  (gamma in [1, 10]: overlap)
/// Pollux fits all seven with a gradient optimiser on log errors of step and compute time. hetsim
/// minimises the same errors by Levenberg-Marquardt (Eigen) from eight starts, then down-weights
/// outlying rows with a Cauchy loss (docs/models.md, "pollux-fit step-time model").
#include <map>
#include <string>
#include <vector>

#include "hetsim/perf/pollux_app.hpp"
#include "hetsim/perf/step_time.hpp"

namespace hetsim {

/// Fitted parameters (seconds; gamma dimensionless).
struct PolluxPerfParams {
  double alpha_c = 0.0, beta_c = 0.0;
  double alpha_r = 0.0, beta_r = 0.0;
  double alpha_n = 0.0, beta_n = 0.0;
  double gamma = 1.0;
  /// Predicted step time on `nodes` nodes, `replicas` GPUs, per-GPU batch `local_bsz`.
  StepTime predict(int nodes, int replicas, double local_bsz) const;
};

/// Fits the parameters to `samples` (at least one; std::invalid_argument otherwise). Deterministic.
PolluxPerfParams fit_pollux_params(const std::vector<StepSample>& samples);

/// Step-time model from fitted parameters, one fit per application and GPU type (all rows of
/// placements*.csv and scalability*.csv).
class PolluxFitStepModel final : public StepTimeModel {
 public:
  explicit PolluxFitStepModel(const std::map<std::string, PolluxApplication>& apps);
  std::string name() const override { return "pollux-fit"; }
  StepTime step_time(const PolluxApplication& app, const std::string& gpu_type, const Placement& placement,
                     double local_bsz) const override;
  /// The fitted parameters of one application and GPU type (std::out_of_range when absent).
  const PolluxPerfParams& params(const std::string& app, const std::string& gpu_type) const;

 private:
  std::map<std::string, PolluxPerfParams> params_;  // "app/gpu_type"
};

}  // namespace hetsim
