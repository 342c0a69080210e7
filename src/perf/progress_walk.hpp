#pragma once
// The piecewise walks over a progress-dependent rate (private to src/perf/): ThroughputModel's
// integrate_progress and time_to_finish_s and the goodput model's overrides share them, so both
// do the same arithmetic in the same order (the overrides only find the rate faster).
#include <algorithm>
#include <limits>

namespace hetsim::perf_detail {

/// Work done after `seconds` from `done` towards `work`: `rate(done)` (<= 0: no progress) holds
/// until `next(done)`, the next breakpoint, which is hit exactly.
template <class Rate, class Next>
double walk_progress(double work, double done, double seconds, Rate&& rate, Next&& next) {
  while (seconds > 0.0 && done < work) {
    double r = rate(done);
    if (!(r > 0.0)) break;
    double bp = std::min(next(done), work);
    double need = (bp - done) / r;
    if (need <= seconds) {
      done = bp;
      seconds -= need;
    } else {
      done += r * seconds;
      seconds = 0.0;
    }
  }
  return done;
}

/// Seconds from `done` to `work` under the same pieces; +infinity when the rate is 0 on the way.
template <class Rate, class Next>
double walk_to_finish(double work, double done, Rate&& rate, Next&& next) {
  double seconds = 0.0;
  while (done < work) {
    double r = rate(done);
    if (!(r > 0.0)) return std::numeric_limits<double>::infinity();
    double bp = std::min(next(done), work);
    seconds += (bp - done) / r;
    done = bp;
  }
  return seconds;
}

}  // namespace hetsim::perf_detail
