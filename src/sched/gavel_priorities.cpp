// Gavel's priority bookkeeping (stanford-futuredata/gavel, scheduler/scheduler.py:
// _add_to_priorities, _reset_time_run_so_far, _update_priorities), re-implemented.
#include <algorithm>

#include "hetsim/sched/gavel_mechanism.hpp"

namespace hetsim {

void GavelPriorities::add_job(JobIndex j) {
  // A new job starts with half a round on every type, so it is not infinitely behind.
  add_job(j, round_s_ / 2.0);
}

void GavelPriorities::add_job(JobIndex j, double initial_s) {
  const auto k = static_cast<std::size_t>(j);
  if (k >= present_.size()) {
    present_.resize(k + 1, 0);
    job_s_.resize((k + 1) * types_, 0.0);
    deficit_.resize((k + 1) * types_, 0.0);
  }
  present_[k] = 1;
  std::fill_n(row(job_s_, j), types_, initial_s);
  std::fill_n(row(deficit_, j), types_, 0.0);
  order_.push_back(j);
}

void GavelPriorities::remove_job(JobIndex j) {
  if (has(j)) present_[static_cast<std::size_t>(j)] = 0;
  order_.erase(std::remove(order_.begin(), order_.end(), j), order_.end());
}

void GavelPriorities::record_run(JobIndex j, std::size_t type, double seconds) {
  if (!has(j)) return;
  row(job_s_, j)[type] += seconds;
  worker_s_[type] += seconds;
}

void GavelPriorities::reset(double elapsed_s, const std::map<JobIndex, std::vector<double>>& old_allocation) {
  // Gavel loops types outer, jobs inner; jobs outer here (one X look-up per job) adds to each
  // type's total in the same job order, so the sums are the same doubles.
  std::fill(worker_s_.begin(), worker_s_.end(), 0.0);
  // order_ is mostly ascending (jobs join in index order): while it is, X's row is found by
  // walking the map alongside (`next` = first row at or after the largest job seen so far) instead
  // of one tree descent per job (gavel5); a job out of that order is looked up. Same rows found.
  auto next = old_allocation.begin();
  JobIndex largest = -1;
  for (JobIndex j : order_) {
    auto a = old_allocation.end();
    if (j > largest) {
      while (next != old_allocation.end() && next->first < j) ++next;
      if (next != old_allocation.end() && next->first == j) a = next;
      largest = j;
    } else {
      a = old_allocation.find(j);
    }
    double* js = row(job_s_, j);
    double* deficit = row(deficit_, j);
    for (std::size_t t = 0; t < worker_s_.size(); ++t) {
      double received = js[t] - round_s_ / 2.0;
      double owed = a == old_allocation.end() ? 0.0 : a->second[t] * elapsed_s;
      deficit[t] += owed - received;
      js[t] = round_s_ / 2.0;
      worker_s_[t] += js[t];
    }
  }
}

double GavelPriorities::fraction(JobIndex j, std::size_t type) const {
  if (!has(j) || worker_s_[type] == 0.0) return 0.0;
  return row(job_s_, j)[type] / worker_s_[type];
}

double GavelPriorities::priority(JobIndex j, std::size_t type, const std::map<JobIndex, std::vector<double>>& allocation,
                                 double throughput) const {
  auto a = allocation.find(j);
  if (a == allocation.end()) return 0.0;
  double x = a->second[type];
  if (x == 0.0 || throughput == 0.0) return 0.0;
  double f = fraction(j, type);
  // 1e9 rather than infinity so that a larger share still sorts first (Gavel's comment).
  return f > 0.0 ? x / f : x * 1e9;
}

void GavelPriorities::priorities_of(JobIndex j, const std::vector<double>* x, const std::vector<double>& throughput,
                                    std::vector<double>& priority_out, std::vector<double>& deficit_out) const {
  const std::size_t types = worker_s_.size();
  priority_out.resize(types);
  deficit_out.resize(types);
  const bool known = has(j);
  const double* deficit = known ? row(deficit_, j) : nullptr;
  const double* job_s = known ? row(job_s_, j) : nullptr;
  // One pass writes both rows: this runs for every active job in every round, with a handful of
  // types, where assign()/copy_n cost three libc calls (memset, memset, memcpy) per job (gavel5).
  for (std::size_t t = 0; t < types; ++t) {
    deficit_out[t] = known ? deficit[t] : 0.0;
    double priority = 0.0;
    const double share = x != nullptr ? (*x)[t] : 0.0;
    if (share != 0.0 && throughput[t] != 0.0) {
      const double f = !known || worker_s_[t] == 0.0 ? 0.0 : job_s[t] / worker_s_[t];
      priority = f > 0.0 ? share / f : share * 1e9;  // as priority()
    }
    priority_out[t] = priority;
  }
}

double GavelPriorities::deficit(JobIndex j, std::size_t type) const { return has(j) ? row(deficit_, j)[type] : 0.0; }

}  // namespace hetsim
