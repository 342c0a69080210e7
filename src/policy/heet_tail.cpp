// Tail protection of heet (heet_tail.hpp): which active jobs decide the makespan unless they run
// on their requested GPUs now (the LPT / critical-path rule; Graham 1969). Ours.
#include "heet_tail.hpp"

#include <algorithm>
#include <cmath>

namespace hetsim {

std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> jobs, int total_gpus) {
  double work_gpu_s = 0.0;  // W: the active jobs' remaining GPU-seconds at their counts
  for (const HeetTailJob& j : jobs) work_gpu_s += heet_tail_work_gpu_s(j);
  std::erase_if(jobs, [](const HeetTailJob& j) { return !j.eligible; });  // their work stays in W
  return heet_tail_critical(std::move(jobs), work_gpu_s, total_gpus);
}

double heet_tail_work_gpu_s(const HeetTailJob& j) {
  return std::isfinite(j.remaining_s) && j.gpus > 0 ? j.remaining_s * j.gpus : 0.0;
}

std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> jobs, double work_gpu_s, int total_gpus) {
  std::erase_if(jobs, [](const HeetTailJob& j) { return !std::isfinite(j.remaining_s) || j.gpus <= 0 || !j.eligible; });
  // Longest first (ties: lower job index); a heap, as usually only a few jobs are read.
  const auto shorter = [](const HeetTailJob& a, const HeetTailJob& b) {
    return a.remaining_s != b.remaining_s ? a.remaining_s < b.remaining_s : a.job > b.job;
  };
  std::make_heap(jobs.begin(), jobs.end(), shorter);
  std::vector<HeetTailClaim> critical;
  double taken_gpu_s = 0.0;
  int taken_gpus = 0;
  for (auto end = jobs.end(); end != jobs.begin(); --end) {
    std::pop_heap(jobs.begin(), end, shorter);
    const HeetTailJob& j = *(end - 1);
    const int rest_gpus = total_gpus - taken_gpus - j.gpus;
    // No GPU left beside it: the rest waits for j whether j runs now or later, so starting it
    // first cannot end the work sooner; it competes by heet's weight. A shorter job may still fit.
    if (rest_gpus <= 0) continue;
    const double own_gpu_s = j.remaining_s * j.gpus;
    const double rest_gpu_s = std::max(0.0, work_gpu_s - taken_gpu_s - own_gpu_s);
    if (j.remaining_s * rest_gpus < rest_gpu_s) break;  // the rest outlasts j: no job from here on decides the end
    critical.push_back({j.job, j.gpus});
    taken_gpu_s += own_gpu_s;
    taken_gpus += j.gpus;
  }
  return critical;
}

bool heet_tail_guard_eligible(bool holds_request, double lag_s, double remaining_s, double round_s,
                              double starve_factor) {
  // NaN or infinite remaining time: never (heet_tail_critical leaves such jobs out anyway).
  if (!std::isfinite(remaining_s)) return false;
  if (holds_request && lag_s >= round_s) return true;
  return lag_s >= starve_factor * remaining_s;
}

}  // namespace hetsim
