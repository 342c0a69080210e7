#pragma once
/// The shared network: jobs whose communication crosses the same NIC or uplink share its
/// bandwidth. Each running multi-GPU job is one fluid variable, its communication speed relative to
/// running alone (1 = alone); on every link it uses it consumes speed x the bandwidth it uses there
/// alone while transferring. Speeds are max-min fair under the link capacities, found by
/// progressive filling: the bottleneck max-min sharing of SimGrid's LMM solver (Velho, Schnorr,
/// Casanova, Legrand, "On the validity of flow-level TCP network models for grid and cloud
/// simulations", ACM TOMACS 2013; Bertsekas & Gallager, Data Networks, sec. 6.5.2). Rules and
/// example: docs/models.md, "The shared network".
#include <functional>
#include <span>
#include <vector>

#include "hetsim/cluster/link.hpp"

namespace hetsim {

/// What a job on its GPUs asks of the network, from a topology-aware throughput model.
struct NetworkDemand {
  int gpu_count = 0;
  double compute_s = 0.0;   ///< compute part of a step
  double overlap = 0.0;     ///< fraction of min(compute, comm) hidden
  double transfer_s = 0.0;  ///< bandwidth part of the synchronisation, alone
  double latency_s = 0.0;   ///< latency part of the synchronisation
  /// Bytes one step moves over each shared directed link (NICs, uplinks).
  std::vector<LinkBytes> link_bytes;

  /// Work units per second (iterations per worker, as the analytic model counts) when the transfer
  /// runs at `speed` (0 < speed <= 1) of its alone pace: n / (compute + comm - overlap x
  /// min(compute, comm)) with comm = latency + transfer / speed.
  double rate_at_speed(double speed) const;
  /// Bandwidth the job uses on each shared link while it transfers alone: bytes / transfer_s.
  std::vector<LinkBytes> use_bytes_per_s() const;
};

/// Max-min fair speeds in (0, 1] for `users` (bandwidth each uses on each link at speed 1) under
/// `capacity_bytes_per_s(link)`, by progressive filling: raise every unfrozen speed together until a
/// link is full or a speed reaches 1, freeze the users of full links, repeat. A user of no link,
/// or of links with room, gets 1. Deterministic; O(rounds x uses).
std::vector<double> max_min_speeds(std::span<const std::vector<LinkBytes>> users,
                                   const std::function<double(LinkId)>& capacity_bytes_per_s);

/// What a candidate placement would do to the shared network if its job joined now.
struct JoinEffect {
  double speed = 1.0;           ///< the joining job's speed
  double others_rate_loss = 0.0;  ///< sum over the jobs it would slow of (1 - new rate / current rate)
};

/// The current sharing, as placements see it (sched/network_shares.hpp keeps it).
class NetworkView {
 public:
  virtual ~NetworkView() = default;
  /// Bytes/s the running jobs push through `link` now.
  virtual double link_load_bytes_per_s(LinkId link) const = 0;
  /// The speeds if a job with `demand` started now (nothing changes).
  virtual JoinEffect join_effect(const NetworkDemand& demand) const = 0;
};

}  // namespace hetsim
