#include "hetsim/workload/job.hpp"

namespace hetsim {

const char* to_string(WorkUnit unit) {
  switch (unit) {
    case WorkUnit::Iterations: return "iterations";
    case WorkUnit::Epochs: return "epochs";
    case WorkUnit::ReferenceSeconds: return "reference_seconds";
    case WorkUnit::StatisticalProgress: return "statistical_progress";
  }
  return "unknown";
}

}  // namespace hetsim
