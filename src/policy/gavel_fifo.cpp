// Allocation form of FIFO, following Gavel's FIFOPolicy (Narayanan et al., OSDI'20;
// stanford-futuredata/gavel, scheduler/policies/fifo.py), re-implemented:
//  - jobs are served in arrival order; a job keeps the GPU type it was given until it completes
//    (base mode) or the allocation is rebuilt from scratch on every call (perf mode);
//  - a completed job's type is first offered to the head of the queue;
//  - the remaining queue is walked while some type has free GPUs; the walk stops at the first job
//    that fits on no type with free GPUs (strict FIFO).
//  - Perf mode gives each job the type with the highest throughput among those with room.
//  - Base mode reproduces what Gavel's code does, not what its comment says: it draws a random
//    index among the types with room (CPython's generator, so the draws match), but the type it
//    assigns is the last type, by name, of the types that still had free GPUs; the random index
//    only decides which type leaves the free list when the assigned type's free count reaches
//    exactly 0. (The type variable is left over from the loop that built the candidate list.) This
//    is what makes Gavel's 'fifo' time-share most jobs on v100, and hetsim matches it so that its
//    numbers can be compared with Gavel's.
// X is 1 on the job's type, 0 elsewhere.
#include <algorithm>
#include <map>
#include <numeric>

#include "gavel_fifo.hpp"
#include "hetsim/util/py_random.hpp"

namespace hetsim {
namespace {

class GavelFifoAllocation final : public AllocationPolicy {
 public:
  GavelFifoAllocation(bool perf, std::uint64_t seed) : perf_(perf), rng_(seed) {}
  std::string name() const override { return perf_ ? "fifo-perf" : "fifo"; }
  bool fixed_type_order() const override { return perf_; }
  bool skip_zero_priority() const override { return true; }
  // X changes only when the mechanism recomputes it (at a reset): between resets the round's
  // answer is the mechanism's alone, so steady rounds may be skipped.
  bool steady_rounds_skippable() const override { return true; }

  AllocationResult allocate(const AllocationView& view) override {
    const std::size_t types = view.gpus_per_type.size();
    // Working lists are members that keep their memory between calls (X is recomputed thousands
    // of times per run; issue 19: no allocation per call but X's rows).
    std::vector<int>& avail = avail_;
    avail.assign(view.gpus_per_type.begin(), view.gpus_per_type.end());
    // Row of each job: a flat table kept between calls (a map per call was most of this policy's
    // time on the 1,627-job MSR run); reset below for the rows set here.
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      const auto k = static_cast<std::size_t>(view.jobs[i].job);
      if (k >= row_of_.size()) row_of_.resize(k + 1, kNoRow);
      row_of_[k] = i;
    }
    auto row_of = [&](JobIndex j) {
      const auto k = static_cast<std::size_t>(j);
      return k < row_of_.size() ? row_of_[k] : kNoRow;
    };
    if (perf_) allocation_.clear();

    std::vector<std::size_t>& queue = queue_;  // rows, in arrival (job index) order
    queue.clear();
    for (const AllocationJob& a : view.jobs)
      if (!allocation_.count(a.job)) queue.push_back(row_of(a.job));
    // The mechanism lists its jobs in ascending order, so the queue usually is sorted already;
    // checking costs one pass, sorting a sorted queue n log n comparisons each recomputation
    // (issue 19). Jobs are distinct: the sorted order is the same either way.
    auto by_job = [&](std::size_t a, std::size_t b) { return view.jobs[a].job < view.jobs[b].job; };
    if (!std::is_sorted(queue.begin(), queue.end(), by_job)) std::sort(queue.begin(), queue.end(), by_job);
    std::size_t head = 0;  // queue[head] is the front; popped entries are skipped

    // Completed jobs hand their type to the head of the queue; live ones hold their GPUs.
    std::vector<JobIndex>& scheduled = scheduled_;
    scheduled.clear();
    for (const auto& [job, type] : allocation_) scheduled.push_back(job);
    for (JobIndex s : scheduled) {
      std::size_t t = allocation_.at(s);
      if (row_of(s) == kNoRow) {
        if (head < queue.size()) {
          const AllocationJob& h = view.jobs[queue[head]];
          if (h.scale_factor <= avail[t] && h.throughput[t] > 0.0) {
            ++head;
            allocation_[h.job] = t;
            avail[t] -= h.scale_factor;
          }
        }
        allocation_.erase(s);
      } else {
        avail[t] -= view.jobs[row_of(s)].scale_factor;
      }
    }

    // Types with free GPUs, by name (Gavel sorts its worker-type names).
    std::vector<std::size_t>& open = open_;
    open.clear();
    for (std::size_t t = 0; t < types; ++t)
      if (avail[t] > 0) open.push_back(t);
    std::sort(open.begin(), open.end(),
              [&](std::size_t a, std::size_t b) { return view.type_names[a] < view.type_names[b]; });

    while (head < queue.size() && !open.empty()) {
      const AllocationJob& job = view.jobs[queue[head++]];
      std::vector<std::size_t>& candidates = candidates_;
      std::vector<std::size_t>& position = position_;
      candidates.clear();
      position.clear();
      for (std::size_t i = 0; i < open.size(); ++i) {
        if (avail[open[i]] >= job.scale_factor) {
          candidates.push_back(open[i]);
          position.push_back(i);
        }
      }
      if (candidates.empty()) break;
      std::size_t chosen = 0, pick = 0;
      if (perf_) {
        double best = -1.0;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
          if (job.throughput[candidates[i]] > best) {
            best = job.throughput[candidates[i]];
            chosen = candidates[i];
            pick = i;
          }
        }
      } else {
        pick = static_cast<std::size_t>(rng_.randbelow(candidates.size()));
        chosen = open.back();  // Gavel's leftover loop variable (see the top of this file)
      }
      if (job.throughput[chosen] > 0.0) {
        allocation_[job.job] = chosen;
        avail[chosen] -= job.scale_factor;
        if (avail[chosen] == 0) open.erase(open.begin() + static_cast<std::ptrdiff_t>(position[pick]));
      }
    }

    AllocationResult result;
    result.x = zero_allocation(view);
    for (const auto& [job, type] : allocation_)
      if (std::size_t row = row_of(job); row != kNoRow) result.x[row][type] = 1.0;
    for (const AllocationJob& a : view.jobs) row_of_[static_cast<std::size_t>(a.job)] = kNoRow;
    return result;
  }

 private:
  bool perf_;
  PyRandom rng_;
  std::map<JobIndex, std::size_t> allocation_;  // job -> type, kept across calls in base mode
  static constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  std::vector<std::size_t> row_of_;  // [job]: its row in the view, kNoRow between calls
  std::vector<int> avail_;
  std::vector<std::size_t> queue_, open_, candidates_, position_;
  std::vector<JobIndex> scheduled_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> make_gavel_fifo_allocation(bool perf, std::uint64_t seed) {
  return std::make_unique<GavelFifoAllocation>(perf, seed);
}

}  // namespace hetsim
