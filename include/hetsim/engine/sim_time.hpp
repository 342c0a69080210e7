#pragma once
/// Simulated time: integer microseconds, so event order and outputs never depend on floating-point
/// rounding (two runs on two machines give byte-identical results).
#include <compare>
#include <cstdint>
#include <limits>

namespace hetsim {

/// Longest simulated span hetsim accepts, in seconds (about 31,700 years): inputs beyond it are
/// rejected as errors, and a job that would finish after it is reported unfinished, so a run never
/// reaches the edge of the int64 microsecond range.
inline constexpr double kMaxSimSeconds = 1e12;

/// A point or span of simulated time in integer microseconds. Value type; ordering is total.
class SimTime {
 public:
  constexpr SimTime() = default;
  /// Wraps a raw microsecond count.
  static constexpr SimTime from_us(std::int64_t us) { return SimTime(us); }
  /// Rounds seconds to the nearest microsecond. Seconds must be finite and fit in int64 µs
  /// (about 292,000 years); larger values saturate at SimTime::max().
  static SimTime from_seconds(double seconds);
  /// The latest representable time; used as "never".
  static constexpr SimTime max() { return SimTime(std::numeric_limits<std::int64_t>::max()); }

  /// Microseconds since the start of the simulation.
  constexpr std::int64_t us() const { return us_; }
  /// Seconds as a double (exact for times below 2^53 µs, about 285 years).
  constexpr double seconds() const { return static_cast<double>(us_) / 1e6; }

  constexpr auto operator<=>(const SimTime&) const = default;
  /// Saturates at SimTime::max() (never overflows), so "never" plus anything stays "never".
  constexpr SimTime operator+(SimTime o) const {
    std::int64_t out = 0;
    if (__builtin_add_overflow(us_, o.us_, &out)) return o.us_ > 0 ? max() : SimTime(std::numeric_limits<std::int64_t>::min());
    return SimTime(out);
  }
  constexpr SimTime operator-(SimTime o) const { return SimTime(us_ - o.us_); }
  constexpr SimTime& operator+=(SimTime o) { *this = *this + o; return *this; }

 private:
  constexpr explicit SimTime(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

}  // namespace hetsim
