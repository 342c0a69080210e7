#pragma once
// Tiny clusters and traces built in code, for hand-computed tests of the mechanism and policies.
#include <fmt/format.h>
#include <string>
#include <vector>

#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/py_random.hpp"

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

/// Two types: "fast" (2 nodes x 2 GPUs, speed 2) and "slow" (1 node x 4 GPUs, speed 1).
inline Cluster fast_slow_cluster() {
  std::vector<Node> ns{Node{"f0", 0, 2, 0, 0}, Node{"f1", 0, 2, 0, 0}, Node{"s0", 1, 4, 0, 0}};
  return Cluster("two", {GpuType{"fast", 0.0, 2.0}, GpuType{"slow", 0.0, 1.0}}, {Rack{"r0"}}, ns);
}

/// `jobs` duration jobs j0, j1, ... of 1, 2 or 4 GPUs and 50..2049 s, 0..199 s apart (PyRandom(seed)).
inline Workload random_duration_workload(std::uint64_t seed, int jobs) {
  PyRandom rng(seed);
  Workload w;
  w.source = w.format = "test";
  double t = 0;
  for (int i = 0; i < jobs; ++i) {
    t += static_cast<double>(rng.randbelow(200));
    const int gpus = 1 << rng.randbelow(3);  // 1, 2 or 4
    w.jobs.push_back(duration_job(fmt::format("j{}", i), t, gpus, 50.0 + static_cast<double>(rng.randbelow(2000))));
  }
  return w;
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
