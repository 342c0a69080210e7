// Hand-computed schedules for fifo and srtf on tiny clusters (the cases of the foundation issue).
#include <catch2/catch.hpp>
#include <sstream>

#include "sim_fixtures.hpp"

using namespace hetsim;
using test::duration_job;
using test::record;

TEST_CASE("fifo, 1 GPU: idle gap, then two jobs arriving together keep trace order") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 0, 1, 100), duration_job("J2", 500, 1, 100),
                             duration_job("J3", 500, 1, 60)},
                            "fifo");
  CHECK(record(out, "J1").start_s == 0);
  CHECK(record(out, "J1").finish_s == 100);
  CHECK(record(out, "J2").start_s == 500);
  CHECK(record(out, "J2").finish_s == 600);
  CHECK(record(out, "J3").start_s == 600);
  CHECK(record(out, "J3").finish_s == 660);
  CHECK(record(out, "J1").jct_s() == 100);
  CHECK(record(out, "J2").jct_s() == 100);
  CHECK(record(out, "J3").jct_s() == 160);
  CHECK(out.summary.makespan_s == 660);
  CHECK(out.summary.completed == 3);
  // Busy 260 GPU-s out of 660 available.
  CHECK(out.summary.utilization == Approx(260.0 / 660.0));
}

TEST_CASE("fifo, 10 GPUs: the head of the queue blocks a small job behind it") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 10),
                            {duration_job("J1", 0, 7, 10), duration_job("J2", 1, 10, 10),
                             duration_job("J3", 2, 1, 100)},
                            "fifo");
  CHECK(record(out, "J1").jct_s() == 10);
  CHECK(record(out, "J2").jct_s() == 19);
  CHECK(record(out, "J3").jct_s() == 118);
  CHECK(record(out, "J3").start_s == 20);
}

TEST_CASE("a job larger than the cluster is rejected with its reason and the run goes on") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 8),
                            {duration_job("J1", 0, 16, 100), duration_job("J2", 0, 4, 50),
                             duration_job("J3", 10, 8, 20)},
                            "fifo");
  CHECK(record(out, "J1").status == JobStatus::Rejected);
  CHECK_THAT(record(out, "J1").reason, Catch::Contains("requests 16 GPUs") && Catch::Contains("has 8"));
  CHECK(record(out, "J2").start_s == 0);
  CHECK(record(out, "J2").finish_s == 50);
  CHECK(record(out, "J3").start_s == 50);
  CHECK(record(out, "J3").finish_s == 70);
  CHECK(out.summary.jct_mean_s == 55);
  CHECK(out.summary.rejected == 1);
  CHECK(out.summary.completed == 2);
  CHECK(out.stats.end.seconds() == 70);
}

TEST_CASE("fifo, 4 GPUs: a job arriving as another completes starts at once, runs are byte-identical") {
  auto jobs = std::vector<JobSpec>{duration_job("J1", 0, 4, 100), duration_job("J2", 100, 4, 50),
                                   duration_job("J3", 200, 4, 10), duration_job("J4", 200, 4, 10)};
  auto out = test::run_jobs(test::homogeneous_cluster(1, 4), jobs, "fifo");
  CHECK(record(out, "J2").start_s == 100);
  CHECK(record(out, "J2").queueing_s() == 0);
  CHECK(record(out, "J3").start_s == 200);
  CHECK(record(out, "J3").finish_s == 210);
  CHECK(record(out, "J4").start_s == 210);
  CHECK(record(out, "J4").finish_s == 220);
  auto again = test::run_jobs(test::homogeneous_cluster(1, 4), jobs, "fifo");
  std::ostringstream a, b, sa, sb;
  write_jobs_csv(a, out.records);
  write_jobs_csv(b, again.records);
  write_summary_json(sa, out.summary, out.info);
  write_summary_json(sb, again.summary, again.info);
  CHECK(a.str() == b.str());
  CHECK(sa.str() == sb.str());
}

TEST_CASE("zero-duration jobs complete on arrival, negative durations are rejected, nothing is dropped") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 5, 1, 0), duration_job("J2", 5, 1, 30),
                             duration_job("J3", 5, 1, -10)},
                            "fifo");
  CHECK(record(out, "J1").status == JobStatus::Completed);
  CHECK(record(out, "J1").jct_s() == 0);
  CHECK(record(out, "J2").start_s == 5);
  CHECK(record(out, "J2").finish_s == 35);
  CHECK(record(out, "J3").status == JobStatus::Rejected);
  CHECK_THAT(record(out, "J3").reason, Catch::Contains("negative duration"));
  CHECK(out.summary.jobs_read == 3);
  CHECK(out.summary.completed == 2);
  CHECK(out.summary.rejected == 1);
  CHECK(out.summary.jobs_read == out.summary.completed + out.summary.rejected + out.summary.unfinished);
}

TEST_CASE("srtf preempts a long job for a short one (no restart overhead)") {
  // 1 GPU. J1: 100 s at t=0. J2: 10 s at t=20 -> J1 [0,20] preempted, J2 [20,30], J1 [30,110].
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 0, 1, 100), duration_job("J2", 20, 1, 10)}, "srtf");
  CHECK(record(out, "J2").start_s == 20);
  CHECK(record(out, "J2").finish_s == 30);
  CHECK(record(out, "J1").finish_s == 110);
  CHECK(record(out, "J1").preemptions == 1);
  CHECK(record(out, "J2").preemptions == 0);
  CHECK(out.summary.jct_mean_s == 60);
}

TEST_CASE("srtf with a 5 s restart overhead paid at every start") {
  // J1 starts at 0, pays 5 s, does 15 s of work by t=20 (85 left) and is preempted.
  // J2 starts at 20, pays 5 s, finishes at 35. J1 resumes at 35, pays 5 s, finishes at 40+85=125.
  MechanismConfig cfg;
  cfg.restart_overhead_s = 5;
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 0, 1, 100), duration_job("J2", 20, 1, 10)}, "srtf", cfg);
  CHECK(record(out, "J2").finish_s == 35);
  CHECK(record(out, "J1").finish_s == 125);
  CHECK(record(out, "J1").restarts == 2);
  CHECK(record(out, "J1").restart_s == 10);
  CHECK(record(out, "J2").restarts == 1);
  CHECK(out.summary.restarts == 3);
  CHECK(out.summary.preemptions == 1);
}

TEST_CASE("srtf does not preempt for a job that is not shorter") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 0, 1, 100), duration_job("J2", 20, 1, 90)}, "srtf");
  // At t=20 J1 has 80 s left < 90 s.
  CHECK(record(out, "J1").finish_s == 100);
  CHECK(record(out, "J2").start_s == 100);
  CHECK(record(out, "J1").preemptions == 0);
}

TEST_CASE("srtf runs each job on the fastest GPU type with room") {
  Cluster cluster("mixed", {GpuType{"slow", 0, 0.5}, GpuType{"fast", 0, 2.0}}, {Rack{"r"}},
                  {Node{"s0", 0, 1, 0, 0}, Node{"f0", 1, 1, 0, 0}});
  // J2 (10 ref-s) is shorter than J1 (100 ref-s), so it gets the fast GPU (done at 10/2 = 5 s) and J1 the
  // slow one (100/0.5 = 200 s). A running job is not migrated when a faster GPU frees up (that would cost a
  // restart), so J1 stays on the slow GPU.
  auto out = test::run_jobs(cluster, {duration_job("J1", 0, 1, 100), duration_job("J2", 0, 1, 10)}, "srtf");
  CHECK(record(out, "J2").finish_s == 5);
  CHECK(record(out, "J2").gpu_types == "fast");
  CHECK(record(out, "J1").finish_s == 200);
  CHECK(record(out, "J1").gpu_types == "slow");
  // A third job arriving later is placed on the fastest type with room: the free fast GPU.
  auto out2 = test::run_jobs(cluster, {duration_job("J1", 0, 1, 100), duration_job("J2", 0, 1, 10),
                                       duration_job("J3", 6, 1, 20)}, "srtf");
  CHECK(record(out2, "J3").gpu_types == "fast");
  CHECK(record(out2, "J3").finish_s == 16);
}

TEST_CASE("the until horizon stops at the horizon and reports unfinished jobs apart") {
  MechanismConfig cfg;
  cfg.until_s = 150;
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 0, 1, 100), duration_job("J2", 0, 1, 100),
                             duration_job("J3", 200, 1, 10)},
                            "fifo", cfg);
  CHECK(record(out, "J1").status == JobStatus::Completed);
  CHECK(record(out, "J2").status == JobStatus::Unfinished);
  CHECK_THAT(record(out, "J2").reason, Catch::Contains("horizon"));
  CHECK(record(out, "J3").status == JobStatus::Unfinished);
  CHECK(out.summary.completed == 1);
  CHECK(out.summary.unfinished == 2);
  CHECK(out.summary.jct_mean_s == 100);
  CHECK(out.stats.end.seconds() == 150);
}

TEST_CASE("fifo parameters are checked, unknown policies are named") {
  PolicyRegistry registry = make_default_registry();
  CHECK_THROWS_WITH(registry.make("nope", {}, 0), Catch::Contains("unknown policy 'nope'") && Catch::Contains("fifo"));
  CHECK_THROWS_WITH(registry.make("fifo", {{"bogus", "1"}}, 0), Catch::Contains("no parameter 'bogus'"));
  CHECK_THROWS_WITH(registry.make("fifo", {{"gpu_type", "slowest"}}, 0), Catch::Contains("gpu_type"));
  CHECK(registry.make("fifo", {{"gpu_type", "fastest"}}, 0)->name() == "fifo");
}
