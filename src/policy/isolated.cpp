// isolated: every active job gets an equal 1/N share of the cluster, Gavel's IsolatedPolicy
// (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
// Workloads", OSDI'20; stanford-futuredata/gavel, scheduler/policies/isolated.py), re-implemented.
// With N active jobs, G_t GPUs of type t and scale factor s_i:
//   x[i][t] = (G_t / N) / s_i,  then each row divided by max(1, sum_t x[i][t]),
// so sum_i s_i x[i][t] = G_t when no row is scaled down, and no job is asked for more than all of
// its time. As in Gavel's code the row sum runs over every type, including types where the job has
// zero throughput (Gavel keeps those entries; hetsim's mechanism never schedules a job there, so
// they are zeroed after the normalisation, which changes nothing else). This is where the policy
// differs from isolated_allocation() (allocation.cpp, the solver-failure fallback and gavel-ftf's
// reference), which leaves unusable types out of the row sum.
// Gavel's scheduler treats it as heterogeneity-agnostic (its name has no "Perf"): the GPU-type
// order is shuffled every round; and not as FIFO: leftover GPUs go to zero-priority jobs too.
// The arithmetic follows Gavel's order (G_t / N first, then / s_i; the row sum left to right) so
// that X, and therefore the mechanism's priorities and their ties, are bit-identical to Gavel's.
#include "hetsim/policy/builtin.hpp"

namespace hetsim {
namespace {

class IsolatedAllocationPolicy final : public AllocationPolicy {
 public:
  std::string name() const override { return "isolated"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }
  bool fixed_type_order() const override { return false; }
  bool skip_zero_priority() const override { return false; }

  AllocationResult allocate(const AllocationView& view) override {
    const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
    AllocationResult out;
    out.x.assign(n, std::vector<double>(types, 0.0));
    for (std::size_t i = 0; i < n; ++i) {
      const AllocationJob& job = view.jobs[i];
      std::vector<double>& row = out.x[i];
      double row_sum = 0.0;
      for (std::size_t t = 0; t < types; ++t) {
        row[t] = static_cast<double>(view.gpus_per_type[t]) / static_cast<double>(n) /
                 static_cast<double>(job.scale_factor);
        row_sum += row[t];
      }
      const double divisor = row_sum > 1.0 ? row_sum : 1.0;
      for (std::size_t t = 0; t < types; ++t) row[t] = job.throughput[t] > 0.0 ? row[t] / divisor : 0.0;
    }
    return out;
  }
};

}  // namespace

void register_isolated(PolicyRegistry& registry) {
  PolicyInfo info{"isolated",
                  "equal share: each of the N active jobs gets 1/N of every GPU type, round-based time sharing",
                  "Gavel Isolated (Narayanan et al., OSDI'20)",
                  {},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams&, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    return std::make_unique<IsolatedAllocationPolicy>();
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
