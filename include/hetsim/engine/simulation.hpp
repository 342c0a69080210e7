#pragma once
/// The run loop: jumps from event to event and hands each to a handler. Nothing else.
#include <cstdint>

#include "hetsim/engine/event_queue.hpp"

namespace hetsim {

/// Receives events from the run loop. Implemented by the scheduling mechanism.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  /// Handles one event; may schedule more through the Simulation it was given.
  virtual void handle(const Event& event) = 0;
};

/// Clock + event queue + run loop (as in SimGrid and ns-3: a small core, models on top).
class Simulation {
 public:
  /// Current simulated time (the time of the event being handled).
  SimTime now() const { return now_; }
  /// Schedules an event. Throws std::logic_error if `time` is before now (time never goes back).
  std::uint64_t schedule(SimTime time, EventClass cls, std::int64_t target = -1, std::uint64_t tag = 0);
  /// Runs until the queue is empty or stop() is called. Returns the number of events handled.
  std::uint64_t run(EventHandler& handler);
  /// Makes run() return after the current event.
  void stop() { stopped_ = true; }
  /// Events still queued.
  std::size_t pending_events() const { return queue_.size(); }

 private:
  EventQueue queue_;
  SimTime now_;
  bool stopped_ = false;
};

}  // namespace hetsim
