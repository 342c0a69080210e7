// Trace readers: real rows from the shared data parse to the right jobs, every kind of bad row is
// reported with its line and field, unrunnable rows become invalid jobs, and order is stable.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "test_support.hpp"
#include "trace_support.hpp"

using Catch::Contains;
using Catch::Equals;
using hetsim::InputError;
using hetsim::JobSpec;
using hetsim::SimTime;
using hetsim::TraceFormat;
using hetsim::Workload;
using hetsim::WorkUnit;
using hetsim::test::job_with_id;

namespace {

bool sorted_by_submit(const Workload& w) {
  return std::is_sorted(w.jobs.begin(), w.jobs.end(),
                        [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
}

SimTime secs(double s) { return SimTime::from_seconds(s); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Format names and detection

TEST_CASE("trace format names round-trip", "[trace]") {
  for (TraceFormat f : {TraceFormat::Auto, TraceFormat::Native, TraceFormat::Gavel,
                        TraceFormat::Philly, TraceFormat::Heet}) {
    auto parsed = hetsim::parse_trace_format(hetsim::to_string(f));
    REQUIRE(parsed);
    CHECK(*parsed == f);
  }
  CHECK(hetsim::parse_trace_format("Philly") == TraceFormat::Philly);
  CHECK_FALSE(hetsim::parse_trace_format("csv"));
  CHECK_FALSE(hetsim::parse_trace_format(""));
}

TEST_CASE("detect_trace_format recognises each format from its first line", "[trace]") {
  CHECK(hetsim::detect_trace_format("p", "timestamp,duration,num_gpus,gpu_time,cluster\n") ==
        TraceFormat::Philly);
  CHECK(hetsim::detect_trace_format("n", "# my trace\n\njob_id,submit_s,num_gpus,duration_s\n") ==
        TraceFormat::Native);
  CHECK(hetsim::detect_trace_format("n", "num_gpus,submit_s,job_id,epochs\n") ==
        TraceFormat::Native);
  CHECK(hetsim::detect_trace_format("g", "LM (batch size 5)\tcmd\t--steps\t1\t100\t0.0\t1\n") ==
        TraceFormat::Gavel);
  CHECK(hetsim::detect_trace_format("g", "A3C\tc\tw\t-n\t1\t10\t1\t1\t-1\t0\n") ==
        TraceFormat::Gavel);
  CHECK(hetsim::detect_trace_format("g", "A3C\tc\tw\t-n\t1\t10\t1\tgns\t1\t-1\t30\t0\n") ==
        TraceFormat::Gavel);
  CHECK(hetsim::detect_trace_format("h", "\n0,vgg19,100,4,64\n") == TraceFormat::Heet);

  CHECK_THROWS_WITH(hetsim::detect_trace_format("odd.txt", "a,b,c\n"),
                    Contains("odd.txt:1") && Contains("cannot detect"));
  CHECK_THROWS_WITH(hetsim::detect_trace_format("odd.txt", "\n\n"),
                    Contains("odd.txt") && Contains("no data"));
  // Five fields with a header is not the (headerless) heet format.
  CHECK_THROWS_AS(hetsim::detect_trace_format("x", "round,model,epochs,gpus,batch\n"), InputError);
}

TEST_CASE("detect_trace_format on the real files", "[trace][data]") {
  struct Case {
    const char* file;
    TraceFormat format;
  };
  for (const Case& c : {Case{"pollux/traces/philly.csv", TraceFormat::Philly},
                        Case{"gavel/traces/msr/seed=0/23dbec.trace", TraceFormat::Gavel},
                        Case{"gavel/traces/physical_cluster/small_test.trace", TraceFormat::Gavel},
                        Case{"heet-prototype/trace.dat", TraceFormat::Heet}}) {
    auto path = hetsim::test::shared_data(c.file);
    if (!path) return;
    CAPTURE(c.file);
    CHECK(hetsim::detect_trace_format(*path, hetsim::read_file(*path)) == c.format);
  }
}

TEST_CASE("read_trace names a missing file", "[trace]") {
  CHECK_THROWS_WITH(hetsim::read_trace("/nonexistent/jobs.csv", TraceFormat::Auto),
                    Contains("/nonexistent/jobs.csv") && Contains("cannot open"));
}

TEST_CASE("an error that echoes a huge cell stays readable", "[trace]") {
  // A 100 kB cell used to be copied whole into the message; it is cut on a character boundary
  // ("é" is two bytes and straddles the cut) and says how much was left out.
  std::string cell_utf8 = "x";
  for (int i = 0; i < 50'000; ++i) cell_utf8 += "\xC3\xA9";
  try {
    (void)hetsim::read_native_trace("big.csv", "job_id,submit_s,num_gpus,duration_s\na," + cell_utf8 + ",1,60\n");
    FAIL("no error");
  } catch (const hetsim::InputError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith("big.csv:2: field 'submit_s': "));
    CHECK_THAT(what, Contains("more bytes)"));
    CHECK(what.size() < 4200);
    CHECK(e.message().size() > 100'000);  // the full text stays available to callers
    const std::size_t dots = what.find("... (");
    REQUIRE(dots != std::string::npos);
    CHECK((static_cast<unsigned char>(what[dots - 1]) == 0xA9));  // a whole "é" before the cut
  }
}

// ---------------------------------------------------------------------------------------------
// Native format

TEST_CASE("native: every column is read", "[trace][native]") {
  const char* text =
      "# two jobs\n"
      "job_id, num_gpus ,submit_s,iterations,job_type,"
      "batch_size,priority_weight,min_gpus,max_gpus\n"
      "\n"
      "a,4,10.5,1000,resnet50,256,2.5,2,8\n"
      "b,1,3,0,,,,,\n";
  Workload w = hetsim::read_native_trace("jobs.csv", text);
  CHECK(w.source == "jobs.csv");
  CHECK(w.format == "native");
  REQUIRE(w.jobs.size() == 2);

  const JobSpec& b = w.jobs[0];  // earlier submit first
  CHECK(b.id == "b");
  CHECK(b.submit == secs(3));
  CHECK(b.requested_gpus == 1);
  CHECK(b.min_gpus == 1);
  CHECK(b.max_gpus == 1);
  CHECK(b.work == 0.0);  // zero work is valid: the job completes on arrival
  CHECK(b.job_type.empty());
  CHECK(b.global_batch_size == 0);
  CHECK(b.priority_weight == 1.0);
  CHECK(b.invalid_reason.empty());
  CHECK(b.source_line == 5);

  const JobSpec& a = w.jobs[1];
  CHECK(a.id == "a");
  CHECK(a.submit == SimTime::from_us(10'500'000));
  CHECK(a.requested_gpus == 4);
  CHECK(a.min_gpus == 2);
  CHECK(a.max_gpus == 8);
  CHECK(a.work == 1000.0);
  CHECK(a.unit == WorkUnit::Iterations);
  CHECK(a.job_type == "resnet50");
  CHECK(a.global_batch_size == 256);
  CHECK(a.priority_weight == 2.5);
  CHECK(*a.source_file == "jobs.csv");
  CHECK(a.source_line == 4);
  CHECK(a.invalid_reason.empty());
}

TEST_CASE("native: the work column sets the unit", "[trace][native]") {
  CHECK(hetsim::read_native_trace("t", "job_id,submit_s,num_gpus,duration_s\nx,0,1,60\n")
            .jobs.at(0)
            .unit == WorkUnit::ReferenceSeconds);
  CHECK(hetsim::read_native_trace("t", "job_id,submit_s,num_gpus,epochs\nx,0,1,3\n")
            .jobs.at(0)
            .unit == WorkUnit::Epochs);
  CHECK(hetsim::read_native_trace("t", "job_id,submit_s,num_gpus,iterations\r\nx,0,1,3\r\n")
            .jobs.at(0)
            .unit == WorkUnit::Iterations);
  // A header with no rows is an empty workload, not an error.
  CHECK(hetsim::read_native_trace("t", "job_id,submit_s,num_gpus,epochs\n").jobs.empty());
}

TEST_CASE("native: rows that cannot be understood throw with line and field", "[trace][native]") {
  const std::string header = "job_id,submit_s,num_gpus,duration_s\n";

  SECTION("unknown column") {
    CHECK_THROWS_WITH(
        hetsim::read_native_trace("t.csv", "job_id,submit_s,num_gpus,duration_s,colour\n"),
        Contains("t.csv:1") && Contains("field 'colour'") && Contains("unknown column"));
  }
  SECTION("missing required column") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", "job_id,num_gpus,duration_s\n"),
                      Contains("t.csv:1") && Contains("field 'submit_s'"));
  }
  SECTION("no work column or two work columns") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", "job_id,submit_s,num_gpus\n"),
                      Contains("t.csv:1") && Contains("exactly one work column"));
    CHECK_THROWS_WITH(
        hetsim::read_native_trace("t.csv", "job_id,submit_s,num_gpus,epochs,iterations\n"),
        Contains("t.csv:1") && Contains("found 2"));
  }
  SECTION("repeated column") {
    CHECK_THROWS_WITH(
        hetsim::read_native_trace("t.csv", "job_id,submit_s,num_gpus,epochs,job_id\n"),
        Contains("t.csv:1") && Contains("field 'job_id'") && Contains("twice"));
  }
  SECTION("duplicate job id") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "a,0,1,5\nb,0,1,5\na,1,1,5\n"),
                      Contains("t.csv:4") && Contains("field 'job_id'") && Contains("line 2"));
  }
  SECTION("empty job id") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + " ,0,1,5\n"),
                      Contains("t.csv:2") && Contains("field 'job_id'"));
  }
  SECTION("a job id with a control character or bytes that are not UTF-8") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + std::string("a\0b,0,1,5\n", 10)),
                      Equals("t.csv:2: field 'job_id': job id has a control character (byte 0x00 at position 2)"));
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "ok,0,1,5\nx\xff\xfe,0,1,5\n"),
                      Equals("t.csv:3: field 'job_id': job id is not valid UTF-8 (byte 0xFF at position 2)"));
    // An overlong '/' (0xC0 0xAF) and a lone UTF-16 surrogate (0xED 0xA0 0x80) are not UTF-8 either.
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "\xc0\xaf,0,1,5\n"), Contains("position 1"));
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "j\xed\xa0\x80,0,1,5\n"), Contains("not valid UTF-8"));
    // Multi-byte ids are fine.
    CHECK(hetsim::read_native_trace("t.csv", header + "caf\xc3\xa9-\xe4\xb8\xad-\xf0\x9f\x9a\x80,0,1,5\n").jobs.at(0).id ==
          "caf\xc3\xa9-\xe4\xb8\xad-\xf0\x9f\x9a\x80");
  }
  SECTION("wrong number of fields") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "a,0,1,5\nb,0,1\n"),
                      Contains("t.csv:3") && Contains("expected 4") && Contains("got 3"));
  }
  SECTION("text where a number belongs") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "# c\na,soon,1,5\n"),
                      Contains("t.csv:3") && Contains("field 'submit_s'") && Contains("soon"));
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "a,0,1.5,5\n"),
                      Contains("t.csv:2") && Contains("field 'num_gpus'"));
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", header + "a,0,1,\n"),
                      Contains("t.csv:2") && Contains("field 'duration_s'"));
  }
  SECTION("integer out of range") {
    CHECK_THROWS_WITH(
        hetsim::read_native_trace("t.csv", header + "a,0,99999999999,5\n"),
        Contains("t.csv:2") && Contains("field 'num_gpus'") && Contains("out of range"));
  }
  SECTION("no header at all") {
    CHECK_THROWS_WITH(hetsim::read_native_trace("t.csv", "# only a comment\n"),
                      Contains("t.csv") && Contains("no header"));
  }
  SECTION("the error carries file, line and field") {
    try {
      hetsim::read_native_trace("t.csv", header + "a,0,x,5\n");
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.file() == "t.csv");
      CHECK(e.line() == 2);
      CHECK(e.field() == "num_gpus");
    }
  }
}

TEST_CASE("native: unrunnable rows become invalid jobs, not errors", "[trace][native]") {
  const std::string header =
      "job_id,submit_s,num_gpus,duration_s,min_gpus,max_gpus,priority_weight\n";
  auto one = [&](const std::string& row) {
    Workload w = hetsim::read_native_trace("trace.csv", header + row + "\n");
    REQUIRE(w.jobs.size() == 1);
    return w.jobs[0];
  };

  SECTION("negative duration") {
    JobSpec j = one("a,0,1,-5,,,");
    CHECK(j.invalid_reason == "trace.csv:2: field 'duration_s': negative duration (-5)");
    CHECK(j.work == -5.0);
  }
  SECTION("no GPUs") {
    CHECK_THAT(one("a,0,0,5,,,").invalid_reason,
               Contains("trace.csv:2") && Contains("field 'num_gpus'"));
    CHECK_THAT(one("a,0,-2,5,,,").invalid_reason, Contains("field 'num_gpus'"));
  }
  SECTION("negative submit time is clamped to 0") {
    JobSpec j = one("a,-30,1,5,,,");
    CHECK_THAT(j.invalid_reason, Contains("trace.csv:2") && Contains("field 'submit_s'"));
    CHECK(j.submit == SimTime());
  }
  SECTION("elastic range that excludes the request") {
    CHECK_THAT(one("a,0,4,5,8,,").invalid_reason,
               Contains("trace.csv:2") && Contains("field 'min_gpus'"));
    CHECK_THAT(one("a,0,4,5,,2,").invalid_reason,
               Contains("trace.csv:2") && Contains("field 'max_gpus'"));
    CHECK(one("a,0,4,5,1,16,").invalid_reason.empty());
  }
  SECTION("non-positive priority weight") {
    CHECK_THAT(one("a,0,1,5,,,0").invalid_reason,
               Contains("trace.csv:2") && Contains("field 'priority_weight'"));
    CHECK_THAT(one("a,0,1,5,,,-1").invalid_reason, Contains("field 'priority_weight'"));
  }
  SECTION("zero work is valid") { CHECK(one("a,0,1,0,,,").invalid_reason.empty()); }
  SECTION("invalid jobs are kept in the workload with their neighbours") {
    Workload w =
        hetsim::read_native_trace("trace.csv", header + "a,0,1,5,,,\nb,1,1,-5,,,\nc,2,1,5,,,\n");
    REQUIRE(w.jobs.size() == 3);
    CHECK(w.jobs[1].id == "b");
    CHECK_FALSE(w.jobs[1].invalid_reason.empty());
    CHECK(w.jobs[0].invalid_reason.empty());
    CHECK(w.jobs[2].invalid_reason.empty());
  }
}

TEST_CASE("readers sort stably by submit time", "[trace][native]") {
  Workload w = hetsim::read_native_trace("t.csv",
                                         "job_id,submit_s,num_gpus,epochs\n"
                                         "late,20,1,1\n"
                                         "tie1,10,1,1\n"
                                         "early,5,1,1\n"
                                         "tie2,10,1,1\n"
                                         "next_us,10.000001,1,1\n"
                                         "tie3,10.0000001,1,1\n"
                                         "tie4,10,1,1\n");
  std::vector<std::string> ids;
  for (const JobSpec& j : w.jobs) ids.push_back(j.id);
  // Times are whole microseconds, so 10.0000001 s is a tie with 10 s and keeps its file place.
  CHECK(ids ==
        std::vector<std::string>{"early", "tie1", "tie2", "tie3", "tie4", "next_us", "late"});
}

// ---------------------------------------------------------------------------------------------
// Gavel

TEST_CASE("gavel: real MSR trace (7 fields)", "[trace][gavel][data]") {
  auto path = hetsim::test::shared_data("gavel/traces/msr/seed=0/23dbec.trace");
  if (!path) return;
  Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
  CHECK(w.format == "gavel");
  CHECK(w.source == *path);
  REQUIRE(w.jobs.size() == 9);
  CHECK(sorted_by_submit(w));

  const JobSpec& first = w.jobs[0];
  CHECK(first.id == "gavel-1");
  CHECK(first.job_type == "Transformer (batch size 128)");
  CHECK(first.global_batch_size == 128);
  CHECK(first.work == 14612.0);
  CHECK(first.unit == WorkUnit::Iterations);
  CHECK(first.submit == SimTime());
  CHECK(first.requested_gpus == 1);
  CHECK(first.priority_weight == 1.0);
  CHECK(*first.source_file == *path);
  CHECK(first.source_line == 1);

  const JobSpec& resnet = job_with_id(w, "gavel-4");
  CHECK(resnet.job_type == "ResNet-18 (batch size 32)");
  CHECK(resnet.global_batch_size == 32);
  CHECK(resnet.work == 775977.0);
  CHECK(resnet.submit == secs(182117));
  CHECK(resnet.requested_gpus == 8);
  CHECK(resnet.min_gpus == 8);
  CHECK(resnet.max_gpus == 8);

  // CycleGAN has no batch size in its job type. Lines 7, 8, 9 arrive together at 188011 s and
  // keep file order.
  const JobSpec& gan = w.jobs[8];
  CHECK(gan.id == "gavel-9");
  CHECK(gan.job_type == "CycleGAN");
  CHECK(gan.global_batch_size == 0);
  CHECK(gan.work == 55992.0);
  CHECK(w.jobs[6].id == "gavel-7");
  CHECK(w.jobs[7].id == "gavel-8");
  CHECK(w.jobs[6].submit == secs(188011));
  CHECK(w.jobs[8].submit == secs(188011));
  for (const JobSpec& j : w.jobs) CHECK(j.invalid_reason.empty());
}

TEST_CASE("gavel: every real Gavel and Shockwave trace parses", "[trace][gavel][data]") {
  const std::string shockwave = "shockwave/traces/reproduce/";
  const std::string tail = "_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace";
  const std::vector<std::pair<std::string, std::size_t>> cases = {
      {"gavel/traces/msr/seed=0/0e4a51.trace", 1181},
      {"gavel/traces/msr/seed=0/103959.trace", 986},
      {"gavel/traces/msr/seed=0/11cb48.trace", 2000},
      {"gavel/traces/msr/seed=0/23dbec.trace", 9},
      {"gavel/traces/msr/seed=0/2869ce.trace", 533},
      {"gavel/traces/msr/seed=0/51b7ef.trace", 18},
      {"gavel/traces/msr/seed=0/6214e9.trace", 2000},
      {"gavel/traces/msr/seed=0/6c71a0.trace", 2000},
      {"gavel/traces/msr/seed=0/795a4c.trace", 3},
      {"gavel/traces/msr/seed=0/7f04ca.trace", 972},
      {"gavel/traces/msr/seed=0/925e2b.trace", 4},
      {"gavel/traces/msr/seed=0/b436b2.trace", 2000},
      {"gavel/traces/msr/seed=0/e13805.trace", 607},
      {"gavel/traces/msr/seed=0/ed69ec.trace", 951},
      {"gavel/traces/msr/seed=0/ee9e8c.trace", 2000},
      {"gavel/traces/physical_cluster/artifact_evaluation.trace", 15},
      {"gavel/traces/physical_cluster/debug.trace", 14},
      {"gavel/traces/physical_cluster/debug_v2.trace", 14},
      {"gavel/traces/physical_cluster/highmem_test.trace", 8},
      {"gavel/traces/physical_cluster/max_min_fairness.trace", 96},
      {"gavel/traces/physical_cluster/medium_test.trace", 20},
      {"gavel/traces/physical_cluster/minimize_makespan.trace", 100},
      {"gavel/traces/physical_cluster/small_test.trace", 20},
      {shockwave + "120_0.2_5_100_40_25" + tail, 120},
      {shockwave + "220_0.2_5_100_25_4" + tail, 220},
      {shockwave + "460_0.2_5_100_10_1" + tail, 460},
      {shockwave + "900_0.2_5_1000_5_15" + tail, 900},
      {shockwave + "900_0.2_5_100_5_15" + tail, 900},
  };
  for (const auto& [file, jobs] : cases) {
    auto path = hetsim::test::shared_data(file);
    if (!path) return;
    CAPTURE(file);
    Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
    CHECK(w.format == "gavel");
    CHECK(w.jobs.size() == jobs);
    CHECK(sorted_by_submit(w));
    CHECK(std::none_of(w.jobs.begin(), w.jobs.end(),
                       [](const JobSpec& j) { return !j.invalid_reason.empty(); }));
  }
}

TEST_CASE("gavel: real physical-cluster trace (10 fields)", "[trace][gavel][data]") {
  auto path = hetsim::test::shared_data("gavel/traces/physical_cluster/small_test.trace");
  if (!path) return;
  Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
  REQUIRE(w.jobs.size() == 20);
  // Every job arrives at 0, so the stable sort must keep file order.
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    CHECK(w.jobs[i].id == "gavel-" + std::to_string(i + 1));
    CHECK(w.jobs[i].submit == SimTime());
  }
  CHECK(w.jobs[0].job_type == "Transformer (batch size 128)");
  CHECK(w.jobs[0].work == 346.0);
  CHECK(w.jobs[0].requested_gpus == 2);
  CHECK(w.jobs[0].priority_weight == 1.0);
  CHECK(w.jobs[3].job_type == "ResNet-18 (batch size 32)");
  CHECK(w.jobs[3].work == 3948.0);
  CHECK(w.jobs[3].requested_gpus == 2);
  CHECK(w.jobs[8].job_type == "CycleGAN");
  CHECK(w.jobs[8].work == 295.0);
  CHECK(w.jobs[8].requested_gpus == 1);
}

TEST_CASE("gavel: real Shockwave trace (12 fields)", "[trace][gavel][data]") {
  auto path = hetsim::test::shared_data(
      "shockwave/traces/reproduce/"
      "120_0.2_5_100_40_25_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace");
  if (!path) return;
  Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
  CHECK(w.format == "gavel");
  REQUIRE(w.jobs.size() == 120);
  CHECK(sorted_by_submit(w));
  const JobSpec& lm = w.jobs[0];
  CHECK(lm.id == "gavel-1");
  CHECK(lm.job_type == "LM (batch size 10)");
  CHECK(lm.global_batch_size == 10);
  CHECK(lm.work == 134583.0);
  CHECK(lm.requested_gpus == 1);
  CHECK(lm.submit == SimTime());
  const JobSpec& rn = w.jobs[1];
  CHECK(rn.id == "gavel-2");
  CHECK(rn.job_type == "ResNet-18 (batch size 32)");
  CHECK(rn.work == 143450.0);
  CHECK(rn.submit == secs(55));
  CHECK(job_with_id(w, "gavel-5").submit == secs(109));
  CHECK(job_with_id(w, "gavel-5").global_batch_size == 8192);
}

TEST_CASE("gavel: bad rows", "[trace][gavel]") {
  const std::string row7 = "LM (batch size 5)\tcmd\t--steps\t1\t100\t7.5\t2\n";

  SECTION("a valid row") {
    Workload w = hetsim::read_gavel_trace("g.trace", row7);
    REQUIRE(w.jobs.size() == 1);
    CHECK(w.jobs[0].submit == SimTime::from_us(7'500'000));
    CHECK(w.jobs[0].requested_gpus == 2);
    CHECK(w.jobs[0].global_batch_size == 5);
  }
  SECTION("unsupported field count") {
    CHECK_THROWS_WITH(hetsim::read_gavel_trace("g.trace", "A3C\tcmd\t-n\t1\t10\t0\n"),
                      Contains("g.trace:1") && Contains("got 6"));
  }
  SECTION("mixed layouts in one file") {
    CHECK_THROWS_WITH(
        hetsim::read_gavel_trace("g.trace", row7 + "\n" + "A3C\tc\tw\t-n\t1\t10\t1\t1\t-1\t0\n"),
        Contains("g.trace:3") && Contains("expected 7") && Contains("got 10"));
  }
  SECTION("text where a number belongs") {
    CHECK_THROWS_WITH(hetsim::read_gavel_trace("g.trace", row7 + "A3C\tc\t-n\t1\tmany\t0\t1\n"),
                      Contains("g.trace:2") && Contains("field 'total_steps'"));
    CHECK_THROWS_WITH(hetsim::read_gavel_trace("g.trace", "A3C\tc\t-n\t1\t10\tnow\t1\n"),
                      Contains("g.trace:1") && Contains("field 'arrival_time'"));
    CHECK_THROWS_WITH(hetsim::read_gavel_trace("g.trace", "A3C\tc\tw\t-n\t1\t10\t1\tx\t-1\t0\n"),
                      Contains("g.trace:1") && Contains("field 'priority_weight'"));
  }
  SECTION("unrunnable rows") {
    Workload w = hetsim::read_gavel_trace("g.trace",
                                          "A3C\tc\t-n\t1\t10\t0\t0\n"
                                          "A3C\tc\t-n\t1\t-10\t0\t1\n"
                                          "A3C\tc\t-n\t1\t10\t-4\t1\n");
    REQUIRE(w.jobs.size() == 3);
    CHECK_THAT(job_with_id(w, "gavel-1").invalid_reason,
               Contains("g.trace:1") && Contains("field 'scale_factor'"));
    CHECK_THAT(job_with_id(w, "gavel-2").invalid_reason,
               Contains("g.trace:2") && Contains("field 'total_steps'") && Contains("-10"));
    CHECK_THAT(job_with_id(w, "gavel-3").invalid_reason,
               Contains("g.trace:3") && Contains("field 'arrival_time'"));
    CHECK(job_with_id(w, "gavel-3").submit == SimTime());
    Workload weighted = hetsim::read_gavel_trace("g.trace", "A3C\tc\tw\t-n\t1\t10\t1\t0\t-1\t0\n");
    CHECK_THAT(weighted.jobs.at(0).invalid_reason, Contains("field 'priority_weight'"));
  }
}

// ---------------------------------------------------------------------------------------------
// Philly

TEST_CASE("philly: the real Pollux flattening of the Philly log", "[trace][philly][data]") {
  auto path = hetsim::test::shared_data("pollux/traces/philly.csv");
  if (!path) return;
  Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
  CHECK(w.format == "philly");
  REQUIRE(w.jobs.size() == 82247);
  CHECK(sorted_by_submit(w));
  CHECK(std::none_of(w.jobs.begin(), w.jobs.end(),
                     [](const JobSpec& j) { return !j.invalid_reason.empty(); }));

  // The earliest submission (2017-09-04 10:30:41) sits on line 31568, not at the top of the file.
  const JobSpec& first = w.jobs.front();
  CHECK(first.id == "philly-31568");
  CHECK(first.submit == SimTime());
  CHECK(first.work == 2240194.0);
  CHECK(first.requested_gpus == 8);
  CHECK(first.unit == WorkUnit::ReferenceSeconds);
  CHECK(first.job_type.empty());

  // Line 2: 2017-10-09 07:01:55, 66 s on 1 GPU.
  const JobSpec& line2 = job_with_id(w, "philly-2");
  CHECK(line2.submit == secs(3011474));
  CHECK(line2.work == 66.0);
  CHECK(line2.requested_gpus == 1);
  CHECK(line2.min_gpus == 1);
  CHECK(line2.max_gpus == 1);
  CHECK(line2.source_line == 2);

  // Line 23198: 2017-12-12 21:38:32, 7673 s on 128 GPUs.
  const JobSpec& big = job_with_id(w, "philly-23198");
  CHECK(big.submit == secs(8593671));
  CHECK(big.work == 7673.0);
  CHECK(big.requested_gpus == 128);

  // The latest submission, 2017-12-22 08:02:11 on line 62255.
  CHECK(w.jobs.back().id == "philly-62255");
  CHECK(w.jobs.back().submit == secs(9408690));

  // 19 jobs share 2017-10-20 02:59:25; the sort keeps them in file order.
  auto at = std::find_if(w.jobs.begin(), w.jobs.end(),
                         [](const JobSpec& j) { return j.id == "philly-50258"; });
  REQUIRE(at != w.jobs.end());
  std::size_t ties = 0;
  for (auto it = at; it != w.jobs.end() && it->submit == at->submit; ++it, ++ties) {
    if (it != at) CHECK((it - 1)->source_line < it->source_line);
  }
  CHECK(ties == 19);
  // philly-50258 is the first of its group.
  CHECK((at == w.jobs.begin() || (at - 1)->submit < at->submit));
  CHECK((at + 18)->id == "philly-50455");
}

TEST_CASE("philly: timestamps across month, year and leap-day boundaries", "[trace][philly]") {
  Workload w = hetsim::read_philly_trace("p.csv",
                                         "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                         "2016-03-01 00:00:00,10,1,10,a\n"
                                         "2015-12-31 23:59:59,10,2,20,a\n"
                                         "2016-01-01 00:00:00,10,1,10,a\n"
                                         "2016-02-29 12:00:00,10,1,10,a\n"
                                         "2017-01-01 00:00:00,10,1,10,a\n");
  REQUIRE(w.jobs.size() == 5);
  CHECK(job_with_id(w, "philly-3").submit == SimTime());
  CHECK(job_with_id(w, "philly-4").submit == secs(1));
  CHECK(job_with_id(w, "philly-5").submit == secs(1 + (31 + 28) * 86400 + 12 * 3600));
  CHECK(job_with_id(w, "philly-2").submit == secs(1 + (31 + 29) * 86400));
  CHECK(job_with_id(w, "philly-6").submit == secs(1 + 366 * 86400));
}

TEST_CASE("philly: columns are found by name", "[trace][philly]") {
  Workload w = hetsim::read_philly_trace("p.csv",
                                         "cluster,num_gpus,duration,timestamp\n"
                                         "x,4,120.5,2017-10-01 00:00:00\n");
  REQUIRE(w.jobs.size() == 1);
  CHECK(w.jobs[0].requested_gpus == 4);
  CHECK(w.jobs[0].work == 120.5);
}

TEST_CASE("philly: bad rows", "[trace][philly]") {
  const std::string header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  auto bad_time = [&](const std::string& ts) {
    return hetsim::read_philly_trace("p.csv",
                                     header + "2017-10-01 00:00:00,1,1,1,a\n" + ts + ",1,1,1,a\n");
  };
  CHECK_THROWS_WITH(bad_time("2017-13-01 00:00:00"),
                    Contains("p.csv:3") && Contains("field 'timestamp'") && Contains("month 13"));
  CHECK_THROWS_WITH(bad_time("2017-02-29 00:00:00"), Contains("p.csv:3") && Contains("day 29"));
  CHECK_THROWS_WITH(bad_time("2017-04-31 10:00:00"), Contains("p.csv:3") && Contains("day 31"));
  CHECK_THROWS_WITH(bad_time("2017-04-30 24:00:00"), Contains("p.csv:3") && Contains("hour 24"));
  CHECK_THROWS_WITH(bad_time("2017-04-30 23:60:00"), Contains("minute 60"));
  CHECK_THROWS_WITH(bad_time("2017-04-30 23:00:61"), Contains("second 61"));
  CHECK_THROWS_WITH(bad_time("2017/04/30 23:00:00"),
                    Contains("p.csv:3") && Contains("field 'timestamp'") && Contains("malformed"));
  CHECK_THROWS_WITH(bad_time("1506816000"), Contains("field 'timestamp'"));

  CHECK_THROWS_WITH(hetsim::read_philly_trace("p.csv", header + "2017-10-01 00:00:00,long,1,1,a\n"),
                    Contains("p.csv:2") && Contains("field 'duration'"));
  CHECK_THROWS_WITH(hetsim::read_philly_trace("p.csv", header + "2017-10-01 00:00:00,1,one,1,a\n"),
                    Contains("p.csv:2") && Contains("field 'num_gpus'"));
  CHECK_THROWS_WITH(hetsim::read_philly_trace("p.csv", header + "2017-10-01 00:00:00,1,1,1\n"),
                    Contains("p.csv:2") && Contains("got 4"));
  CHECK_THROWS_WITH(hetsim::read_philly_trace("p.csv", "timestamp,num_gpus\n"),
                    Contains("p.csv:1") && Contains("field 'duration'"));

  Workload w = hetsim::read_philly_trace("p.csv", header +
                                                      "2017-10-01 00:00:00,100,0,0,a\n"
                                                      "2017-10-01 00:00:00,-3,1,-3,a\n"
                                                      "2017-10-01 00:00:00,0,1,0,a\n");
  REQUIRE(w.jobs.size() == 3);
  CHECK_THAT(w.jobs[0].invalid_reason, Contains("p.csv:2") && Contains("field 'num_gpus'"));
  CHECK(w.jobs[1].invalid_reason == "p.csv:3: field 'duration': negative duration (-3)");
  CHECK(w.jobs[2].invalid_reason.empty());
}

// ---------------------------------------------------------------------------------------------
// Heet

TEST_CASE("heet: the real prototype trace", "[trace][heet][data]") {
  auto path = hetsim::test::shared_data("heet-prototype/trace.dat");
  if (!path) return;
  Workload w = hetsim::read_trace(*path, TraceFormat::Auto);
  CHECK(w.format == "heet");
  REQUIRE(w.jobs.size() == 18);
  CHECK(sorted_by_submit(w));

  const JobSpec& first = w.jobs[0];  // 0,vgg19,100,4,64
  CHECK(first.id == "heet-1");
  CHECK(first.job_type == "vgg19");
  CHECK(first.work == 100.0);
  CHECK(first.unit == WorkUnit::Epochs);
  CHECK(first.requested_gpus == 4);
  CHECK(first.min_gpus == 4);
  CHECK(first.max_gpus == 4);
  CHECK(first.global_batch_size == 64);
  CHECK(first.submit == SimTime());

  const JobSpec& r2 = job_with_id(w, "heet-14");  // 2,vgg19,800,2,64
  CHECK(r2.job_type == "vgg19");
  CHECK(r2.work == 800.0);
  CHECK(r2.requested_gpus == 2);
  CHECK(r2.submit == secs(240));

  const JobSpec& last = w.jobs.back();  // 4,densenet121,100,2,64
  CHECK(last.id == "heet-18");
  CHECK(last.job_type == "densenet121");
  CHECK(last.submit == secs(480));

  // The round length is an option.
  Workload slow = hetsim::read_trace(*path, TraceFormat::Heet, {.heet_round_s = 60.0});
  CHECK(slow.jobs.back().submit == secs(240));
}

TEST_CASE("heet: bad rows", "[trace][heet]") {
  CHECK_THROWS_WITH(hetsim::read_heet_trace("h.dat", "0,vgg19,100,4\n", {}),
                    Contains("h.dat:1") && Contains("expected 5"));
  CHECK_THROWS_WITH(hetsim::read_heet_trace("h.dat", "0,vgg19,100,4,64\n1.5,vgg19,100,4,64\n", {}),
                    Contains("h.dat:2") && Contains("field 'arrival_round'"));
  CHECK_THROWS_WITH(hetsim::read_heet_trace("h.dat", "0,vgg19,lots,4,64\n", {}),
                    Contains("h.dat:1") && Contains("field 'epochs'"));
  CHECK_THROWS_WITH(hetsim::read_heet_trace("h.dat", "0,,100,4,64\n", {}),
                    Contains("h.dat:1") && Contains("field 'model'"));
  CHECK_THROWS_WITH(hetsim::read_heet_trace("h.dat", "0,vgg19,100,4,64\n", {.heet_round_s = 0.0}),
                    Contains("heet_round_s"));

  Workload w =
      hetsim::read_heet_trace("h.dat", "0,vgg19,-1,4,64\n0,vgg19,1,0,64\n-1,vgg19,1,1,64\n", {});
  REQUIRE(w.jobs.size() == 3);
  CHECK(job_with_id(w, "heet-1").invalid_reason ==
        "h.dat:1: field 'epochs': negative number of epochs (-1)");
  CHECK_THAT(job_with_id(w, "heet-2").invalid_reason,
             Contains("h.dat:2") && Contains("field 'requested_gpus'"));
  CHECK_THAT(job_with_id(w, "heet-3").invalid_reason,
             Contains("h.dat:3") && Contains("field 'arrival_round'"));
  CHECK(job_with_id(w, "heet-3").submit == SimTime());
}
