#pragma once
// Tiny clusters and traces built in code, for hand-computed tests of the mechanism and policies.
#include <fmt/format.h>
#include <string>
#include <vector>

#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/run.hpp"

namespace hetsim::test {

/// One GPU type "gpu", one rack, `nodes` nodes of `gpus_per_node` GPUs.
inline Cluster homogeneous_cluster(int nodes, int gpus_per_node) {
  std::vector<Node> ns;
  for (int i = 0; i < nodes; ++i) ns.push_back(Node{fmt::format("n{}", i), 0, gpus_per_node, 0, 0});
  return Cluster("test", {GpuType{"gpu", 0.0, 1.0}}, {Rack{"r0"}}, ns);
}

/// A duration-model job: `gpus` GPUs for `duration_s` reference seconds, submitted at `submit_s`.
inline JobSpec duration_job(const std::string& id, double submit_s, int gpus, double duration_s) {
  JobSpec j;
  j.id = id;
  j.submit = SimTime::from_seconds(submit_s);
  j.requested_gpus = j.min_gpus = j.max_gpus = gpus;
  j.work = duration_s;
  j.unit = WorkUnit::ReferenceSeconds;
  if (duration_s < 0) j.invalid_reason = "field 'duration_s': negative duration";
  return j;
}

/// Runs `jobs` (already in submit order) on `cluster` under `policy` with the duration model.
inline RunOutput run_jobs(const Cluster& cluster, std::vector<JobSpec> jobs, const std::string& policy,
                          MechanismConfig config = {}, PolicyParams params = {}) {
  Workload w;
  w.jobs = std::move(jobs);
  w.source = "test";
  w.format = "test";
  DurationModel model(cluster);
  PolicyRegistry registry = make_default_registry();
  auto p = registry.make(policy, params, 0);
  ConsolidatePlacement placement;
  return simulate(cluster, w, model, *p, placement, config, RunInfo{cluster.name(), "test", "test", policy,
                                                                     "consolidate", "duration", 0, ""});
}

/// The record of a job by id (fails the test when absent).
inline const JobRecord& record(const RunOutput& out, const std::string& id) {
  for (const JobRecord& r : out.records)
    if (r.job_id == id) return r;
  FAIL("no job " << id);
  throw;  // unreachable
}

}  // namespace hetsim::test
