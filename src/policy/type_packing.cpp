// Exact multiple-choice knapsack over GPU types by dynamic programming (see type_packing.hpp).
#include "type_packing.hpp"

#include "hetsim/policy/lp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hetsim {
namespace {

// An item's jobs as the search sees them: the options still open, each with its index in the item.
struct Job {
  std::size_t item = 0;
  long long count = 0;
  std::vector<PackingOption> options;
  std::vector<std::size_t> index;  // per option, its position in items[item].options
};

// A job's best price-adjusted gain (gain - price * GPUs), at least 0 (left out); `skip` excludes
// one type (none when >= the number of types).
double best_adjusted(const Job& job, const std::vector<double>& price, std::size_t skip) {
  double best = 0.0;
  for (const PackingOption& o : job.options)
    if (o.type != skip) best = std::max(best, o.gain - price[o.type] * o.gpus);
  return best;
}

// GPU prices that minimise the Lagrangian relaxation of the capacity rows, L(price) = sum_i count_i
// * best_adjusted_i + sum_t price_t * capacity_t: the duals of the capacity rows in the LP
// relaxation, so L(price) is the LP bound. Any prices >= 0 give a valid bound; these the best one.
// Solved as the relaxation's dual: minimise sum_t C_t p_t + sum_i n_i z_i with z_i + w_o p_t >= g_o
// per option o of job i, p, z >= 0. Empty when the solver fails.
std::vector<double> gpu_prices(const std::vector<Job>& jobs, const std::vector<long long>& capacity) {
  LinearProgram lp(LinearProgram::Sense::Minimize);
  std::vector<int> price_var;
  for (long long c : capacity) price_var.push_back(lp.add_variable(0.0, LinearProgram::kInf, static_cast<double>(c)));
  for (const Job& job : jobs) {
    const int z = lp.add_variable(0.0, LinearProgram::kInf, static_cast<double>(job.count));
    for (const PackingOption& o : job.options)
      lp.add_constraint({{z, 1.0}, {price_var[o.type], static_cast<double>(o.gpus)}}, o.gain, LinearProgram::kInf);
  }
  const LpResult r = lp.solve();
  if (r.status != LpResult::Status::Optimal) return {};
  std::vector<double> price;
  for (int v : price_var) price.push_back(std::max(r.x[static_cast<std::size_t>(v)], 0.0));
  return price;
}

// Reduced-cost fixing against `at_least` at GPU prices `price`: keeps per job only the options
// (and leaving it out) whose loss against its best price-adjusted choice is within the gap; a job
// with one choice left is fixed (recorded in `packing`, its GPUs taken from `capacity`). False when
// the fixed jobs do not fit: `at_least` was above the optimum.
bool fix_by_prices(std::vector<Job>& jobs, std::vector<long long>& capacity, const std::vector<double>& price,
                   double at_least, Packing& packing) {
  double bound = 0.0;
  for (std::size_t t = 0; t < capacity.size(); ++t) bound += price[t] * static_cast<double>(capacity[t]);
  for (const Job& job : jobs) bound += static_cast<double>(job.count) * best_adjusted(job, price, capacity.size());
  const double gap = std::max(bound - at_least, 0.0) + 1e-9 * (1.0 + std::abs(bound));
  std::vector<Job> open;
  for (Job& job : jobs) {
    const double best = best_adjusted(job, price, capacity.size());
    Job kept{job.item, job.count, {}, {}};
    for (std::size_t k = 0; k < job.options.size(); ++k) {
      const PackingOption& o = job.options[k];
      if (best - (o.gain - price[o.type] * o.gpus) > gap) continue;
      kept.options.push_back(o);
      kept.index.push_back(job.index[k]);
    }
    if (best > gap && kept.options.size() == 1) {  // must run, and only one way is left
      const PackingOption& o = kept.options[0];
      if (job.count > capacity[o.type] / o.gpus) return false;
      capacity[o.type] -= job.count * o.gpus;
      packing.gain += static_cast<double>(job.count) * o.gain;
      packing.taken[job.item][kept.index[0]] += job.count;
    } else if (!kept.options.empty()) {
      open.push_back(std::move(kept));
    }
  }
  jobs = std::move(open);
  return true;
}

// How many of a job's units can run at once: no more than fill every type with its smallest option.
long long units_that_fit(const Job& job, const std::vector<long long>& cap) {
  std::vector<long long> smallest(cap.size(), 0);
  for (const PackingOption& o : job.options)
    if (o.gpus <= cap[o.type] && (smallest[o.type] == 0 || o.gpus < smallest[o.type])) smallest[o.type] = o.gpus;
  long long fit = 0;
  for (std::size_t t = 0; t < cap.size(); ++t)
    if (smallest[t] > 0) fit += cap[t] / smallest[t];
  return std::min(job.count, fit);
}

// The GPUs in use per type of a state, twice: packed in bit fields (to test whether an option
// fits) and as a dense index (to merge states of equal use).
struct StateCoding {
  std::vector<unsigned> shift;      // per type, its bit field
  std::vector<std::uint64_t> mask;  // per type, the field's mask after shifting
  std::vector<std::uint64_t> stride;  // per type, its step in the dense index
  std::size_t cells = 1;
  bool make(const std::vector<long long>& capacity, std::size_t max_cells) {
    unsigned bits = 0;
    for (long long c : capacity) {
      unsigned width = 1;
      while (width < 62 && (std::uint64_t{1} << width) <= static_cast<std::uint64_t>(c)) ++width;
      if (bits + width > 64) return false;
      shift.push_back(bits);
      mask.push_back((width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1));
      bits += width;
      stride.push_back(cells);
      if (cells > max_cells / (static_cast<std::size_t>(c) + 1)) return false;
      cells *= static_cast<std::size_t>(c) + 1;
    }
    return true;
  }
};

// One state of the search: the GPUs in use, the best gain reaching it, and the price of its free
// GPUs (sum_t price_t * free GPUs of t).
struct State {
  std::uint64_t used = 0;
  std::uint32_t cell = 0;
  std::uint32_t from = 0;  // its index in the history (to read the packing back)
  double gain = 0.0;
  double room = 0.0;
};

// How each state of a unit was reached: the previous unit's state and the choice (0: left out;
// k + 1: option k).
struct Step {
  std::uint32_t parent = 0;
  std::uint32_t choice = 0;
};

// Per job unit, the states that can still reach `target`: a state's gain plus the Lagrangian bound
// of what is left (the later units' best price-adjusted gains plus its room) must reach it. Units
// in job order; states of equal GPU use keep the best gain, the first considered among equals.
// Adds the best packing to `packing`; false past `limits`.
bool search_states(const std::vector<Job>& jobs, const std::vector<long long>& capacity, const std::vector<double>& price,
                   double target, const PackingLimits& limits, Packing& packing) {
  const std::size_t types = capacity.size();
  StateCoding code;
  if (!code.make(capacity, limits.max_cells)) return false;
  std::vector<std::size_t> unit_job;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (long long u = units_that_fit(jobs[i], capacity); u > 0; --u) unit_job.push_back(i);
  std::vector<double> after(unit_job.size() + 1, 0.0);  // bound on the gain of units k.. at `price`
  for (std::size_t k = unit_job.size(); k-- > 0;) after[k] = after[k + 1] + best_adjusted(jobs[unit_job[k]], price, types);
  double room = 0.0;
  for (std::size_t t = 0; t < types; ++t) room += price[t] * static_cast<double>(capacity[t]);
  const double tolerance = 1e-9 * (1.0 + std::abs(target));
  constexpr std::uint32_t kFree = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot(code.cells, kFree);  // per dense index, its state in `next`
  std::vector<State> now{State{0, 0, 0, 0.0, room}}, next;
  std::vector<std::vector<Step>> history;
  std::size_t kept = 1;
  for (std::size_t k = 0; k < unit_job.size(); ++k) {
    const Job& job = jobs[unit_job[k]];
    next.clear();
    std::vector<Step>& steps = history.emplace_back();
    auto consider = [&](const State& c, std::uint32_t parent, std::uint32_t choice) {
      if (c.gain + c.room + after[k + 1] < target - tolerance) return;
      std::uint32_t& at = slot[c.cell];
      if (at == kFree) {
        at = static_cast<std::uint32_t>(next.size());
        next.push_back(c);
        next.back().from = at;
        steps.push_back({parent, choice});
      } else if (c.gain > next[at].gain) {
        next[at].gain = c.gain;
        steps[at] = {parent, choice};
      }
    };
    for (const State& s : now) {
      consider(s, s.from, 0);
      for (std::size_t o = 0; o < job.options.size(); ++o) {
        const PackingOption& opt = job.options[o];
        const auto gpus = static_cast<std::uint64_t>(opt.gpus);
        if (((s.used >> code.shift[opt.type]) & code.mask[opt.type]) + gpus > static_cast<std::uint64_t>(capacity[opt.type]))
          continue;
        consider({s.used + (gpus << code.shift[opt.type]), static_cast<std::uint32_t>(s.cell + gpus * code.stride[opt.type]),
                  0, s.gain + opt.gain, s.room - price[opt.type] * opt.gpus},
                 s.from, static_cast<std::uint32_t>(o + 1));
      }
    }
    for (const State& s : next) slot[s.cell] = kFree;
    kept += next.size();
    if (next.empty() || next.size() > limits.max_states || kept > limits.max_kept_states) return false;
    now.swap(next);
  }
  const auto best = std::max_element(now.begin(), now.end(), [](const State& a, const State& b) { return a.gain < b.gain; });
  packing.gain += best->gain;
  std::uint32_t at = best->from;
  for (std::size_t k = history.size(); k-- > 0;) {
    const Step& step = history[k][at];
    if (step.choice > 0) {
      const Job& job = jobs[unit_job[k]];
      ++packing.taken[job.item][job.index[step.choice - 1]];
    }
    at = step.parent;
  }
  return true;
}

}  // namespace

std::optional<Packing> best_type_packing(const std::vector<long long>& capacity, const std::vector<PackingItem>& items,
                                         std::optional<double> at_least, const PackingLimits& limits) {
  for (long long c : capacity)
    if (c < 0) return std::nullopt;
  Packing packing;
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const PackingItem& item = items[i];
    if (item.count < 0) return std::nullopt;
    packing.taken.emplace_back(item.options.size(), 0);
    Job job{i, item.count, {}, {}};
    for (std::size_t k = 0; k < item.options.size(); ++k) {
      const PackingOption& o = item.options[k];
      if (o.type >= capacity.size() || o.gpus < 1 || !std::isfinite(o.gain)) return std::nullopt;
      if (o.gain <= 0.0 || o.gpus > capacity[o.type]) continue;  // never worth it, or never fits
      job.options.push_back(o);
      job.index.push_back(k);
    }
    if (job.count > 0 && !job.options.empty()) jobs.push_back(std::move(job));
  }
  std::vector<long long> left = capacity;
  const std::vector<double> price = gpu_prices(jobs, left);
  if (price.size() != left.size()) return std::nullopt;
  if (at_least && !fix_by_prices(jobs, left, price, *at_least, packing)) return std::nullopt;
  const double target = at_least ? *at_least - packing.gain : -std::numeric_limits<double>::infinity();
  if (!search_states(jobs, left, price, target, limits, packing)) return std::nullopt;
  if (at_least && packing.gain < *at_least - 1e-9 * (1.0 + std::abs(*at_least))) return std::nullopt;
  return packing;
}

}  // namespace hetsim
