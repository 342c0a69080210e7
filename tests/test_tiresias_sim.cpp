// The policies that follow Tiresias' own simulator (src/policy/tiresias_*.cpp) and the yarn
// placement (src/sched/placement_yarn.cpp): hand-computed cases, and the 3,000-job Philly figures
// of experiments/tiresias/ pinned.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <numeric>

#include "hetsim/sched/placement.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
using test::duration_job;
using test::record;

using Fit = std::vector<std::pair<std::size_t, int>>;

TEST_CASE("yarn_fit: first node with room, or whole idle nodes plus one node for the rest", "[tiresias-sim][placement]") {
  const std::vector<int> cap{8, 8, 8, 8};
  const std::vector<int> free{3, 8, 5, 8};
  CHECK(yarn_fit(free, cap, 3) == Fit{{0, 3}});  // first fit, not best fit
  CHECK(yarn_fit(free, cap, 5) == Fit{{1, 5}});  // consolidate would take node 2 (exactly 5 free)
  CHECK(yarn_fit(free, cap, 8) == Fit{{1, 8}});
  CHECK(yarn_fit(free, cap, 12) == Fit{{1, 8}, {2, 4}});  // idle node 1, then 4 on the first other node with 4
  CHECK(yarn_fit(free, cap, 16) == Fit{{1, 8}, {3, 8}});
  CHECK(yarn_fit(free, cap, 24).empty());  // only two idle nodes, although 24 GPUs are free
  CHECK(yarn_fit({4, 4, 0, 0}, cap, 8).empty());  // 8 free, but no node holds them
  CHECK(yarn_fit({8, 0, 0, 0}, cap, 9).empty());  // the rest (1) needs a node other than the idle one
}

TEST_CASE("tiresias-fifo: the head job that yarn cannot place blocks the queue", "[tiresias-sim]") {
  // 2 nodes x 4. t=0: A (3 GPUs) -> n0, B (3) -> n1; one GPU free on each. t=1: C (2) has 2 GPUs
  // free but on two nodes: yarn finds no node with 2, C waits and D (1 GPU, t=2) waits behind it.
  // t=50: B completes; C -> n1 (n0 has 1 free), D -> n0. Both finish at 60.
  auto out = test::run_jobs(test::homogeneous_cluster(2, 4),
                            {duration_job("A", 0, 3, 100), duration_job("B", 0, 3, 50), duration_job("C", 1, 2, 10),
                             duration_job("D", 2, 1, 10)},
                            "tiresias-fifo");
  CHECK(record(out, "C").start_s == 50);
  CHECK(record(out, "D").start_s == 50);
  CHECK(record(out, "D").finish_s == 60);
  CHECK(record(out, "A").finish_s == 100);
  // fifo (count only) starts C at 1 across the two nodes, and D behind it waits for B.
  auto plain = test::run_jobs(test::homogeneous_cluster(2, 4),
                              {duration_job("A", 0, 3, 100), duration_job("B", 0, 3, 50), duration_job("C", 1, 2, 10),
                               duration_job("D", 2, 1, 10)},
                              "fifo");
  CHECK(record(plain, "C").start_s == 1);
}

TEST_CASE("tiresias-dlas-gpu: demotion at the simulator's queue-jump wake-ups", "[tiresias-sim]") {
  // 1 node x 2 GPUs, one threshold of 100 GPU-s (2 queues). A: t=0, 2 GPUs, 200 s; B: t=11, 2 GPUs, 100 s.
  // t=0: A runs; wake-up at 0 + (100 - 0) / 2 = 50.
  // t=11: B joins queue 0 behind A (A: 11 s x 2 = 22 GPU-s); B does not fit. The wake-up moves to
  //   11 + (100 - 11) / 2 = 11 + 44 = 55 (floor), dropping the one at 50; A crossed 100 GPU-s at
  //   50 but nothing looks then.
  // t=55: A has 110 GPU-s -> queue 1; queue 0 = [B]: B runs, A is preempted. Wake-up 55 + 100 / 2 = 105.
  // t=105: B has 100 GPU-s -> queue 1 = [A, B]: A resumes (200 - 55 = 145 s left), B is preempted.
  // t=250: A completes (JCT 250); B runs its last 50 s: 300 (JCT 289).
  const std::vector<JobSpec> jobs{duration_job("A", 0, 2, 200), duration_job("B", 11, 2, 100)};
  auto out = test::run_jobs(test::homogeneous_cluster(1, 2), jobs, "tiresias-dlas-gpu", {},
                            {{"queue_limits_gpu_s", "100"}});
  CHECK(record(out, "B").start_s == 55);
  CHECK(record(out, "A").finish_s == 250);
  CHECK(record(out, "B").finish_s == 300);
  CHECK(record(out, "A").preemptions == 1);
  CHECK(record(out, "B").preemptions == 1);
  // A Python 3 port (ceil of a true division): the wake-up is at 11 + ceil(89 / 2) = 56.
  auto ceil = test::run_jobs(test::homogeneous_cluster(1, 2), jobs, "tiresias-dlas-gpu", {},
                             {{"queue_limits_gpu_s", "100"}, {"jump_rounding", "ceil"}});
  CHECK(record(ceil, "B").start_s == 56);
}

TEST_CASE("tiresias-shortest: stable shortest remaining time, a preempted job keeps its remaining time", "[tiresias-sim]") {
  // 1 node x 1 GPU. A: t=0, 100 s. B: t=10, 50 s: A has 90 s left, B 50: B runs, A is preempted.
  // t=60: B completes, A resumes with 90 s: 150.
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1), {duration_job("A", 0, 1, 100), duration_job("B", 10, 1, 50)},
                            "tiresias-shortest");
  CHECK(record(out, "B").finish_s == 60);
  CHECK(record(out, "A").finish_s == 150);
  CHECK(record(out, "A").preemptions == 1);
}

TEST_CASE("tiresias-*: the first 3,000 Philly jobs on 32 x 8 GPUs (experiments/tiresias)", "[tiresias-sim][data]") {
  const auto path = test::shared_data("pollux/traces/philly.csv");
  if (!path) return;
  // convert_philly.py's selection: the 3,000 earliest submissions (the reader sorts stably by
  // submit time, so ties keep file order; every row has a duration >= 1 s and 1..16 GPUs).
  Workload all = read_trace(*path, TraceFormat::Philly);
  REQUIRE(all.jobs.size() > 3000);
  all.jobs.resize(3000);
  const Cluster cluster = test::homogeneous_cluster(32, 8);
  auto mean_jct_s = [&](const std::string& policy, const PolicyParams& params = {}) {
    auto out = test::run_jobs(cluster, all.jobs, policy, {}, params);
    double sum = 0;
    for (const JobRecord& r : out.records) sum += r.finish_s - r.submit_s;
    return sum / static_cast<double>(out.records.size());
  };
  // experiments/tiresias/reference.json: Tiresias' simulator (Python 2.7) gives the same figures.
  CHECK(mean_jct_s("tiresias-fifo") == Approx(934567.539).epsilon(1e-9));
  CHECK(mean_jct_s("tiresias-shortest") == Approx(60098.728666666667).epsilon(1e-9));
  CHECK(mean_jct_s("tiresias-dlas-gpu") == Approx(57358.423).epsilon(1e-9));
  // gittins (with main() fixed to set JOBS.job_dist_data) over the jobs' own GPU-service: the
  // simulator with convert_philly.py's gput-3000.csv as its yarn-gput1000.csv.
  CHECK(mean_jct_s("tiresias-gittins") == Approx(673532.778).epsilon(1e-9));
  // Over the simulator's own yarn-gput1000.csv, when its folder is given (hetsim ships no copy).
  if (const char* dir = std::getenv("TIRESIAS_SIMULATOR_DIR"); dir && *dir)
    CHECK(mean_jct_s("tiresias-gittins", {{"samples_csv", std::string(dir) + "/yarn-gput1000.csv"}}) ==
          Approx(712053.25566666667).epsilon(1e-9));
  else
    WARN("SKIPPED: tiresias-gittins over yarn-gput1000.csv (set TIRESIAS_SIMULATOR_DIR to the simulator's folder)");
}

TEST_CASE("tiresias-dlas-gpu: bad parameters are input errors naming the parameter", "[tiresias-sim]") {
  const PolicyRegistry registry = make_default_registry();
  for (const char* limits : {"100,50", "", "100,", "0", "12.5", "abc"}) {
    INFO(limits);
    CHECK_THROWS_AS(registry.make("tiresias-dlas-gpu", {{"queue_limits_gpu_s", limits}}, 0), InputError);
  }
  CHECK_THROWS_WITH(registry.make("tiresias-dlas-gpu", {{"jump_rounding", "round"}}, 0),
                    Catch::Matchers::Contains("jump_rounding"));
  CHECK(registry.make("tiresias-dlas-gpu", {{"queue_limits_gpu_s", "10,20,30"}}, 0)->name() == "tiresias-dlas-gpu");
}

// The Gittins table of Tiresias' simulator (cal_r_gittins_index, Python 2 rounding) on the samples
// {100, 300, 310, 320, 330} GPU-s with delta = 150, n = 5. For each sample v, a = v - 1,
// i = first sample > a, k = first sample > a + 150 (n - 1 = 4 once a + 150 >= 330):
//   v=100: a=99,  i=0, k=1 (300 > 249): p = 1/5 = 0.2;  E = (100 + 150*4) // 5 = 140;  p*1e6/E = 1428.5714
//   v=300: a=299, i=1, k=4:              p = 3/4 = 0.75; E = (300+310+320 + 150*1) // 4 = 270;  2777.7778
//   v=310: a=309, i=2, k=4:              p = round(2/3, 5) = 0.66667; E = (310+320+150) // 3 = 260; 2564.1154
//   v=320: a=319, i=3, k=4:              p = 0.5; E = (320 + 150) // 2 = 235; 2127.6596
//   v=330: a=329, i=4, k=4:              p = 0 -> 0
// A job's index is the entry of the first sample above its service: service < 100 -> 1428.57,
// 100..299 -> 2777.78, ..., >= 320 -> 0. Jobs are sorted by ascending index (as the simulator does).
// Both cases below give the same JCTs in the simulator (run with this file as yarn-gput1000.csv
// and jobs.py's gittins_delta = 150).
TEST_CASE("tiresias-gittins: ascending Gittins index, gittins-unit wake-ups, waiting jobs ranked by seconds",
          "[tiresias-sim][gittins]") {
  const test::TempDir dir("tiresias-gittins");
  const PolicyParams params{{"samples_csv", dir.write("dist.csv", "duration\n300\n100\n330\n310\n320\n")},
                            {"delta_gpu_s", "150"}};
  // 1 GPU. A: t=0, 400 s; B: t=50, 100 s. Units: the first at 150; after each instant t, unit += t.
  // t=0: A runs (index 1428.57); unit 150. t=50: A (50 s) and B (0) both 1428.57: the stable sort
  // keeps A first, B waits; unit 200. t=200 (a unit): A has 200 GPU-s -> 2777.78 > B's 1428.57:
  // B runs, A is preempted; unit 400. t=300: B completes (JCT 250), A resumes; unit 700.
  // t=500: A completes (JCT 500).
  auto one = test::run_jobs(test::homogeneous_cluster(1, 1), {duration_job("A", 0, 1, 400), duration_job("B", 50, 1, 100)},
                            "tiresias-gittins", {}, params);
  CHECK(record(one, "B").start_s == 200);
  CHECK(record(one, "B").finish_s == 300);
  CHECK(record(one, "A").finish_s == 500);
  CHECK(record(one, "A").preemptions == 1);
  // 2 GPUs. A: t=0, 2 GPUs, 200 s; B: t=60, 1 GPU, 100 s; C: t=100, 2 GPUs, 50 s.
  // t=60: A has 60 s x 2 = 120 GPU-s -> 2777.78; B 1428.57: B runs, A (needs 2) is preempted.
  // t=100: B (40 GPU-s), A waiting (ranked by its 60 s alone: 1428.57), C (0): all equal, [B, A, C].
  // t=160: B completes; A (1428.57) is ahead of C (1428.57) and runs: 300. C: 300 -> 350.
  // (Ranking a waiting A by its 120 GPU-s would put C first: C at 160, A at 350.)
  auto two = test::run_jobs(test::homogeneous_cluster(1, 2),
                            {duration_job("A", 0, 2, 200), duration_job("B", 60, 1, 100), duration_job("C", 100, 2, 50)},
                            "tiresias-gittins", {}, params);
  CHECK(record(two, "B").finish_s == 160);
  CHECK(record(two, "A").finish_s == 300);
  CHECK(record(two, "C").start_s == 300);
  CHECK(record(two, "C").finish_s == 350);
}

TEST_CASE("tiresias-gittins: bad parameters and sample files are input errors naming the file, line or parameter",
          "[tiresias-sim][gittins]") {
  const PolicyRegistry registry = make_default_registry();
  const test::TempDir dir("tiresias-gittins-bad");
  CHECK_THROWS_WITH(registry.make("tiresias-gittins", {{"delta_gpu_s", "0"}}, 0), Catch::Matchers::Contains("delta_gpu_s"));
  CHECK_THROWS_WITH(registry.make("tiresias-gittins", {{"delta_gpu_s", "1.5"}}, 0), Catch::Matchers::Contains("delta_gpu_s"));
  const std::string no_column = dir.write("a.csv", "gpu_time\n100\n");
  CHECK_THROWS_WITH(registry.make("tiresias-gittins", {{"samples_csv", no_column}}, 0),
                    Catch::Matchers::Contains("a.csv:1") && Catch::Matchers::Contains("duration"));
  const std::string bad_row = dir.write("b.csv", "duration\n100\nabc\n");
  CHECK_THROWS_WITH(registry.make("tiresias-gittins", {{"samples_csv", bad_row}}, 0), Catch::Matchers::Contains("b.csv:3"));
  const std::string zero = dir.write("c.csv", "id,duration\n1,0\n");
  CHECK_THROWS_WITH(registry.make("tiresias-gittins", {{"samples_csv", zero}}, 0), Catch::Matchers::Contains("c.csv:2"));
  CHECK_THROWS_AS(registry.make("tiresias-gittins", {{"samples_csv", dir.write("d.csv", "duration\n")}}, 0), InputError);
  CHECK_THROWS_AS(registry.make("tiresias-gittins", {{"samples_csv", (dir.path / "absent.csv").string()}}, 0), InputError);
}
