#pragma once
// Toy clusters with explicit networks, for hand-computed communication and placement tests.
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/perf/analytic_model.hpp"

namespace hetsim::test {

/// A node with an explicit network and zero latencies (so times are pure bandwidth terms).
inline Node net_node(const std::string& name, GpuTypeId type, int gpus, RackId rack, double intra_gbytes_per_s,
                     double nic_gbps) {
  Node n(name, type, gpus, rack);
  n.interconnect_gbytes_per_s = intra_gbytes_per_s;
  n.interconnect_latency_us = 0.0;
  n.nic_gbps = nic_gbps;
  n.nic_latency_us = 0.0;
  return n;
}

/// A rack with an explicit uplink (nullopt = non-blocking) and zero latency.
inline Rack net_rack(const std::string& name, std::optional<double> uplink_gbps = std::nullopt) {
  Rack r(name);
  r.uplink_gbps = uplink_gbps;
  r.uplink_latency_us = 0.0;
  return r;
}

/// One GPU type "gpu"; `nodes` nodes of `gpus` GPUs on one rack; intra GB/s and NIC Gbit/s given.
inline Cluster flat_cluster(int nodes, int gpus, double intra_gbytes_per_s, double nic_gbps) {
  std::vector<Node> ns;
  for (int i = 0; i < nodes; ++i) ns.push_back(net_node(fmt::format("n{}", i), 0, gpus, 0, intra_gbytes_per_s, nic_gbps));
  return Cluster("flat", {GpuType{"gpu", 0.0, 1.0}}, {net_rack("r0")}, ns);
}

/// A compute profile given in code (the library's job-types profile): per job type, gradient
/// bytes and step time per GPU type id.
inline std::unique_ptr<ComputeProfile> fixed_profile(std::map<std::string, JobTypeProfileEntry> entries) {
  return make_job_types_profile(std::move(entries), "test");
}

/// An iterations job of `job_type` on `gpus` GPUs.
inline JobSpec iter_job(const std::string& id, const std::string& job_type, int gpus, double iterations,
                        double submit_s = 0.0) {
  JobSpec j;
  j.id = id;
  j.job_type = job_type;
  j.submit = SimTime::from_seconds(submit_s);
  j.requested_gpus = j.min_gpus = j.max_gpus = gpus;
  j.work = iterations;
  j.unit = WorkUnit::Iterations;
  return j;
}

}  // namespace hetsim::test
