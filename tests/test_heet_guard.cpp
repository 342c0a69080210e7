// heet's tail=guard bookkeeping (issue 19: a round costs what changed): W summed exactly in any
// order, waiting jobs queued by the instant they become starved, and the LPT walk over jobs kept
// longest first, by hand.
#include <catch2/catch.hpp>

#include <limits>

#include "../src/policy/heet_tail.hpp"

using namespace hetsim;

TEST_CASE("heet guard: W's exact sum is the same in any order and rounds each part to a nano-GPU-second") {
  // As doubles (0.1 + 0.2) + 0.3 = 0.6000000000000001 but 0.1 + (0.2 + 0.3) = 0.6.
  REQUIRE((0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3));
  HeetExactGpuSeconds a, b;
  a.add(0.1);
  a.add(0.2);
  a.add(0.3);
  b.add(0.3);
  b.add(0.2);
  b.add(0.1);
  CHECK(a.gpu_s() == 0.6);
  CHECK(b.gpu_s() == 0.6);
  // Removing what was added gives back the rest exactly; 0.4 nano-GPU-seconds round to nothing.
  a.sub(0.1);
  a.add(4e-10);
  CHECK(a.gpu_s() == 0.5);
  // Large parts: 1e15 GPU-s (1e24 nano) and 1.5 GPU-s, then the large one taken away.
  HeetExactGpuSeconds c;
  c.add(1e15);
  c.add(1.5);
  c.sub(1e15);
  CHECK(c.gpu_s() == 1.5);
  c.add(std::numeric_limits<double>::infinity());  // never counted (heet_tail_work_gpu_s gives 0 anyway)
  CHECK(c.gpu_s() == 1.5);
  b.add(c);
  CHECK(b.gpu_s() == 2.1);
}

TEST_CASE("heet guard: a waiting job becomes starved at submit + work done + tail_starve x remaining, and stays") {
  HeetGuardWaiting waiting;
  // j0: submitted at 100 s, 10 s of work done on its request, 50 s to go on 2 GPUs: with
  // tail_starve 1 starved once now - 100 - 10 >= 50, i.e. from 160 s.
  waiting.add({0, 2, 50.0, true}, 10.0, SimTime::from_seconds(100.0), 1.0);
  // j1: submitted at 0, 1,000 s to go on 1 GPU: starved from 1,000 s.
  waiting.add({1, 1, 1000.0, true}, 0.0, SimTime::from_seconds(0.0), 1.0);
  // j2: no type runs it: counts nowhere, never starved.
  waiting.add({2, 4, std::numeric_limits<double>::infinity(), true}, 0.0, SimTime::from_seconds(0.0), 1.0);
  CHECK(waiting.size() == 3);
  CHECK(waiting.work().gpu_s() == 50.0 * 2 + 1000.0);
  CHECK(waiting.starved(SimTime::from_us(159'999'999)).empty());
  const auto jobs_of = [](const HeetLongestFirst& s) {
    std::vector<JobIndex> out;
    for (const HeetTailJob& j : s) out.push_back(j.job);
    return out;
  };
  CHECK(jobs_of(waiting.starved(SimTime::from_seconds(160.0))) == std::vector<JobIndex>{0});
  CHECK(jobs_of(waiting.starved(SimTime::from_seconds(999.0))) == std::vector<JobIndex>{0});
  // Longest remaining first.
  CHECK(jobs_of(waiting.starved(SimTime::from_seconds(1e6))) == std::vector<JobIndex>{1, 0});
  waiting.remove(1);
  waiting.remove(1);  // no longer kept: nothing happens
  CHECK(waiting.size() == 2);
  CHECK(waiting.work().gpu_s() == 100.0);
  CHECK(jobs_of(waiting.starved(SimTime::from_seconds(1e6))) == std::vector<JobIndex>{0});
  // j0 ran and waits again with 40 s done, 20 s to go, tail_starve 3: starved from 100 + 40 + 60 = 200 s
  // (the values it is added with replace the old ones).
  waiting.add({0, 2, 20.0, true}, 40.0, SimTime::from_seconds(100.0), 3.0);
  CHECK(waiting.size() == 2);
  CHECK(waiting.work().gpu_s() == 40.0);
  CHECK(waiting.starved(SimTime::from_us(199'999'999)).empty());
  CHECK(jobs_of(waiting.starved(SimTime::from_seconds(200.0))) == std::vector<JobIndex>{0});
  waiting.clear();
  CHECK(waiting.size() == 0);
  CHECK(waiting.work().gpu_s() == 0.0);
}

TEST_CASE("heet guard: the tail walk over a heap and a longest-first set is the walk over one list") {
  // The by-hand case of test_heet_extensions.cpp ("heet's tail rule"): 10 GPUs, W = 5,150 GPU-s.
  const std::vector<HeetTailJob> jobs{{3, 1, 50.0}, {0, 4, 1000.0}, {2, 1, 100.0}, {1, 2, 500.0}};
  const double w = 1000.0 * 4 + 500.0 * 2 + 100.0 + 50.0;
  const std::vector<HeetTailClaim> all{{0, 4}, {1, 2}, {2, 1}, {3, 1}};
  CHECK(heet_tail_critical(jobs, w, 10) == all);
  CHECK(heet_tail_critical({jobs[0], jobs[3]}, HeetLongestFirst{jobs[1], jobs[2]}, w, 10) == all);
  CHECK(heet_tail_critical({}, HeetLongestFirst(jobs.begin(), jobs.end()), w, 10) == all);
  CHECK(heet_tail_critical({jobs[1]}, HeetLongestFirst{jobs[0], jobs[2], jobs[3]}, w, 10) == all);
  // Six more 1-GPU jobs of 400 s: only j0 is protected (the walk stops at j1), wherever they are.
  HeetLongestFirst crowded{jobs[2], jobs[3]};
  for (JobIndex j = 4; j < 10; ++j) crowded.insert({j, 1, 400.0});
  CHECK(heet_tail_critical({jobs[0], jobs[1]}, crowded, w + 2400.0, 10) == std::vector<HeetTailClaim>{{0, 4}});
  // On 4 GPUs without j0 (W = 1,150): j1 and j2 protected, j3 passed over (no GPU beside).
  CHECK(heet_tail_critical({jobs[3]}, HeetLongestFirst{jobs[2], jobs[0]}, 1150.0, 4) ==
        std::vector<HeetTailClaim>{{1, 2}, {2, 1}});
  // Equal remaining times: the lower job index first, from either side.
  CHECK(heet_tail_critical({{7, 1, 100.0}}, HeetLongestFirst{{5, 1, 100.0}}, 200.0, 3) ==
        std::vector<HeetTailClaim>{{5, 1}, {7, 1}});
}
