// Fuzz target: one ElasticFlow profile CSV (throughputs_A100/A.csv), in memory, on a one-type
// cluster; a table that loads is asked for iteration rates of model "A" at batch 32 on 1-70 GPUs,
// which walks the interpolation between measured counts.
#include "fuzz_support.hpp"
#include "hetsim/perf/elasticflow_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsim::Cluster cluster("fuzz", {hetsim::GpuType{"a100", 80.0, 1.0}}, {hetsim::Rack{"r0"}},
                                       {hetsim::Node{"n0", 0, 8, 0, 0}});
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] {
    const auto table = hetsim::ElasticFlowThroughputTable::load_csv("fuzz.csv", text, "A", "A100", cluster);
    hetsim::JobSpec job;
    job.id = "j";
    job.job_type = "A";
    job.global_batch_size = 32;
    job.unit = hetsim::WorkUnit::Iterations;
    for (int n = 1; n <= 70; ++n) table->rate(job, {0, n, true});
    table->check_job(job, cluster);
  });
  return 0;
}
