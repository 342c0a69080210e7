// The exact packing search behind sia's table proof (src/policy/type_packing.hpp): hand-solved
// cases, a brute-force cross-check on small random instances, and its refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../src/policy/type_packing.hpp"

using namespace hetsim;

namespace {

// Every assignment of every job unit to an option or to nothing; the best total gain that fits.
double brute_force(const std::vector<long long>& capacity, const std::vector<PackingItem>& items) {
  std::vector<const PackingItem*> units;
  for (const PackingItem& item : items)
    for (long long c = 0; c < item.count; ++c) units.push_back(&item);
  double best = 0.0;
  std::vector<long long> used(capacity.size(), 0);
  auto walk = [&](auto&& self, std::size_t u, double gain) -> void {
    if (u == units.size()) {
      best = std::max(best, gain);
      return;
    }
    self(self, u + 1, gain);
    for (const PackingOption& o : units[u]->options) {
      if (used[o.type] + o.gpus > capacity[o.type]) continue;
      used[o.type] += o.gpus;
      self(self, u + 1, gain + o.gain);
      used[o.type] -= o.gpus;
    }
  };
  walk(walk, 0, 0.0);
  return best;
}

// The packing read back fits, takes no job twice, and adds up to its gain.
void check_packing(const Packing& p, const std::vector<long long>& capacity, const std::vector<PackingItem>& items) {
  std::vector<long long> used(capacity.size(), 0);
  double gain = 0.0;
  REQUIRE(p.taken.size() == items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    long long units = 0;
    for (std::size_t k = 0; k < items[i].options.size(); ++k) {
      const PackingOption& o = items[i].options[k];
      units += p.taken[i][k];
      used[o.type] += p.taken[i][k] * o.gpus;
      gain += static_cast<double>(p.taken[i][k]) * o.gain;
    }
    CHECK(units <= items[i].count);
  }
  for (std::size_t t = 0; t < capacity.size(); ++t) CHECK(used[t] <= capacity[t]);
  CHECK(gain == Approx(p.gain).margin(1e-9));
}

}  // namespace

TEST_CASE("type packing, hand-solved: the job that gains most on the scarce type gets it") {
  // Type 0 has 2 GPUs, type 1 one. A: 3 on type 0 (1 GPU) or 5 on type 1; B: 4 on type 0 (2 GPUs)
  // or 4 on type 1; C: 1 on type 1. A on type 1 and B on type 0 give 9; B on 1 and A on 0 give 7.
  const std::vector<long long> capacity{2, 1};
  const std::vector<PackingItem> items{{1, {{0, 1, 3.0}, {1, 1, 5.0}}}, {1, {{0, 2, 4.0}, {1, 1, 4.0}}}, {1, {{1, 1, 1.0}}}};
  for (std::optional<double> at_least : {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{9.0}}) {
    const std::optional<Packing> p = best_type_packing(capacity, items, at_least);
    REQUIRE(p);
    CHECK(p->gain == Approx(9.0));
    CHECK(p->taken == std::vector<std::vector<long long>>{{0, 1}, {1, 0}, {0}});
  }
  CHECK_FALSE(best_type_packing(capacity, items, 9.01));  // above the optimum: caught
}

TEST_CASE("type packing: a group's jobs share one item, as many as fit") {
  // Three identical jobs worth 1.5 each on 2 of 5 GPUs: two fit.
  const std::optional<Packing> p = best_type_packing({5}, {{3, {{0, 2, 1.5}}}}, 1.5);
  REQUIRE(p);
  CHECK(p->gain == Approx(3.0));
  CHECK(p->taken[0][0] == 2);
  // Options that never pay or never fit are never taken.
  const std::optional<Packing> q = best_type_packing({1, 4}, {{2, {{0, 2, 9.0}, {1, 1, -1.0}, {1, 1, 0.5}}}});
  REQUIRE(q);
  CHECK(q->gain == Approx(1.0));
  CHECK(q->taken[0] == std::vector<long long>{0, 0, 2});
}

TEST_CASE("type packing matches brute force on 300 random small instances, with and without a known packing") {
  std::uint64_t state = 11;
  auto draw = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<long long>((state >> 33) % n);
  };
  for (int instance = 0; instance < 300; ++instance) {
    const std::size_t types = 1 + static_cast<std::size_t>(draw(3));
    std::vector<long long> capacity(types);
    for (long long& c : capacity) c = draw(7);
    std::vector<PackingItem> items(1 + static_cast<std::size_t>(draw(5)));
    for (PackingItem& item : items) {
      item.count = 1 + draw(2);
      for (long long k = 1 + draw(3); k > 0; --k)
        item.options.push_back({static_cast<std::size_t>(draw(static_cast<std::uint64_t>(types))),
                                static_cast<int>(1 + draw(4)), static_cast<double>(draw(150) - 20) / 100.0});
    }
    const double truth = brute_force(capacity, items);
    INFO("instance " << instance);
    for (std::optional<double> at_least : {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{truth}}) {
      const std::optional<Packing> p = best_type_packing(capacity, items, at_least);
      REQUIRE(p);
      CHECK(p->gain == Approx(truth).margin(1e-9));
      check_packing(*p, capacity, items);
    }
  }
}

TEST_CASE("type packing refuses bad input and work past its limits") {
  const std::vector<PackingItem> one{{1, {{0, 1, 1.0}}}};
  CHECK_FALSE(best_type_packing({-1}, one));
  CHECK_FALSE(best_type_packing({2}, {{1, {{1, 1, 1.0}}}}));  // type out of range
  CHECK_FALSE(best_type_packing({2}, {{1, {{0, 0, 1.0}}}}));  // no GPUs
  CHECK_FALSE(best_type_packing({2}, {{1, {{0, 1, std::numeric_limits<double>::quiet_NaN()}}}}));
  CHECK_FALSE(best_type_packing({2}, {{-1, {{0, 1, 1.0}}}}));
  PackingLimits small;
  small.max_cells = 100;
  CHECK_FALSE(best_type_packing({10, 10}, one, std::nullopt, small));  // 121 possible GPU uses
  CHECK(best_type_packing({9, 9}, one, std::nullopt, small));          // 100
  // Without a known packing nothing is pruned: 12 jobs that each fit anywhere reach many states.
  std::vector<PackingItem> many(12, PackingItem{1, {{0, 1, 1.0}, {1, 2, 1.5}}});
  small.max_cells = 1 << 20;
  small.max_states = 20;
  CHECK_FALSE(best_type_packing({12, 24}, many, std::nullopt, small));
  const std::optional<Packing> pruned = best_type_packing({12, 24}, many, 18.0, small);
  REQUIRE(pruned);  // knowing 18 (all on type 1, the optimum), the bound keeps few states
  CHECK(pruned->gain == Approx(18.0));
}
