// Faults found by the fuzz harnesses (tests/fuzz, docs/fuzzing.md), each pinned by the input that
// found it (shrunk by hand where the fuzzer's was longer) and the error it must now give.
#include <catch2/catch.hpp>
#include <string>

#include "hetsim/perf/pollux_app.hpp"
#include "hetsim/perf/profile_tensor.hpp"
#include "hetsim/util/error.hpp"

using namespace hetsim;

TEST_CASE("fuzz_pollux_profile: a placements CSV with a header only is an InputError, not a cast of infinity") {
  // The fuzzer's input: a valid validation curve, then this placements file. The application's
  // per-GPU batch range was the min/max over no rows (+inf and 0) cast to int: undefined behaviour.
  CHECK_THROWS_WITH(read_step_samples("placements.csv", "sync_time,local_bsz,step_time,_ti.6e", false),
                    "placements.csv: no step-time rows (only a header)");
  CHECK_THROWS_WITH(read_step_samples("placements.csv", "placement,local_bsz,step_time,sync_time\n", false),
                    "placements.csv: no step-time rows (only a header)");
  // A scalability file may be empty: the placements rows give the batch range.
  CHECK(read_step_samples("scalability.csv", "num_nodes,num_replicas,local_bsz,step_time,sync_time\n", true).empty());
}

TEST_CASE("fuzz_pollux_profile: batch sizes and GPU counts of step-time rows are whole numbers from 1 to a million") {
  const std::string header = "placement,local_bsz,step_time,sync_time\n";
  // 0.5 became a per-GPU batch of 0, a divisor of the batch split; 1e300 overflowed the int cast.
  CHECK_THROWS_WITH(read_step_samples("placements.csv", header + "1,0.5,0.1,0\n", false),
                    "placements.csv:2: field 'local_bsz': expected a whole number from 1 to 1000000, got 0.5");
  CHECK_THROWS_WITH(read_step_samples("placements.csv", header + "1,1e300,0.1,0\n", false),
                    "placements.csv:2: field 'local_bsz': expected a whole number from 1 to 1000000, got 1e+300");
  const std::string scal = "num_nodes,num_replicas,local_bsz,step_time,sync_time\n";
  CHECK_THROWS_WITH(read_step_samples("scalability.csv", scal + "1e20,4,32,0.1,0\n", true),
                    "scalability.csv:2: field 'num_nodes': expected a whole number from 1 to 1000000, got 1e+20");
  CHECK_THROWS_WITH(read_step_samples("scalability.csv", scal + "1,2.5,32,0.1,0\n", true),
                    "scalability.csv:2: field 'num_replicas': expected a whole number from 1 to 1000000, got 2.5");
  // A bad time or shape names its column (newuser4: "implausible step-time row" named none).
  CHECK_THROWS_WITH(read_step_samples("placements.csv", header + "1,32,-0.1,0\n", false),
                    "placements.csv:2: field 'step_time': must be a positive number of seconds, got -0.1");
  CHECK_THROWS_WITH(read_step_samples("placements.csv", header + "1,32,0.1,-1\n", false),
                    "placements.csv:2: field 'sync_time': must be a number of seconds >= 0, got -1");
  CHECK_THROWS_WITH(read_step_samples("placements.csv", header + "10,32,0.1,0\n", false),
                    "placements.csv:2: field 'placement': implausible: 2 nodes, 1 replicas (each node needs at least one)");
  CHECK_THROWS_WITH(read_step_samples("scalability.csv", scal + "4,2,32,0.1,0\n", true),
                    "scalability.csv:2: field 'num_replicas': implausible: 4 nodes, 2 replicas (each node needs at least one)");
  // What the published profiles hold still reads ("163.0" in Sia's scalability-dgx.csv).
  const auto rows = read_step_samples("scalability.csv", scal + "2,8,163.0,0.3,0.1\n", true);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].local_bsz == 163.0);
  CHECK(rows[0].num_replicas == 8);
}

TEST_CASE("fuzz_sia_placements: a huge local_bsz is an InputError, not a signed overflow") {
  // From the fuzzer's input: local_bsz 92233720368547758081201 clamps to the long long range, and
  // samples/s = GPUs x local_bsz overflowed before the division by the step time.
  const std::string header = "placement,local_bsz,step_time,sync_time\n";
  CHECK_THROWS_WITH(load_sia_placements("placements-dgx-ext.csv", header + "322,9223372036854775807,0.3,0\n", "app", "a100"),
                    "placements-dgx-ext.csv:2: field 'local_bsz': expected a whole number from 1 to 1000000, got "
                    "9223372036854775807");
  CHECK_THROWS_WITH(load_sia_placements("placements-dgx-ext.csv", header + "1,0,0.3,0\n", "app", "a100"),
                    "placements-dgx-ext.csv:2: field 'local_bsz': expected a whole number from 1 to 1000000, got 0");
  const ProfileTensor t = load_sia_placements("placements-dgx-ext.csv", header + "22,1000000,2,0\n", "app", "a100");
  CHECK(t.find_job("app@1000000").has_value());
}
