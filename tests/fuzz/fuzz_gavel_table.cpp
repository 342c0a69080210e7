// Fuzz target: a Gavel throughput table (simulation_throughputs.json layout), in memory, bound to
// the gavel-24 preset's GPU types; a table that loads is asked for rates of job type "A" (the
// seeds' job type) at every scale factor up to 16, consolidated and not, which walks the
// extrapolation rule.
#include "fuzz_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/profile_tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsim::Cluster cluster = *hetsim::make_preset("gavel-24");
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] {
    const auto table = hetsim::GavelThroughputTable::load("fuzz.json", text, cluster);
    hetsim::JobSpec job;
    job.id = "j";
    job.job_type = "A";
    for (int n = 1; n <= 16; ++n) {
      job.requested_gpus = job.min_gpus = job.max_gpus = n;
      for (hetsim::GpuTypeId t = 0; t < static_cast<hetsim::GpuTypeId>(cluster.gpu_types().size()); ++t)
        for (bool consolidated : {true, false}) table->rate(job, {t, n, consolidated});
      table->check_job(job, cluster);
    }
  });
  return 0;
}
