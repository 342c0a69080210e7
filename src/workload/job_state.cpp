#include "hetsim/workload/job_state.hpp"

namespace hetsim {

const char* to_string(JobStatus status) {
  switch (status) {
    case JobStatus::NotArrived: return "not_arrived";
    case JobStatus::Pending: return "pending";
    case JobStatus::Running: return "running";
    case JobStatus::Completed: return "completed";
    case JobStatus::Rejected: return "rejected";
    case JobStatus::Unfinished: return "unfinished";
  }
  return "unknown";
}

}  // namespace hetsim
