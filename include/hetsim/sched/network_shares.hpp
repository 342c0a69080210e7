#pragma once
/// Running jobs' shares of the shared links under `--network shared` (perf/link_sharing.hpp has
/// the rule). The event mechanism adds a job when it starts on several nodes and removes it when
/// it stops; rebalance() then re-solves only the groups of jobs joined through shared links to a
/// job that came or went, so a job's rate changes only when a job sharing a link with it starts or
/// stops, and progress stays exact between those instants.
#include <map>
#include <set>
#include <vector>

#include "hetsim/cluster/topology.hpp"
#include "hetsim/perf/link_sharing.hpp"
#include "hetsim/workload/job_state.hpp"

namespace hetsim {

class NetworkShares final : public NetworkView {
 public:
  /// `topology` must outlive this.
  explicit NetworkShares(const Topology& topology) : topology_(topology) {}

  /// Job j starts using the network with `demand` (alone rate at speed 1; call rebalance()).
  void add(JobIndex j, NetworkDemand demand);
  /// Job j stops using the network (no-op when it does not; call rebalance()).
  void remove(JobIndex j);
  /// A job whose speed changed, its new speed and rate.
  struct Change {
    JobIndex job = 0;
    double speed = 1.0;
    double rate = 0.0;
  };
  /// Re-solves the groups touched since the last call; the jobs whose speed changed, by index.
  std::vector<Change> rebalance();
  /// Current speed of job j (1 when it shares nothing).
  double speed(JobIndex j) const;

  double link_load_bytes_per_s(LinkId link) const override;
  JoinEffect join_effect(const NetworkDemand& demand) const override;

 private:
  struct Entry {
    NetworkDemand demand;
    std::vector<LinkBytes> use;  // bytes/s per link at speed 1
    double speed = 1.0;
  };
  // Jobs joined to `seeds` through shared links (seeds included), ascending.
  std::vector<JobIndex> group_of(const std::set<JobIndex>& seeds, const std::vector<LinkId>& links) const;
  std::vector<double> solve(const std::vector<const std::vector<LinkBytes>*>& uses) const;

  const Topology& topology_;
  std::map<JobIndex, Entry> jobs_;
  std::map<LinkId, std::set<JobIndex>> users_;  // shared link -> jobs using it
  std::vector<LinkId> dirty_links_;             // links of jobs added or removed since rebalance()
  std::set<JobIndex> dirty_jobs_;               // jobs added since rebalance()
};

}  // namespace hetsim
