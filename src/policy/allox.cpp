// allox: AlloX (Le, Sun, Guo, Huang, Ma, Yuan, "AlloX: Compute Allocation in Hybrid Clusters",
// EuroSys'20) in the form Gavel runs it as a baseline (Narayanan et al., OSDI'20;
// stanford-futuredata/gavel, scheduler/policies/allox.py, AlloXPolicy), re-implemented with
// hetsim's Hungarian matching (include/hetsim/policy/matching.hpp).
//
// Each call:
//  1. Jobs that held a GPU in the previous allocation keep it (x = 1 on that type); their GPUs
//     are taken out. The others are "unallocated".
//  2. The unallocated jobs are sorted oldest first (age descending, arrival order on ties) and cut
//     to the first max(floor(alpha * m), n) of them, m = their number, n = free GPUs. alpha < 1
//     bounds how far down the queue the matching looks (AlloX's fairness knob: the oldest jobs are
//     always considered, so none starves).
//  3. Min-cost bipartite matching of those m jobs to the n * m slots (GPU g, position k = 1..m):
//       cost(i, g, k) = k * p_i(type of g) + d_i,   p_i(t) = remaining steps / throughput on t
//     (throughput 0 counts as 1e-10), d_i = the job's age. Position k = the job runs k-th from
//     the end of that GPU's queue: its processing time delays k jobs (itself included), so the
//     total cost is the sum of completion times (the classic R||sum C_j reduction). d_i is the
//     same for every slot of a row and does not change the optimum; Gavel adds it, so hetsim does.
//  4. On each GPU the job in the highest position (the one that runs first) gets x = 1 on the
//     GPU's type; the others get 0 and wait (the mechanism still lends them GPUs left over in a
//     round, as Gavel does for non-FIFO policies).
// Columns are laid out as Gavel lays them (position-major; within a position the GPUs by type
// name, then index), and the matching is solved on GPU-type classes of identical columns
// (min_weight_full_matching_by_class), which gives the dense matching's answer.
// Differences from Gavel: ties between equal-cost matchings are broken by hetsim's Hungarian, not
// scipy's linear_sum_assignment. The common one: when some GPUs of a type get two jobs, which of
// the type's position-1 jobs waits behind a position-2 job costs the same whichever it is, and
// decides which job gets x = 1 now (docs/EXPERIMENTS.md, "allox against Gavel's simulator").
// Gavel asserts on jobs using more than one GPU; hetsim stops with an input error naming the
// job's trace line.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/policy/matching.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

constexpr double kZeroThroughput = 1e-10;  // Gavel's stand-in for a throughput of 0

void require_single_gpu(const AllocationJob& job) {
  if (job.scale_factor == 1) return;
  const JobSpec* spec = job.spec;
  std::string file = spec && spec->source_file ? *spec->source_file : std::string();
  throw InputError(file, spec ? spec->source_line : 0, "scale factor",
                   fmt::format("allox matches jobs to single GPUs (AlloX, Gavel's AlloXPolicy): job '{}' uses {} GPUs; "
                               "use a trace of 1-GPU jobs or another policy",
                               spec ? spec->id : std::to_string(job.job), job.scale_factor));
}

class AlloxAllocation final : public AllocationPolicy {
 public:
  explicit AlloxAllocation(double alpha) : alpha_(alpha) {}
  std::string name() const override { return "allox"; }
  // X changes only at the mechanism's resets: steady rounds between them may be skipped.
  bool steady_rounds_skippable() const override { return true; }
  bool fixed_type_order() const override { return true; }    // Gavel's name is AlloX_Perf
  bool skip_zero_priority() const override { return false; }  // not a FIFO policy in Gavel

  std::optional<std::string> reject_at_arrival(const JobSpec& spec) const override {
    if (spec.requested_gpus == 1) return std::nullopt;
    return fmt::format("allox matches jobs to single GPUs (AlloX, Gavel's AlloXPolicy) and this job uses {} GPUs",
                       spec.requested_gpus);
  }

  AllocationResult allocate(const AllocationView& view) override {
    for (const AllocationJob& job : view.jobs) require_single_gpu(job);
    std::map<JobIndex, std::size_t> next;  // job -> type it holds after this call
    std::vector<int> free_gpus(view.gpus_per_type.begin(), view.gpus_per_type.end());
    std::vector<std::size_t> waiting;  // rows of the unallocated jobs
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      auto it = held_.find(view.jobs[i].job);
      if (it == held_.end()) {
        waiting.push_back(i);
      } else {
        next[it->first] = it->second;
        --free_gpus[it->second];
      }
    }
    std::stable_sort(waiting.begin(), waiting.end(),
                     [&](std::size_t a, std::size_t b) { return view.jobs[a].age_s > view.jobs[b].age_s; });
    match_waiting(view, waiting, free_gpus, next);
    held_ = std::move(next);

    AllocationResult out;
    out.x = zero_allocation(view);
    for (std::size_t i = 0; i < view.jobs.size(); ++i)
      if (auto it = held_.find(view.jobs[i].job); it != held_.end()) out.x[i][it->second] = 1.0;
    return out;
  }

 private:
  // Steps 2-4 above: matches the waiting rows (oldest first) to the free GPUs and records in
  // `next` the type of each job that comes first on some GPU.
  void match_waiting(const AllocationView& view, std::vector<std::size_t> waiting, const std::vector<int>& free_gpus,
                     std::map<JobIndex, std::size_t>& next) const {
    const std::size_t types = view.gpus_per_type.size();
    std::vector<std::size_t> by_name(types);  // Gavel's worker types are sorted by name
    for (std::size_t t = 0; t < types; ++t) by_name[t] = t;
    std::stable_sort(by_name.begin(), by_name.end(),
                     [&](std::size_t a, std::size_t b) { return view.type_names[a] < view.type_names[b]; });
    std::vector<std::size_t> gpu_type;  // free GPU g -> its type
    for (std::size_t t : by_name)
      for (int g = 0; g < free_gpus[t]; ++g) gpu_type.push_back(t);
    const std::size_t n = gpu_type.size();
    const auto considered = static_cast<std::size_t>(std::floor(alpha_ * static_cast<double>(waiting.size())));
    waiting.resize(std::min(waiting.size(), std::max(considered, n)));
    const std::size_t m = waiting.size();
    if (m == 0 || n == 0) return;

    // Column c = position c / n (0 = runs last), GPU c % n; class = position * types + type.
    std::vector<int> column_class(n * m);
    for (std::size_t c = 0; c < n * m; ++c) column_class[c] = static_cast<int>((c / n) * types + gpu_type[c % n]);
    std::vector<std::vector<double>> class_cost(m, std::vector<double>(m * types));
    for (std::size_t r = 0; r < m; ++r) {
      const AllocationJob& job = view.jobs[waiting[r]];
      for (std::size_t t = 0; t < types; ++t) {
        const double throughput = job.throughput[t] == 0.0 ? kZeroThroughput : job.throughput[t];
        const double p = job.remaining_work / throughput;
        for (std::size_t k = 0; k < m; ++k)
          class_cost[r][k * types + t] = static_cast<double>(k + 1) * p + job.age_s;
      }
    }
    const std::vector<int> column = min_weight_full_matching_by_class(class_cost, column_class);

    std::vector<int> top_row(n, -1);  // per GPU: the matched row in the highest position
    std::vector<std::size_t> top_position(n, 0);
    for (std::size_t r = 0; r < m; ++r) {
      if (column[r] < 0) continue;
      const auto c = static_cast<std::size_t>(column[r]);
      const std::size_t g = c % n, position = c / n;
      if (top_row[g] < 0 || position > top_position[g]) {
        top_row[g] = static_cast<int>(r);
        top_position[g] = position;
      }
    }
    for (std::size_t g = 0; g < n; ++g)
      if (top_row[g] >= 0) next[view.jobs[waiting[static_cast<std::size_t>(top_row[g])]].job] = gpu_type[g];
  }

  double alpha_;
  std::map<JobIndex, std::size_t> held_;  // job -> type of the GPU it got, kept across calls
};

}  // namespace

void register_allox(PolicyRegistry& registry) {
  PolicyInfo info{"allox",
                  "min-cost matching of 1-GPU jobs to (GPU, queue position) slots by remaining processing time, "
                  "round-based time sharing",
                  "AlloX (Le et al., EuroSys'20), as Gavel's AlloX_Perf baseline",
                  {{"alpha", "1",
                    "fraction of the waiting jobs (oldest first, at least as many as free GPUs) the matching considers"}},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    return std::make_unique<AlloxAllocation>(param_double(p, "alpha", 0.0, 1.0));
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
