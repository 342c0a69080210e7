// Rigid policies on a heterogeneous cluster must not pick a GPU type on which the job's measured
// rate is 0 (Gavel's table marks e.g. ResNet-50 at batch 128 on 2+ K80s as unable to run).
#include <catch2/catch.hpp>

#include "hetsim/perf/profile_tables.hpp"
#include "sim_fixtures.hpp"
#include "temp_dir.hpp"

using namespace hetsim;

TEST_CASE("Rigid policies start a job only on a GPU type where it can run") {
  // Type "a": 8 GPUs (the most free GPUs), where job X cannot run on 2 GPUs; type "b": 4 GPUs at 10 steps/s.
  std::vector<Node> nodes{Node{"a0", 0, 4, 0, 0}, Node{"a1", 0, 4, 0, 4}, Node{"b0", 1, 4, 0, 8}};
  const Cluster cluster("two-types", {GpuType{"a", 0.0, 1.0}, GpuType{"b", 0.0, 1.0}}, {Rack{"r0"}}, nodes);
  const test::TempDir dir("policy-gpu-types");
  const std::string table = dir.write("table.json", R"json({"a": {"('X', 2)": {"null": 0.0}, "('X', 1)": {"null": 5.0}},
                                                        "b": {"('X', 2)": {"null": 10.0}, "('X', 1)": {"null": 5.0}}})json");
  auto model = GavelThroughputTable::load(table, cluster);
  JobSpec job;
  job.id = "x";
  job.job_type = "X";
  job.requested_gpus = job.min_gpus = job.max_gpus = 2;
  job.work = 100.0;  // steps: 10 s on two b GPUs
  job.unit = WorkUnit::Iterations;
  for (const char* policy : {"tiresias", "fifo", "srtf"}) {
    INFO(policy);
    Workload w;
    w.jobs = {job};
    w.source = "test";
    w.format = "test";
    PolicyRegistry registry = make_default_registry();
    auto p = registry.make(policy, {}, 0);
    ConsolidatePlacement placement;
    const RunOutput out = simulate(cluster, w, *model, *p, placement, MechanismConfig{},
                                   RunInfo{cluster.name(), "test", "test", policy, "consolidate", "gavel-table", 0, ""});
    const JobRecord& r = test::record(out, "x");
    CHECK(r.status == JobStatus::Completed);
    CHECK(r.finish_s == Approx(10.0));
    CHECK(r.gpu_types == "b");
  }
}
