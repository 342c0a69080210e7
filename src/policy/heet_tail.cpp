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
  return heet_tail_critical(std::move(jobs), HeetLongestFirst{}, work_gpu_s, total_gpus);
}

std::vector<HeetTailClaim> heet_tail_critical(std::vector<HeetTailJob> jobs, const HeetLongestFirst& sorted,
                                              double work_gpu_s, int total_gpus) {
  std::erase_if(jobs, [](const HeetTailJob& j) { return !std::isfinite(j.remaining_s) || j.gpus <= 0 || !j.eligible; });
  // Longest first (ties: lower job index); a heap, as usually only a few jobs are read, merged
  // with `sorted` (already in that order): the same total order, so the same walk as one heap.
  const HeetLonger longer;
  const auto shorter = [&](const HeetTailJob& a, const HeetTailJob& b) { return longer(b, a); };
  std::make_heap(jobs.begin(), jobs.end(), shorter);
  auto next_sorted = sorted.begin();
  auto end = jobs.end();
  std::vector<HeetTailClaim> critical;
  double taken_gpu_s = 0.0;
  int taken_gpus = 0;
  while (end != jobs.begin() || next_sorted != sorted.end()) {
    // The heap's longest is at its front.
    const bool from_heap = next_sorted == sorted.end() || (end != jobs.begin() && longer(jobs.front(), *next_sorted));
    HeetTailJob j;
    if (from_heap) {
      std::pop_heap(jobs.begin(), end, shorter);
      --end;
      j = *end;
    } else {
      j = *next_sorted++;
      if (!std::isfinite(j.remaining_s) || j.gpus <= 0 || !j.eligible) continue;
    }
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

namespace hetsim {

HeetExactGpuSeconds::Nano HeetExactGpuSeconds::to_nano(double gpu_s) {
  // std::round: halves away from zero whatever the FPU's rounding mode (deterministic).
  return std::isfinite(gpu_s) ? static_cast<Nano>(std::round(gpu_s * 1e9)) : 0;
}

void HeetGuardWaiting::add(const HeetTailJob& tj, double done_s, SimTime submit, double starve_factor) {
  remove(tj.job);
  if (entries_.size() <= static_cast<std::size_t>(tj.job)) entries_.resize(static_cast<std::size_t>(tj.job) + 1);
  Entry& e = entries_[static_cast<std::size_t>(tj.job)];
  e = Entry{tj, done_s, starve_factor * tj.remaining_s, submit, -1, true, false};
  starve_factor_ = starve_factor;
  work_.add(heet_tail_work_gpu_s(tj));
  ++count_;
  // Never starved (no type runs it), or starved beyond any simulated time: not queued.
  const double threshold_s = done_s + e.need_s;
  if (!std::isfinite(tj.remaining_s) || !std::isfinite(threshold_s) || threshold_s > 4.0 * kMaxSimSeconds) return;
  // The exact test runs on doubles: queue the job a little before the instant (2 us plus a
  // relative 1e-12, far above the rounding of the test) and let the test decide from there.
  const double margin_us = 2.0 + std::abs(threshold_s) * 1e-6;
  e.queued_us = submit.us() + static_cast<std::int64_t>(std::floor(threshold_s * 1e6 - margin_us));
  queue_.insert({e.queued_us, tj.job});
}

void HeetGuardWaiting::remove(JobIndex j) {
  if (static_cast<std::size_t>(j) >= entries_.size()) return;
  Entry& e = entries_[static_cast<std::size_t>(j)];
  if (!e.kept) return;
  if (e.queued_us != -1) queue_.erase({e.queued_us, j});
  near_.erase(j);
  if (e.starved) starved_.erase(e.tj);
  work_.sub(heet_tail_work_gpu_s(e.tj));
  --count_;
  e = Entry{};
}

void HeetGuardWaiting::clear() {
  entries_.clear();
  queue_.clear();
  near_.clear();
  starved_.clear();
  work_ = HeetExactGpuSeconds{};
  count_ = 0;
}

bool HeetGuardWaiting::is_starved(const Entry& e, SimTime now) const {
  const double lag_s = (now - e.submit).seconds() - e.done_s;
  return heet_tail_guard_eligible(false, lag_s, e.tj.remaining_s, 0.0, starve_factor_);
}

const HeetLongestFirst& HeetGuardWaiting::starved(SimTime now) {
  while (!queue_.empty() && queue_.begin()->first <= now.us()) {
    const JobIndex j = queue_.begin()->second;
    queue_.erase(queue_.begin());
    entries_[static_cast<std::size_t>(j)].queued_us = -1;
    near_.insert(j);
  }
  // A waiting job's lag only grows (the clock is integer microseconds), so once starved it stays.
  for (auto it = near_.begin(); it != near_.end();) {
    Entry& e = entries_[static_cast<std::size_t>(*it)];
    if (!is_starved(e, now)) {
      ++it;
      continue;
    }
    e.starved = true;
    starved_.insert(e.tj);
    it = near_.erase(it);
  }
  return starved_;
}

}  // namespace hetsim
