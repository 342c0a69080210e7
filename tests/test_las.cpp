// Hand-computed schedules for las (src/policy/las.cpp) and the round mechanism's end when a policy
// never gives GPUs.
#include <catch2/catch.hpp>

#include "sim_fixtures.hpp"

using namespace hetsim;
using test::duration_job;
using test::record;

TEST_CASE("las, 1 GPU: a newcomer with less service preempts, the older job resumes when it completes") {
  // t=10: A holds 10 GPU-s, B none: B runs, A is preempted. Next event: B completes at 110 (las
  // decides only at arrivals and completions); A resumes and finishes its last 90 s at 200.
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("A", 0, 1, 100), duration_job("B", 10, 1, 100)}, "las");
  CHECK(record(out, "B").start_s == 10);
  CHECK(record(out, "B").finish_s == 110);
  CHECK(record(out, "A").finish_s == 200);
  CHECK(record(out, "A").preemptions == 1);
  CHECK(out.summary.preemptions == 1);
}

TEST_CASE("las, 4 GPUs: a job that does not fit is skipped and smaller ones behind it start") {
  // t=0: A (2 GPUs) and B (2 GPUs) run. t=5: C asks for 4 (the least service, 0) but only 4 - 0
  // are unpromised when it is first in order: C takes all 4, A and B (10 GPU-s each) are preempted.
  // t=5+50: C finishes; A and B resume for their last 95 s: 150.
  auto out = test::run_jobs(test::homogeneous_cluster(1, 4),
                            {duration_job("A", 0, 2, 100), duration_job("B", 0, 2, 100), duration_job("C", 5, 4, 50)},
                            "las");
  CHECK(record(out, "C").start_s == 5);
  CHECK(record(out, "C").finish_s == 55);
  CHECK(record(out, "A").finish_s == 150);
  CHECK(record(out, "B").finish_s == 150);
  CHECK(out.summary.preemptions == 2);
}
