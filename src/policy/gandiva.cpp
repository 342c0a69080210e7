// gandiva: Gandiva's time slicing with packing and introspection (Xiao et al., "Gandiva:
// Introspective Cluster Scheduling for Deep Learning", OSDI'18, sections 3-4), as Gavel
// re-implements it for its simulator (stanford-futuredata/gavel, scheduler/policies/gandiva.py,
// GandivaPolicy; Narayanan et al., OSDI'20, section 7 uses it as the packing baseline), under
// the round mechanism (`--mechanism gavel`, which runs a scheduled pair on one set of GPUs):
//  - When the active jobs' GPU requests fit in the cluster, every job gets an equal share
//    (no packing): X[i][t] = G_t / (m s_i), the row scaled down to sum <= 1, m = active jobs.
//  - Otherwise (oversubscribed: time slicing), jobs that are not in a kept pair are paired at
//    random (CPython's random.sample of two, seeded with the run seed as Gavel's GandivaPolicy;
//    a draw of two jobs with different scale factors is skipped; at most one draw per unpaired
//    job), the rest stay single, and every combination (pair or single) gets an equal share
//    G_t / (m s) with m = combinations.
//  - Introspection: at every allocation a kept pair whose normalised packed throughput
//    sum_t (r_a[t] / T_a[t] + r_b[t] / T_b[t]) is below 1 is split (Gandiva's "unpack when packing
//    does not pay"); the sum is 0 when a pair rate is 0 on any type. Singles are regrouped at
//    every allocation (Gavel's code drops every single from its kept combinations).
// Simplifications (docs/policies.md names them): rates are the throughput table's, not measured
// online (Gavel's simulator does the same); decisions happen at allocation times (when the set of
// jobs changed, at most every reset interval), not on Gandiva's own per-minute introspection
// clock; no migration for locality, no grow-shrink, no suspend-resume cost beyond the run's
// restart overhead; a random pair the throughput table has no rate for gets no time until the
// next allocation splits it.
#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/py_random.hpp"

namespace hetsim {
namespace {

class Gandiva final : public AllocationPolicy {
 public:
  explicit Gandiva(std::uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "gandiva"; }
  bool packing() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    AllocationResult out;
    const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
    std::map<std::pair<JobIndex, JobIndex>, std::size_t> pair_row;
    for (std::size_t k = 0; k < view.pairs.size(); ++k)
      pair_row[{view.jobs[view.pairs[k].first].job, view.jobs[view.pairs[k].second].job}] = k;
    std::map<JobIndex, std::size_t> row;
    for (std::size_t i = 0; i < n; ++i) row[view.jobs[i].job] = i;
    introspect(view, row, pair_row);
    out.x.assign(n, std::vector<double>(types, 0.0));
    out.pair_x.assign(view.pairs.size(), std::vector<double>(types, 0.0));
    long long requested = 0, available = 0;
    for (const AllocationJob& job : view.jobs) requested += job.scale_factor;
    for (int g : view.gpus_per_type) available += g;
    if (requested <= available) {
      for (std::size_t i = 0; i < n; ++i) out.x[i] = equal_share(view, n, view.jobs[i].scale_factor);
      return out;
    }
    group_at_random(view);
    std::vector<std::pair<JobIndex, JobIndex>> combos;  // (job, partner or -1), each once
    for (const auto& [j, partner] : partner_)
      if (partner < 0 || j < partner) combos.push_back({j, partner});
    for (const auto& [j, partner] : combos) {
      const std::vector<double> share = equal_share(view, combos.size(), view.jobs[row.at(j)].scale_factor);
      if (partner < 0) {
        out.x[row.at(j)] = share;
      } else if (auto k = pair_row.find({j, partner}); k != pair_row.end()) {
        out.pair_x[k->second] = share;
      }
    }
    return out;
  }

 private:
  // Gavel's GandivaPolicy._get_allocation for one combination of scale factor `sf` among `m`.
  static std::vector<double> equal_share(const AllocationView& view, std::size_t m, int sf) {
    std::vector<double> x(view.gpus_per_type.size());
    double sum = 0.0;
    for (std::size_t t = 0; t < x.size(); ++t) {
      x[t] = static_cast<double>(view.gpus_per_type[t]) / static_cast<double>(m) / sf;
      sum += x[t];
    }
    for (double& v : x) v /= std::max(sum, 1.0);
    return x;
  }

  // Keeps the pairs whose jobs are both active and whose packing pays; drops everything else.
  void introspect(const AllocationView& view, const std::map<JobIndex, std::size_t>& row,
                  const std::map<std::pair<JobIndex, JobIndex>, std::size_t>& pair_row) {
    std::map<JobIndex, JobIndex> kept;
    for (const auto& [j, partner] : partner_) {
      if (partner < 0 || !row.count(j) || !row.count(partner)) continue;
      auto k = pair_row.find({std::min(j, partner), std::max(j, partner)});
      if (k == pair_row.end() || normalised_packed(view, view.pairs[k->second]) < 1.0) continue;
      kept[j] = partner;
    }
    partner_ = std::move(kept);
  }

  // Gavel's _get_normalized_throughput: sum over types of both jobs' pair rate / solo rate; 0 as
  // soon as either pair rate is 0 on some type.
  static double normalised_packed(const AllocationView& view, const AllocationPair& pair) {
    double sum = 0.0;
    for (std::size_t t = 0; t < view.gpus_per_type.size(); ++t) {
      const double ra = pair.first_rate[t], rb = pair.second_rate[t];
      if (ra <= 0.0 || rb <= 0.0) return 0.0;
      const double sa = view.jobs[pair.first].throughput[t], sb = view.jobs[pair.second].throughput[t];
      if (sa > 0.0) sum += ra / sa;  // a solo rate of 0 with a pair rate > 0 cannot pass the table check
      if (sb > 0.0) sum += rb / sb;
    }
    return sum;
  }

  // Gavel's random grouping of the jobs not in a kept pair (arrival order), then singles.
  void group_at_random(const AllocationView& view) {
    std::vector<std::size_t> pool;  // rows
    for (std::size_t i = 0; i < view.jobs.size(); ++i)
      if (!partner_.count(view.jobs[i].job)) pool.push_back(i);
    const std::size_t draws = pool.size();
    for (std::size_t d = 0; pool.size() > 1 && d < draws; ++d) {
      const auto [a, b] = sample_two(pool);
      if (view.jobs[a].scale_factor != view.jobs[b].scale_factor) continue;
      pool.erase(std::find(pool.begin(), pool.end(), a));
      pool.erase(std::find(pool.begin(), pool.end(), b));
      partner_[view.jobs[a].job] = view.jobs[b].job;
      partner_[view.jobs[b].job] = view.jobs[a].job;
    }
    for (std::size_t i : pool) partner_[view.jobs[i].job] = -1;
  }

  // CPython 3.11's random.sample(population, 2): the pool method for populations of at most 21,
  // the set method above (random.py, Random.sample).
  std::pair<std::size_t, std::size_t> sample_two(const std::vector<std::size_t>& population) {
    const std::size_t n = population.size();
    if (n <= 21) {
      std::vector<std::size_t> pool = population;
      const auto j0 = static_cast<std::size_t>(rng_.randbelow(n));
      const std::size_t first = pool[j0];
      pool[j0] = pool[n - 1];
      const auto j1 = static_cast<std::size_t>(rng_.randbelow(n - 1));
      return {first, pool[j1]};
    }
    const auto j0 = static_cast<std::size_t>(rng_.randbelow(n));
    std::size_t j1 = static_cast<std::size_t>(rng_.randbelow(n));
    while (j1 == j0) j1 = static_cast<std::size_t>(rng_.randbelow(n));
    return {population[j0], population[j1]};
  }

  PyRandom rng_;
  std::map<JobIndex, JobIndex> partner_;  // Gavel's _assigned_combinations: job -> partner, -1 = single
};

}  // namespace

void register_gandiva(PolicyRegistry& registry) {
  PolicyInfo info{"gandiva",
                  "time slicing when oversubscribed, random job pairs share GPUs, pairs whose packed throughput "
                  "does not pay are split (introspection); needs --mechanism gavel",
                  "Gandiva (Xiao et al., OSDI'18), as Gavel's GandivaPolicy (Narayanan et al., OSDI'20)",
                  {},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams&, std::uint64_t seed) -> std::unique_ptr<AllocationPolicy> {
    return std::make_unique<Gandiva>(seed);
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
