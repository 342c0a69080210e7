// Fuzz target: a native trace run through a whole simulation on a tiny two-type cluster (2 nodes
// of 4 GPUs, types at speeds 1 and 2) with the duration model. The first byte picks the policy
// and the mechanism mode (event-driven, or rounds of 60 s up to a one-day horizon); the rest is
// the trace. Traces of more than 32 jobs are skipped so that one execution stays fast. A run must
// end every job (completed, rejected or unfinished) and never fail on a trace that was read.
#include <array>

#include "fuzz_support.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/run.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/trace/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsim::PolicyRegistry registry = hetsim::make_default_registry();
  static const hetsim::Cluster cluster(
      "fuzz", {hetsim::GpuType{"slow", 16.0, 1.0}, hetsim::GpuType{"fast", 32.0, 2.0}}, {hetsim::Rack{"r0"}},
      {hetsim::Node{"n0", 0, 4, 0, 0}, hetsim::Node{"n1", 1, 4, 0, 0}});
  static constexpr std::array<const char*, 5> kPolicies = {"fifo", "srtf", "tiresias", "las", "srsf"};
  if (size < 1) return 0;
  const unsigned choice = data[0];
  const std::string_view text = hetsim::fuzz::text_of(data + 1, size - 1);
  hetsim::Workload workload;
  if (!hetsim::fuzz::expect_input_error([&] { workload = hetsim::read_native_trace("fuzz.csv", text); })) return 0;
  if (workload.jobs.size() > 32) return 0;
  const std::string policy_name = kPolicies[choice % kPolicies.size()];
  hetsim::MechanismConfig config;
  if (choice / kPolicies.size() % 2 == 1) {
    config.interval_s = 60.0;
    config.until_s = 86400.0;
  }
  if (choice / kPolicies.size() / 2 % 2 == 1) config.restart_overhead_s = 10.0;
  const hetsim::DurationModel model(cluster);
  const auto policy = registry.make(policy_name, {}, 0);
  const hetsim::ConsolidatePlacement placement;
  // Bad values the reader accepted become admission rejections, never errors of the run.
  const hetsim::RunOutput out =
      hetsim::simulate(cluster, workload, model, *policy, placement, config,
                       hetsim::RunInfo{cluster.name(), "fuzz", "native", policy_name, "consolidate", "duration", 0, ""});
  if (out.records.size() != workload.jobs.size()) __builtin_trap();
  return 0;
}
