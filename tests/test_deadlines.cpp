// Deadlines: reading them (native deadline_s, ITP-EF deadline) with their errors, the deadline
// metrics of jobs.csv and summary.json, and the hand-computed schedules of edf and elasticflow.
#include <catch2/catch.hpp>
#include <sstream>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"

using namespace hetsim;
using test::duration_job;
using test::record;

namespace {

JobSpec with_deadline(JobSpec job, double deadline_s) {
  job.deadline_s = deadline_s;
  return job;
}

Workload read_text(const std::string& path, std::string_view text, bool itp_ef) {
  return itp_ef ? read_itp_trace(path, text, true) : read_native_trace(path, text);
}

std::string read_error(std::string_view text, bool itp_ef) {
  try {
    read_text("t.csv", text, itp_ef);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("deadline_s in native traces and deadline in ITP-EF traces are read, empty = none", "[deadline]") {
  const Workload w = read_text("t.csv", "job_id,submit_s,num_gpus,duration_s,deadline_s\na,10,1,5,100.5\nb,20,1,5,\n",
                                false);
  REQUIRE(w.jobs.size() == 2);
  CHECK(w.jobs[0].deadline_s == 100.5);
  CHECK_FALSE(w.jobs[1].deadline_s.has_value());
  const Workload ef = read_text("e.csv",
                                 "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
                                 "x,100,50,bert,700,64,1,30\n",
                                 true);
  CHECK(ef.jobs[0].deadline_s == 700.0);
  REQUIRE(ef.notes.size() == 1);
  CHECK_THAT(ef.notes[0], Catch::Contains("deadlines of 1 jobs read"));
}

TEST_CASE("a deadline before the submit time, negative or not finite is an error naming file, line and field",
          "[deadline]") {
  const std::string head = "job_id,submit_s,num_gpus,duration_s,deadline_s\n";
  CHECK(read_error(head + "a,10,1,5,9\n", false) ==
        "t.csv:2: field 'deadline_s': deadline 9 s is before the job's submit time 10 s");
  CHECK(read_error(head + "a,0,1,5,-1\n", false) ==
        "t.csv:2: field 'deadline_s': a deadline must not be negative (got -1 s)");
  CHECK(read_error(head + "a,0,1,5,nan\n", false) ==
        "t.csv:2: field 'deadline_s': expected a finite number, got 'nan'");
  CHECK(read_error(head + "a,0,1,5,inf\n", false) ==
        "t.csv:2: field 'deadline_s': expected a finite number, got 'inf'");
  CHECK(read_error("job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
                   "x,100,50,bert,99,64,1,30\n",
                   true) == "t.csv:2: field 'deadline': deadline 99 s is before the job's submit time 100 s");
}

// 2 GPUs. J1 (2 GPUs, 100 s, deadline 200) runs from 0; J2 (1 GPU, 50 s, deadline 100) arrives at
// 10 and preempts it (J1 has done 10 s); J3 (1 GPU, 100 s, deadline 150) takes the other GPU at 20.
// J2 ends at 60; J1 needs 2 GPUs and waits for J3, which ends at 120; J1's 90 s left end at 210:
// 10 s after its deadline. J4 (no deadline, 1 GPU, 5 s) submitted with J1 waits behind it at 0,
// then at 10 takes the GPU that the preempted J1 cannot use (greedy fill): 10 -> 15.
TEST_CASE("edf: three jobs with deadlines on 2 GPUs, hand-computed", "[deadline][edf]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 2),
                            {duration_job("J4", 0, 1, 5), with_deadline(duration_job("J1", 0, 2, 100), 200),
                             with_deadline(duration_job("J2", 10, 1, 50), 100),
                             with_deadline(duration_job("J3", 20, 1, 100), 150)},
                            "edf");
  CHECK(record(out, "J1").finish_s == 210);
  CHECK(record(out, "J1").preemptions == 1);
  CHECK(record(out, "J2").jct_s() == 50);
  CHECK(record(out, "J3").start_s == 20);
  CHECK(record(out, "J3").jct_s() == 100);
  CHECK(record(out, "J4").start_s == 10);
  CHECK(record(out, "J4").jct_s() == 15);
  CHECK_FALSE(record(out, "J1").met_deadline());
  CHECK(record(out, "J2").met_deadline());
  CHECK(record(out, "J3").met_deadline());
  CHECK(out.summary.deadline_jobs == 3);
  CHECK(out.summary.deadlines_met == 2);
  CHECK(out.summary.deadlines_met_fraction == Approx(2.0 / 3.0));
  CHECK(out.summary.deadline_miss_s == 10.0);
  CHECK(out.summary.deadlines_missed_unfinished == 0);
}

// 4 GPUs; with the duration model a job runs at min(GPUs, requested) / requested of its speed.
// C (1 GPU, 100 s, deadline 50) cannot finish in 50 s on any count: rejected at arrival. At 0, in
// deadline order, B (2 GPUs, 100 s, deadline 150) needs 2 GPUs (100 s), A (4 GPUs, 100 s,
// deadline 250) needs 2 (200 s <= 250; 1 GPU would take 400 s). Nothing is left for D (no
// deadline). At 100 B ends; A has 50 s of work left (at half speed) and 150 s: its share is still
// 2, and the 2 left over go to A (gain (1 - 0.5) / 2 GPUs / 0.25 = 1 per GPU, equal to D's 1, and
// A ranks first): A ends at 150, D runs 150 -> 160.
TEST_CASE("elasticflow: an infeasible deadline is rejected at admission, the others meet theirs", "[deadline][ef]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 4),
                            {with_deadline(duration_job("A", 0, 4, 100), 250),
                             with_deadline(duration_job("B", 0, 2, 100), 150),
                             with_deadline(duration_job("C", 0, 1, 100), 50), duration_job("D", 0, 1, 10)},
                            "elasticflow");
  CHECK(record(out, "C").status == JobStatus::Rejected);
  CHECK(record(out, "C").reason ==
        "elasticflow admission: job C: deadline 50.000 s cannot be met: even on 1 GPUs of type gpu it needs 100.000 s "
        "from its arrival at 0.000 s");
  CHECK(record(out, "B").jct_s() == 100);
  CHECK(record(out, "B").gpus == 2);
  CHECK(record(out, "A").jct_s() == 150);
  CHECK(record(out, "A").gpus == 4);
  CHECK(record(out, "D").start_s == 150);
  CHECK(record(out, "D").jct_s() == 160);
  CHECK(record(out, "A").met_deadline());
  CHECK(record(out, "B").met_deadline());
  CHECK(out.summary.deadline_jobs == 3);
  CHECK(out.summary.deadlines_met == 2);
  CHECK(out.summary.deadlines_missed_unfinished == 1);  // C, rejected
  CHECK_FALSE(out.summary.deadline_miss_s.has_value());
  CHECK(out.summary.rejected == 1);
}

TEST_CASE("jobs.csv carries deadline_s and met_deadline, empty without a deadline, summary.json the counts",
          "[deadline]") {
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {with_deadline(duration_job("a", 0, 1, 10), 10), with_deadline(duration_job("b", 0, 1, 10), 15),
                             duration_job("c", 0, 1, 10)},
                            "fifo");
  std::ostringstream csv, json;
  write_jobs_csv(csv, out.records);
  CHECK_THAT(csv.str(), Catch::EndsWith(",norm_throughput,deadline_s,met_deadline\n"
                                        "a,0.000000,0.000000,10.000000,10.000000,0.000000,1,1,gpu,0,0,0.000000,"
                                        "10.000000,completed,,10.000000,3,0.333333,1.000000,10.000000,1\n"
                                        "b,0.000000,10.000000,20.000000,20.000000,10.000000,1,1,gpu,0,0,0.000000,"
                                        "10.000000,completed,,10.000000,3,0.666667,0.500000,15.000000,0\n"
                                        "c,0.000000,20.000000,30.000000,30.000000,20.000000,1,1,gpu,0,0,0.000000,"
                                        "10.000000,completed,,10.000000,3,1.000000,0.333333,,\n"));
  write_summary_json(json, out.summary, out.info);
  CHECK_THAT(json.str(), Catch::Contains("\"queueing_mean_s\": 10.0,\n  \"deadline_jobs\": 2,\n  \"deadlines_met\": 1,\n"
                                         "  \"deadlines_met_fraction\": 0.5,\n  \"deadline_miss_s\": 5.0,\n"
                                         "  \"deadlines_missed_unfinished\": 0,\n"));
  auto none = test::run_jobs(test::homogeneous_cluster(1, 1), {duration_job("a", 0, 1, 10)}, "fifo");
  std::ostringstream plain;
  write_summary_json(plain, none.summary, none.info);
  CHECK_THAT(plain.str(), !Catch::Contains("deadline"));
}
