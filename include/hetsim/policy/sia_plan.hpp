#pragma once
/// The decision core of the `sia` policy on goodput workloads, free of the simulator so it can be
/// checked by hand: Sia's integer program over configurations (GPU type, GPU count) per job
/// (Jayaram Subramanya et al., "Sia: Heterogeneity-aware, goodput-optimized ML-cluster
/// scheduling", SOSP'23, section 3.2-3.3; public artifact siasosp23/artifacts,
/// sia-simulator/sia.py, SiaPolicy.optimize_mip).
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/policy/lp.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// One configuration: `gpus` GPUs of `type` (Sia's (n, r, t) with n implied by the count).
struct SiaConfig {
  GpuTypeId type = 0;
  int gpus = 1;
  bool operator==(const SiaConfig&) const = default;
};

/// Sia's configuration set of a cluster, per type in type order: powers of two up to the GPUs of
/// one node (and the node size itself when it is not a power of two), then whole nodes 2R, 3R, ...
/// up to every node of the type. Types are assumed to have equally sized nodes (the largest is used).
std::vector<SiaConfig> sia_configurations(const Cluster& cluster);

/// One job as the ILP sees it.
struct SiaPlanJob {
  JobIndex job = 0;
  /// Estimated goodput on each configuration (same order as the configuration list); <= 0 = the
  /// job may not use that configuration.
  std::vector<double> goodput;
  int current = -1;            ///< index of the configuration it holds now; -1 = none
  double realloc_factor = 1.0; ///< Pollux's re-allocation factor, applied to every other configuration
  bool pinned = false;         ///< in a checkpoint-restore: must keep `current`
};

/// The ILP's parameters (see the `sia` policy's declared parameters).
struct SiaPlanSettings {
  double p = -0.5;           ///< fairness exponent, non-zero
  double lambda_n = 1.1;     ///< penalty for each job left without an allocation
  long long node_limit = 1000;
  double time_limit_s = 60.0;
  /// Once the root has branched, an exact search over GPUs used per type settles the optimum (the
  /// `proof=table` parameter; false: branch-and-bound alone).
  bool table_proof = true;
};

/// A solved round.
struct SiaPlan {
  std::vector<int> config;   ///< per job: chosen configuration index, -1 = none
  LpResult::Status status = LpResult::Status::Failed;
  double solve_s = 0.0;
  bool node_limit_hit = false;
  bool time_limit_hit = false;
};

/// Objective coefficient of each (job, configuration) before lambda_n: Sia's normalised goodput
/// speedup[c] = goodput[c] / (smallest positive goodput of the job), times realloc_factor when c
/// is not the job's current configuration, then A = round(speedup^p, 2 decimals) capped at 3000
/// (Sia's clip). 0 where the job may not use c.
std::vector<double> sia_coefficients(const SiaPlanJob& job, double p);

/// Solves one round: with p < 0 minimise sum A x + lambda_n (N - sum x), with p > 0 maximise
/// sum A x - lambda_n (N - sum x); x binary, at most one configuration per job, the GPUs of each
/// type at most `capacity[type]`, pinned jobs on their current configuration. `start` (per job, a
/// configuration or -1; may be empty) seeds branch-and-bound where it still fits.
SiaPlan sia_plan(const std::vector<SiaConfig>& configs, const std::vector<int>& capacity,
                 const std::vector<SiaPlanJob>& jobs, const SiaPlanSettings& settings,
                 const std::vector<int>& start = {});

/// Pollux's re-allocation factor as Sia uses it: max(age - restarts P, 0) / (age + P), 1 while
/// age < P (a job is not penalised before it could have paid one restart).
double sia_realloc_factor(double age_s, int restarts, double penalty_s);

}  // namespace hetsim
