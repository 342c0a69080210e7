// Alibaba OpenB pod lists and Microsoft ITP traces: hand-written rows map to the documented jobs
// (skips and rules counted, never silent), bad rows name file:line:field, and every real file
// of ../shared/data parses without an error.
#include <algorithm>
#include <string>
#include <vector>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "test_support.hpp"
#include "trace_support.hpp"

using Catch::Contains;
using hetsim::InputError;
using hetsim::JobSpec;
using hetsim::SimTime;
using hetsim::TraceFormat;
using hetsim::Workload;
using hetsim::WorkUnit;
using hetsim::test::job_with_id;

namespace {

bool has_note(const Workload& w, const std::string& part) {
  return std::any_of(w.notes.begin(), w.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

const std::string kOpenbHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

}  // namespace

TEST_CASE("alibaba-openb and itp format names and detection", "[trace][openb][itp]") {
  for (TraceFormat f : {TraceFormat::AlibabaOpenb, TraceFormat::Itp, TraceFormat::ItpEf}) {
    auto parsed = hetsim::parse_trace_format(hetsim::to_string(f));
    REQUIRE(parsed);
    CHECK(*parsed == f);
  }
  CHECK(hetsim::detect_trace_format("p", kOpenbHeader) == TraceFormat::AlibabaOpenb);
  CHECK(hetsim::detect_trace_format("i", "job_id,submission_time,duration,num_gpu\n") == TraceFormat::Itp);
  CHECK(hetsim::detect_trace_format(
            "i", "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n") ==
        TraceFormat::Itp);
}

TEST_CASE("alibaba-openb: pods map to jobs by the documented rules", "[trace][openb]") {
  const std::string text = kOpenbHeader +
                           "cpu-a,8000,1024,0,0,,BE,Succeeded,5,50,6\n"                  // line 2: CPU-only, skipped
                           "whole,12000,16384,2,1000,,LS,Succeeded,100,1100,160\n"       // 3
                           "share,6000,12288,1,460,,LS,Running,10,5000,20\n"             // 4
                           "pend,6000,12288,1,1000,,BE,Pending,30,90,\n"                 // 5
                           "spec,6000,12288,8,1000,V100M16|v100m32|V100M32,LS,Failed,40,40,40\n";  // 6
  Workload w = hetsim::read_alibaba_openb_trace("pods.csv", text);
  CHECK(w.format == "alibaba-openb");
  CHECK(w.rows_skipped == 1);
  REQUIRE(w.jobs.size() == 4);
  CHECK(w.jobs[0].id == "share");  // sorted by creation_time: 10, 30, 40, 100
  CHECK(w.jobs[3].id == "whole");

  const JobSpec& whole = job_with_id(w, "whole");
  CHECK(whole.submit == SimTime::from_seconds(100));
  CHECK(whole.work == 940.0);  // deletion 1100 - scheduled 160
  CHECK(whole.unit == WorkUnit::ReferenceSeconds);
  CHECK(whole.requested_gpus == 2);
  CHECK(whole.min_gpus == 2);
  CHECK(whole.max_gpus == 2);
  CHECK(whole.allowed_gpu_types.empty());
  CHECK(whole.source_line == 3);

  const JobSpec& share = job_with_id(w, "share");
  CHECK(share.requested_gpus == 1);
  CHECK(share.gpu_milli == 460);  // 0.46 of one GPU, shared with other such pods
  CHECK(share.work == 4980.0);

  const JobSpec& pend = job_with_id(w, "pend");
  CHECK(pend.work == 60.0);  // never scheduled: deletion 90 - creation 30

  const JobSpec& spec = job_with_id(w, "spec");
  CHECK(spec.work == 0.0);
  CHECK(spec.allowed_gpu_types == std::vector<std::string>{"v100m16", "v100m32"});
  CHECK(spec.invalid_reason.empty());

  CHECK(has_note(w, "4 GPU pods read as jobs; 1 CPU-only pods (num_gpu = 0) skipped"));
  CHECK(has_note(w, "1 GPU-sharing pods (num_gpu = 1, gpu_milli < 1000) hold their fraction of one GPU"));
  CHECK(has_note(w, "1 pods were never scheduled"));
  CHECK(has_note(w, "1 pods were still Running"));
  CHECK(has_note(w, "1 pods restricted to GPU types by gpu_spec"));
}

TEST_CASE("alibaba-openb: bad rows name file, line and field", "[trace][openb]") {
  auto error_of = [](const std::string& rows) {
    try {
      hetsim::read_alibaba_openb_trace("pods.csv", kOpenbHeader + rows);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("a,1,1,1,1000,,LS,Running,x,10,0\n"), Contains("pods.csv:2: field 'creation_time'"));
  CHECK_THAT(error_of("a,1,1,1,1000,,LS,Running,0,,0\n"), Contains("pods.csv:2: field 'deletion_time'"));
  CHECK_THAT(error_of("a,1,1,1.5,1000,,LS,Running,0,10,0\n"), Contains("pods.csv:2: field 'num_gpu'"));
  CHECK_THAT(error_of("a,1,1,1,1500,,LS,Running,0,10,0\n"), Contains("pods.csv:2: field 'gpu_milli'"));
  CHECK_THAT(error_of("a,1,1,1,1000,,LS,Running,0,10\n"), Contains("pods.csv:2") && Contains("expected 11"));
  CHECK_THAT(error_of("a,1,1,1,1000,,LS,Running,0,10,0\na,1,1,1,1000,,LS,Running,0,10,0\n"),
             Contains("pods.csv:3: field 'name'") && Contains("duplicate"));
  // A pod list without times (the multigpu50 resample) cannot be replayed.
  CHECK_THROWS_WITH(hetsim::read_alibaba_openb_trace("m.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,1,1000\n"),
                    Contains("m.csv:1: field 'creation_time'") && Contains("multigpu50"));
  // Well-formed but unrunnable: kept, rejected at admission with the reason.
  Workload w = hetsim::read_alibaba_openb_trace("pods.csv", kOpenbHeader + "neg,1,1,1,1000,,LS,Failed,0,10,20\n");
  REQUIRE(w.jobs.size() == 1);
  CHECK_THAT(w.jobs[0].invalid_reason, Contains("pods.csv:2: field 'deletion_time': negative duration (-10)"));
  // A fraction on several GPUs (not in the published files) keeps num_gpu whole GPUs, noted apart.
  Workload m = hetsim::read_alibaba_openb_trace("pods.csv", kOpenbHeader + "two,1,1,2,500,,LS,Running,0,10,0\n");
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].requested_gpus == 2);
  CHECK(has_note(m, "1 pods with gpu_milli < 1000 on num_gpu > 1 run on num_gpu whole GPUs"));
  CHECK_FALSE(has_note(m, "GPU-sharing pods"));
}

TEST_CASE("itp: raw and ElasticFlow rows", "[trace][itp]") {
  Workload raw = hetsim::read_itp_trace("c.csv",
                                        "job_id,submission_time,duration,num_gpu\n"
                                        "j2,200,30,8\n"
                                        "j1,100,600.5,1\n"
                                        "j3,300,10,0\n",
                                        false);
  CHECK(raw.format == "itp");
  REQUIRE(raw.jobs.size() == 3);
  CHECK(raw.jobs[0].id == "j1");
  CHECK(raw.jobs[0].work == 600.5);
  CHECK(raw.jobs[0].unit == WorkUnit::ReferenceSeconds);
  CHECK(raw.jobs[0].submit == SimTime::from_seconds(100));
  CHECK(raw.jobs[1].requested_gpus == 8);
  CHECK(raw.jobs[1].job_type.empty());
  CHECK_THAT(raw.jobs[2].invalid_reason, Contains("c.csv:4: field 'num_gpu'"));
  CHECK(raw.notes.empty());

  const std::string ef =
      "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
      "a,10,4500,resnet50,900,128,4,700\n"
      "b,20,300,bert,50,0,1,60\n";
  Workload by_time = hetsim::read_itp_trace("ef.csv", ef, false);
  REQUIRE(by_time.jobs.size() == 2);
  CHECK(by_time.jobs[0].work == 700.0);
  CHECK(by_time.jobs[0].unit == WorkUnit::ReferenceSeconds);
  CHECK(by_time.jobs[0].job_type == "resnet50");
  CHECK(by_time.jobs[0].global_batch_size == 128);
  CHECK_THAT(by_time.jobs[1].invalid_reason, Contains("ef.csv:3: field 'batch_size'"));
  REQUIRE(by_time.notes.size() == 1);
  CHECK_THAT(by_time.notes[0], Contains("deadlines of 2 jobs read"));

  Workload by_iter = hetsim::read_itp_trace("ef.csv", ef, true);
  CHECK(by_iter.format == "itp-ef");
  CHECK(by_iter.jobs[0].work == 4500.0);
  CHECK(by_iter.jobs[0].unit == WorkUnit::Iterations);
}

TEST_CASE("itp: bad rows name file, line and field", "[trace][itp]") {
  auto error_of = [](const std::string& text, bool iterations) {
    try {
      hetsim::read_itp_trace("c.csv", text, iterations);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string h = "job_id,submission_time,duration,num_gpu\n";
  CHECK_THAT(error_of(h + "a,1,x,1\n", false), Contains("c.csv:2: field 'duration'"));
  CHECK_THAT(error_of(h + "a,1,5,2.5\n", false), Contains("c.csv:2: field 'num_gpu'"));
  CHECK_THAT(error_of(h + "a,1,5\n", false), Contains("c.csv:2") && Contains("expected 4"));
  CHECK_THAT(error_of(h + "a,1,5,1\na,2,5,1\n", false), Contains("c.csv:3: field 'job_id'"));
  CHECK_THAT(error_of(h + ",1,5,1\n", false), Contains("c.csv:2: field 'job_id'"));
  CHECK_THAT(error_of("job_id,submission_time,num_gpu\n", false), Contains("c.csv:1: field 'duration'"));
  CHECK_THAT(error_of(h + "a,1,5,1\n", true), Contains("c.csv:1: field 'num_iteration'"));
  CHECK_THAT(error_of("job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
                      "a,1,10,m,zz,32,1,5\n",
                      false),
             Contains("c.csv:2: field 'deadline'"));
}

TEST_CASE("alibaba-openb: the real pod lists", "[trace][openb][data]") {
  auto path = hetsim::test::shared_data("alibaba-openb-2023/openb_pod_list_default.csv");
  if (!path) return;
  Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
  CHECK(w.format == "alibaba-openb");
  // 8,152 pods: 1,088 CPU-only, the rest jobs; of those 3,078 GPU-sharing, 861 never scheduled,
  // 4,149 still running at the end.
  CHECK(w.rows_skipped == 1088);
  CHECK(w.jobs.size() == 8152 - 1088);
  CHECK(has_note(w, "3078 GPU-sharing pods"));
  CHECK(has_note(w, "861 pods were never scheduled"));
  CHECK(has_note(w, "4149 pods were still Running"));
  CHECK(std::none_of(w.jobs.begin(), w.jobs.end(), [](const JobSpec& j) { return !j.invalid_reason.empty(); }));
  const JobSpec& first = job_with_id(w, "openb-pod-0000");  // 0,12537496,0
  CHECK(first.work == 12537496.0);

  auto spec_path = hetsim::test::shared_data("alibaba-openb-2023/openb_pod_list_gpuspec33.csv");
  if (!spec_path) return;
  Workload s = hetsim::read_trace(*spec_path, TraceFormat::AlibabaOpenb);
  CHECK(s.jobs.size() == w.jobs.size());
  const auto constrained = std::count_if(s.jobs.begin(), s.jobs.end(), [](const JobSpec& j) { return !j.allowed_gpu_types.empty(); });
  CHECK(constrained == 2388);  // every non-empty gpu_spec of the file belongs to a GPU pod
}

TEST_CASE("itp: every real raw and ElasticFlow trace parses", "[trace][itp][data]") {
  struct Case {
    const char* file;
    std::size_t jobs;
  };
  for (Case c : {Case{"elasticflow-itp/raw-traces/cluster01.csv", 1595}, Case{"elasticflow-itp/raw-traces/cluster04.csv", 15802},
                 Case{"elasticflow-itp/raw-traces/cluster09.csv", 11134},
                 Case{"elasticflow-itp/elasticflow-traces/195job.csv", 195},
                 Case{"elasticflow-itp/elasticflow-traces/cluster07.csv", 12699}}) {
    auto path = hetsim::test::shared_data(c.file);
    if (!path) return;
    Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
    CHECK(w.format == "itp");
    CHECK(w.jobs.size() == c.jobs);
    CHECK(std::none_of(w.jobs.begin(), w.jobs.end(), [](const JobSpec& j) { return !j.invalid_reason.empty(); }));
  }
  auto ef = hetsim::test::shared_data("elasticflow-itp/elasticflow-traces/195job.csv");
  if (!ef) return;
  Workload w = hetsim::read_trace(*ef, TraceFormat::ItpEf);
  // First row: bdd640fb-...,3715485,3249,deepspeech2,3716178,32,1,1075
  const JobSpec& j = job_with_id(w, "bdd640fb-0667-1ad1-1c80-317fa3b1799d");
  CHECK(j.work == 3249.0);
  CHECK(j.job_type == "deepspeech2");
  CHECK(j.global_batch_size == 32);
  CHECK(j.submit == SimTime::from_seconds(3715485));
}
