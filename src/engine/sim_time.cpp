#include "hetsim/engine/sim_time.hpp"

#include <cmath>

namespace hetsim {

SimTime SimTime::from_seconds(double seconds) {
  double us = std::nearbyint(seconds * 1e6);
  if (!(us < 9.2e18)) return SimTime::max();  // also catches NaN and +inf
  if (us < -9.2e18) return SimTime(std::numeric_limits<std::int64_t>::min());
  return SimTime(static_cast<std::int64_t>(us));
}

}  // namespace hetsim
