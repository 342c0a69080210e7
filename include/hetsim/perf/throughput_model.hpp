#pragma once
/// How fast a job trains on an allocation. Policies plan with it; the mechanism advances progress
/// with it. Rates are in the job's own WorkUnit per second.
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/perf/link_sharing.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

class Topology;

/// The shape of an allocation, enough for table-based models: `gpu_count` GPUs of one type, either
/// all on one node (consolidated) or spread over several.
struct AllocationShape {
  GpuTypeId gpu_type = 0;
  int gpu_count = 0;
  bool consolidated = true;  ///< all GPUs on one node
};

/// Summarises concrete GPUs as a shape (the type of the first GPU; consolidated = one node).
/// For mixed-type placements the slowest type must be chosen by the caller's model.
AllocationShape shape_of(const Cluster& cluster, std::span<const GpuId> gpus);

/// Throughput model interface. Implementations: GavelThroughputTable, HeetProfileTable,
/// DurationModel (more arrive with the topology and goodput models).
class ThroughputModel {
 public:
  virtual ~ThroughputModel() = default;
  /// Name shown in outputs (e.g. "gavel-table").
  virtual std::string name() const = 0;
  /// Work units per second of `job` on `shape`; 0 when the job cannot run on it (never negative).
  virtual double rate(const JobSpec& job, const AllocationShape& shape) const = 0;
  /// Rate on concrete GPUs. The default summarises them with shape_of(); a placement mixing GPU
  /// types runs, in synchronous data parallelism, at the pace of its slowest worker, so the default
  /// takes the smallest rate over its types for the whole GPU count (spread, as mixed types never
  /// share a node). Topology-aware models override it to look at where the GPUs sit.
  virtual double rate_on(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus) const;
  /// Rate when `done` work units of the job are done, on `gpus`, with global batch size
  /// `batch_size` (0 = the job's own). Models whose rate changes with progress (the goodput model:
  /// statistical efficiency changes every epoch) or with the batch size override this together
  /// with next_rate_change(); the default ignores both and returns rate_on().
  virtual double rate_at(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                         double done) const {
    (void)batch_size;
    (void)done;
    return rate_on(job, cluster, gpus);
  }
  /// Smallest amount of done work above `done` at which rate_at() may change (an epoch boundary);
  /// +infinity for models whose rate depends only on the allocation. The mechanism integrates
  /// progress exactly over these pieces.
  virtual double next_rate_change(const JobSpec& job, double done) const {
    (void)job;
    (void)done;
    return std::numeric_limits<double>::infinity();
  }
  /// progress_after() and seconds_to_finish() (below, which call these): the piecewise walk over
  /// rate_at() and next_rate_change(). A model may answer with the same arithmetic faster (the
  /// goodput model looks the job's memo up once per walk instead of twice per epoch, issue 19).
  virtual double integrate_progress(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                    int batch_size, double done, double seconds) const;
  virtual double time_to_finish_s(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                  int batch_size, double done) const;
  /// What the job on `gpus` asks of shared links (NICs, uplinks), for the shared-network model
  /// (`--network shared`); nullopt when the model does not price communication over the topology
  /// or the job uses no shared link. Such jobs never slow down from sharing. At speed 1 a demand
  /// must give rate_on() (the mechanism then uses rate_on() itself, bit for bit).
  virtual std::optional<NetworkDemand> network_demand(const JobSpec& job, std::span<const GpuId> gpus) const {
    (void)job;
    (void)gpus;
    return std::nullopt;
  }
  /// Rates of `a` and `b` when they share the same `scale_factor` GPUs of `type` (space sharing,
  /// Gavel OSDI'20 section 3.1): (rate of a, rate of b) in their own units/s, or nullopt when the
  /// model has no rate for the pair (the pair may then not share). Models without co-location
  /// measurements return nullopt (the default).
  virtual std::optional<std::pair<double, double>> pair_rates(const JobSpec& a, const JobSpec& b, GpuTypeId type,
                                                              int scale_factor) const {
    (void)a;
    (void)b;
    (void)type;
    (void)scale_factor;
    return std::nullopt;
  }
  /// The network topology the model prices communication over, or nullptr.
  virtual const Topology* topology() const { return nullptr; }
  /// Why this job can never be simulated by this model (unknown job type, GPU type missing from
  /// the table, ...), or nullopt when it can. Called once per job at admission.
  virtual std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const = 0;
};

/// Work done after running `seconds` from `done` on `gpus` with `batch_size`, integrating a
/// progress-dependent rate piece by piece (each breakpoint of next_rate_change() is hit exactly);
/// never beyond job.work. Used by the mechanism and by policies that need a job's exact progress.
double progress_after(const ThroughputModel& model, const JobSpec& job, const Cluster& cluster,
                      std::span<const GpuId> gpus, int batch_size, double done, double seconds);

/// Seconds `gpus` with `batch_size` need to take the job from `done` to job.work; +infinity when
/// the rate is 0 somewhere on the way.
double seconds_to_finish(const ThroughputModel& model, const JobSpec& job, const Cluster& cluster,
                         std::span<const GpuId> gpus, int batch_size, double done);

}  // namespace hetsim
