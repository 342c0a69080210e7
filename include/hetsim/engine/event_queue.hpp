#pragma once
/// The event queue and its total order. The engine core knows nothing of GPUs or jobs: an event is a
/// time, a priority class, a sequence number and two opaque integers for whoever scheduled it.
///
/// Order of events (a strict total order, so a run never depends on addresses or hash order):
///   1. earlier time first;
///   2. at one instant, by priority class: Completion < Arrival < RoundTick < SchedulePass < End.
///      Completions go first so the GPUs they free are visible to jobs arriving at that instant;
///      arrivals before round ticks so a job arriving exactly on a round boundary is considered in
///      that round; the scheduling pass after all of these sees the whole instant at once; End last
///      so work finishing exactly at the horizon still counts as finished;
///   3. then by insertion sequence number (first scheduled, first served), which is what makes two
///      jobs arriving at the same instant keep their trace order.
#include <cstdint>
#include <queue>
#include <vector>

#include "hetsim/engine/sim_time.hpp"

namespace hetsim {

/// Priority class of an event at one instant; lower values run first (see the file comment).
enum class EventClass : std::uint8_t {
  Completion = 0,
  Arrival = 1,
  RoundTick = 2,
  SchedulePass = 3,
  End = 4,
};

/// One scheduled event. `target` and `tag` are opaque to the engine (the scheduler stores a job
/// index and a generation number there, so a stale completion can be recognised and skipped).
struct Event {
  SimTime time;
  EventClass cls = EventClass::End;
  std::uint64_t seq = 0;
  std::int64_t target = -1;
  std::uint64_t tag = 0;
};

/// True when `a` must run before `b` (time, then class, then sequence number).
constexpr bool runs_before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.cls != b.cls) return a.cls < b.cls;
  return a.seq < b.seq;
}

/// Min-queue of events in the order above. Sequence numbers are assigned on push.
class EventQueue {
 public:
  /// Schedules an event; returns its sequence number.
  std::uint64_t push(SimTime time, EventClass cls, std::int64_t target = -1, std::uint64_t tag = 0);
  /// True when no event is left.
  bool empty() const { return heap_.empty(); }
  /// Number of queued events (stale ones included).
  std::size_t size() const { return heap_.size(); }
  /// The next event. Precondition: !empty().
  const Event& top() const { return heap_.top(); }
  /// Removes and returns the next event. Precondition: !empty().
  Event pop();

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return runs_before(b, a); }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace hetsim
