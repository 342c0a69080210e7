// The engine core: time arithmetic and the documented total order of events.
#include <catch2/catch.hpp>

#include "hetsim/engine/simulation.hpp"

using namespace hetsim;

TEST_CASE("SimTime rounds seconds to the nearest microsecond") {
  CHECK(SimTime::from_seconds(1.5).us() == 1'500'000);
  CHECK(SimTime::from_seconds(0.0000004).us() == 0);
  CHECK(SimTime::from_seconds(0.0000006).us() == 1);
  CHECK(SimTime::from_seconds(1e300) == SimTime::max());
  CHECK((SimTime::from_seconds(2) - SimTime::from_seconds(0.5)).seconds() == 1.5);
}

TEST_CASE("events at one instant run completion < arrival < round tick < schedule pass < end, then FIFO") {
  EventQueue q;
  q.push(SimTime::from_seconds(5), EventClass::End, 0);
  q.push(SimTime::from_seconds(5), EventClass::SchedulePass, 1);
  q.push(SimTime::from_seconds(5), EventClass::RoundTick, 2);
  q.push(SimTime::from_seconds(5), EventClass::Arrival, 3);
  q.push(SimTime::from_seconds(5), EventClass::Arrival, 4);
  q.push(SimTime::from_seconds(5), EventClass::Completion, 5);
  q.push(SimTime::from_seconds(4), EventClass::End, 6);
  std::vector<std::int64_t> order;
  while (!q.empty()) order.push_back(q.pop().target);
  CHECK(order == std::vector<std::int64_t>{6, 5, 3, 4, 2, 1, 0});
}

namespace {
struct Recorder : EventHandler {
  Simulation* sim = nullptr;
  std::vector<std::pair<double, std::int64_t>> seen;
  void handle(const Event& e) override {
    seen.emplace_back(sim->now().seconds(), e.target);
    if (e.target == 1) sim->schedule(sim->now() + SimTime::from_seconds(10), EventClass::Arrival, 2);
  }
};
}  // namespace

TEST_CASE("the run loop jumps from event to event and refuses events in the past") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  sim.schedule(SimTime::from_seconds(3), EventClass::Arrival, 1);
  sim.schedule(SimTime::from_seconds(20), EventClass::Arrival, 3);
  CHECK(sim.run(r) == 3);
  CHECK(r.seen == std::vector<std::pair<double, std::int64_t>>{{3.0, 1}, {13.0, 2}, {20.0, 3}});
  CHECK_THROWS_AS(sim.schedule(SimTime::from_seconds(1), EventClass::Arrival), std::logic_error);
}
