#pragma once
// Looking up jobs of a parsed workload in reader tests.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "hetsim/workload/job.hpp"

namespace hetsim::test {

/// The job with this id (fails the test when the workload lacks it).
inline const JobSpec& job_with_id(const Workload& w, const std::string& id) {
  auto it = std::find_if(w.jobs.begin(), w.jobs.end(), [&](const JobSpec& j) { return j.id == id; });
  REQUIRE(it != w.jobs.end());
  return *it;
}

}  // namespace hetsim::test
