// JobIndexSet, the JobTable's pending and running sets (a two-level bitmap): hand-checked members
// across the 64-index word and 4,096-index summary boundaries, and a long mixed sequence of
// inserts and erases compared with std::set after every step.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>
#include <vector>

#include "hetsim/util/random.hpp"
#include "hetsim/workload/job_index_set.hpp"

using namespace hetsim;

namespace {

std::vector<JobIndex> members(const JobIndexSet& s) { return {s.begin(), s.end()}; }

std::vector<JobIndex> members_backwards(const JobIndexSet& s) {
  std::vector<JobIndex> out;
  for (auto it = s.end(); it != s.begin();) out.push_back(*--it);
  return out;
}

}  // namespace

TEST_CASE("JobIndexSet keeps indices in ascending order across word and summary boundaries") {
  JobIndexSet s(10000);
  CHECK(s.empty());
  CHECK(s.begin() == s.end());
  CHECK(members_backwards(s).empty());
  for (JobIndex j : {4096, 63, 0, 9999, 64, 4095, 8191}) CHECK(s.insert(j));
  CHECK_FALSE(s.insert(64));  // already there
  CHECK(s.size() == 7);
  CHECK(members(s) == std::vector<JobIndex>{0, 63, 64, 4095, 4096, 8191, 9999});
  CHECK(members_backwards(s) == std::vector<JobIndex>{9999, 8191, 4096, 4095, 64, 63, 0});
  CHECK(s.back() == 9999);
  CHECK(s.count(4095) == 1);
  CHECK(s.contains(8191));
  CHECK_FALSE(s.contains(8190));
  CHECK_FALSE(s.contains(-1));
  CHECK_FALSE(s.contains(1'000'000));  // beyond the capacity: simply absent

  CHECK(s.erase(9999) == 1);
  CHECK(s.erase(9999) == 0);
  CHECK(s.erase(4096) == 1);
  CHECK(s.erase(-5) == 0);
  CHECK(s.back() == 8191);
  CHECK(members(s) == std::vector<JobIndex>{0, 63, 64, 4095, 8191});
  CHECK(*std::next(s.begin(), 3) == 4095);

  // An index past the capacity grows the set.
  CHECK(s.insert(20000));
  CHECK(s.back() == 20000);
  CHECK(members(s) == std::vector<JobIndex>{0, 63, 64, 4095, 8191, 20000});
  s.clear();
  CHECK(s.empty());
  CHECK(members(s).empty());
}

TEST_CASE("JobIndexSet agrees with std::set over a long mix of inserts and erases") {
  // Members drawn from a few dense clusters and a sparse tail, so words and summary words go
  // empty and refill many times.
  constexpr JobIndex kCapacity = 3 * 4096 + 77;
  JobIndexSet s(kCapacity);
  std::set<JobIndex> ref;
  std::mt19937_64 rng(11);
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * uniform01(rng); };
  for (int step = 0; step < 20000; ++step) {
    const double u = uniform(0.0, 1.0);
    JobIndex j = u < 0.45 ? static_cast<JobIndex>(uniform(0.0, 130.0))
                 : u < 0.9 ? 4000 + static_cast<JobIndex>(uniform(0.0, 200.0))
                           : static_cast<JobIndex>(uniform(0.0, static_cast<double>(kCapacity)));
    j = std::min(j, kCapacity - 1);
    if (uniform(0.0, 1.0) < 0.5) {
      REQUIRE(s.insert(j) == ref.insert(j).second);
    } else {
      REQUIRE(s.erase(j) == ref.erase(j));
    }
    REQUIRE(s.size() == ref.size());
    if (step % 97 == 0) {
      REQUIRE(members(s) == std::vector<JobIndex>(ref.begin(), ref.end()));
      REQUIRE(members_backwards(s) == std::vector<JobIndex>(ref.rbegin(), ref.rend()));
      if (!ref.empty()) REQUIRE(s.back() == *ref.rbegin());
    }
  }
  REQUIRE(members(s) == std::vector<JobIndex>(ref.begin(), ref.end()));
}
