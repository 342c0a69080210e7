#include "hetsim/engine/event_queue.hpp"

namespace hetsim {

std::uint64_t EventQueue::push(SimTime time, EventClass cls, std::int64_t target, std::uint64_t tag) {
  Event e{time, cls, next_seq_++, target, tag};
  heap_.push(e);
  return e.seq;
}

Event EventQueue::pop() {
  Event e = heap_.top();
  heap_.pop();
  return e;
}

}  // namespace hetsim
