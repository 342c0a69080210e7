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
  job_s_[j] = std::vector<double>(worker_s_.size(), initial_s);
  deficit_[j] = std::vector<double>(worker_s_.size(), 0.0);
  order_.push_back(j);
}

void GavelPriorities::remove_job(JobIndex j) {
  job_s_.erase(j);
  deficit_.erase(j);
  order_.erase(std::remove(order_.begin(), order_.end(), j), order_.end());
}

void GavelPriorities::record_run(JobIndex j, std::size_t type, double seconds) {
  auto it = job_s_.find(j);
  if (it == job_s_.end()) return;
  it->second[type] += seconds;
  worker_s_[type] += seconds;
}

void GavelPriorities::reset(double elapsed_s, const std::map<JobIndex, std::vector<double>>& old_allocation) {
  for (std::size_t t = 0; t < worker_s_.size(); ++t) {
    worker_s_[t] = 0.0;
    for (JobIndex j : order_) {
      std::vector<double>& js = job_s_[j];
      double received = js[t] - round_s_ / 2.0;
      auto a = old_allocation.find(j);
      double owed = a == old_allocation.end() ? 0.0 : a->second[t] * elapsed_s;
      deficit_[j][t] += owed - received;
      js[t] = round_s_ / 2.0;
      worker_s_[t] += js[t];
    }
  }
}

double GavelPriorities::fraction(JobIndex j, std::size_t type) const {
  auto it = job_s_.find(j);
  if (it == job_s_.end() || worker_s_[type] == 0.0) return 0.0;
  return it->second[type] / worker_s_[type];
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
  priority_out.assign(types, 0.0);
  deficit_out.assign(types, 0.0);
  auto js = job_s_.find(j);
  if (auto d = deficit_.find(j); d != deficit_.end()) deficit_out = d->second;
  if (x == nullptr) return;
  for (std::size_t t = 0; t < types; ++t) {
    double share = (*x)[t];
    if (share == 0.0 || throughput[t] == 0.0) continue;
    double f = js == job_s_.end() || worker_s_[t] == 0.0 ? 0.0 : js->second[t] / worker_s_[t];
    priority_out[t] = f > 0.0 ? share / f : share * 1e9;  // as priority()
  }
}

double GavelPriorities::deficit(JobIndex j, std::size_t type) const {
  auto it = deficit_.find(j);
  return it == deficit_.end() ? 0.0 : it->second[type];
}

}  // namespace hetsim
