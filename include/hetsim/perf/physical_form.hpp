#pragma once
/// The physical scaling form of data-parallel training, fitted to a partly measured profile tensor
/// (job type x GPU type x configuration). Time per unit of work (1 / throughput) is
///
///   t[i,j,k] = u_i a_j / n_k  +  v_i b_j  +  g_i K[j,k]          (K[j,k] = 0 when n_k = 1)
///
/// compute that divides over the n_k GPUs of configuration k (job work u_i x GPU type's time per
/// unit a_j), a per-step cost that does not (v_i x b_j: optimizer step, input pipeline, launch
/// overheads), and gradient synchronisation (the job's gradient bytes g_i x the GPU type's
/// communication cost per byte in configuration k; zero on one GPU). This is the step-time model of
/// Optimus (Peng et al., EuroSys'18, sec. 3.2: T = forward/backward / workers + communication + a
/// constant) and of Pollux (Qiao et al., OSDI'21, sec. 3.2: T_iter = T_grad + T_sync, T_sync = 0 on
/// one GPU), with the job x GPU product structure of Heet's collaborative filter (Mo et al.,
/// ASPLOS'24). docs/models.md, "Physical scaling form", says how it is fitted and used.
#include <cstdint>
#include <vector>

#include "hetsim/perf/profile_tensor.hpp"

namespace hetsim {

/// Fitted parameters; every one is >= 0 (non-negative least squares).
struct PhysicalForm {
  std::vector<double> u, v, g;  ///< per job type: compute work, fixed cost, gradient size
  std::vector<double> a, b;     ///< per GPU type: time per unit of compute, of fixed cost
  std::vector<double> comm;     ///< per (GPU type, configuration), index j * K + k: cost per gradient unit
  std::vector<int> config_gpus; ///< n_k
  /// Time per unit of work of cell (i, j, k) (seconds per epoch / step / sample).
  double time_per_unit(std::size_t i, std::size_t j, std::size_t k) const;
  /// 1 / time_per_unit, or NaN when the form has nothing for the cell (time 0).
  double throughput(std::size_t i, std::size_t j, std::size_t k) const;
  /// Sum over the known cells of the squared relative error of the time (what the fit minimises).
  double loss = 0.0;
  int sweeps = 0;  ///< alternating sweeps run
};

/// Settings of fit_physical_form().
struct PhysicalFitOptions {
  int max_sweeps = 400;       ///< alternating least-squares sweeps (job step + GPU step)
  double tolerance = 1e-15;   ///< stop when the loss changes by less than this, relative
  /// Ridge weight pulling a job type whose cells cannot identify (u, v, g) towards the median
  /// proportions of the identified job types (relative units); 0 for an identified job.
  double prior_weight = 0.1;
  /// true: the fixed cost is v_i b_j with its own v_i per job type; false: v_i = u_i (the fixed
  /// cost is a per-GPU-type share of the job's work), two job parameters instead of three.
  bool job_fixed_cost = true;
  /// Ridge weight (relative units) pulling a sparsely profiled job type towards what the other
  /// batch sizes of its model imply (see fit_physical_form()); 0 = no family prior.
  double family_weight = 1.0;
};

/// Fits the form to the known (non-NaN) cells of `known` by alternating non-negative least squares
/// on the relative error of the time per unit: the job step solves (u_i, v_i, g_i) per job type,
/// the GPU step (a_j, b_j, K[j, .]) per GPU type, each by Lawson-Hanson NNLS. A communication cost
/// K[j,k] that no known cell informs is taken from the nearest informed GPU count on the same GPU
/// type. Deterministic (no random start). Throws std::invalid_argument without known cells or with
/// a value <= 0.
PhysicalForm fit_physical_form(const ProfileTensor& known, const PhysicalFitOptions& options = {});

}  // namespace hetsim
