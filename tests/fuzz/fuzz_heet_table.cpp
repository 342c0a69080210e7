// Fuzz target: the Heet prototype's profiles.json, in memory, bound to the heet-12 preset's GPU
// types; a table that loads is asked for rates of model "A" at batch 32 on 1-4 GPUs.
#include "fuzz_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/profile_tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsim::Cluster cluster = *hetsim::make_preset("heet-12");
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] {
    const auto table = hetsim::HeetProfileTable::load("fuzz.json", text, cluster);
    hetsim::JobSpec job;
    job.id = "j";
    job.job_type = "A";
    job.global_batch_size = 32;
    job.unit = hetsim::WorkUnit::Epochs;
    for (int n = 1; n <= 4; ++n) {
      job.requested_gpus = job.min_gpus = job.max_gpus = n;
      for (hetsim::GpuTypeId t = 0; t < static_cast<hetsim::GpuTypeId>(cluster.gpu_types().size()); ++t)
        for (bool consolidated : {true, false}) table->rate(job, {t, n, consolidated});
      table->check_job(job, cluster);
    }
  });
  return 0;
}
