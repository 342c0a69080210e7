#include "hetsim/metrics/job_event.hpp"

namespace hetsim {

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::None: return "";
    case StopReason::Preempted: return "preempted";
    case StopReason::Moved: return "moved";
    case StopReason::Resized: return "resized";
    case StopReason::Horizon: return "horizon";
    case StopReason::RunEnded: return "run ended";
  }
  return "";
}

}  // namespace hetsim
