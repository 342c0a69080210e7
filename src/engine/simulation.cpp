#include "hetsim/engine/simulation.hpp"

#include <stdexcept>
#include <string>

namespace hetsim {

std::uint64_t Simulation::schedule(SimTime time, EventClass cls, std::int64_t target, std::uint64_t tag) {
  if (time < now_) {
    throw std::logic_error("event scheduled in the past: t=" + std::to_string(time.us()) +
                           "us < now=" + std::to_string(now_.us()) + "us");
  }
  return queue_.push(time, cls, target, tag);
}

std::uint64_t Simulation::run(EventHandler& handler) {
  std::uint64_t handled = 0;
  stopped_ = false;
  while (!stopped_ && !queue_.empty()) {
    Event e = queue_.pop();
    now_ = e.time;
    handler.handle(e);
    ++handled;
  }
  return handled;
}

}  // namespace hetsim
