#include "hetsim/metrics/recorder.hpp"

#include <algorithm>

namespace hetsim {

RunRecorder::RunRecorder(const Cluster& cluster, std::size_t jobs)
    : cluster_(cluster),
      records_(jobs),
      restart_len_s_(jobs, 0.0),
      alloc_since_s_(jobs, 0.0),
      types_used_(jobs, std::vector<char>(cluster.gpu_types().size(), 0)),
      busy_by_type_(cluster.gpu_types().size(), 0.0),
      arrived_(jobs, 0),
      used_on_node_(cluster.nodes().size(), 0) {}

namespace {
// Gives every job of a closed same-instant arrival group the N its first member holds.
void close_group(std::vector<JobRecord>& records, std::vector<std::size_t>& group) {
  for (std::size_t k : group) records[k].active_at_arrival = records[group.front()].active_at_arrival;
  group.clear();
}
}  // namespace

void RunRecorder::set_ideal_runtimes(const std::vector<double>& ideal_s) {
  for (std::size_t i = 0; i < records_.size() && i < ideal_s.size(); ++i) records_[i].ideal_s = ideal_s[i];
}

double JobRecord::ftf_rho() const {
  if (status != "completed" || !(ideal_s > 0.0) || active_at_arrival <= 0) return -1.0;
  return jct_s() / (active_at_arrival * ideal_s);
}

double JobRecord::norm_throughput() const {
  if (status != "completed" || !(ideal_s > 0.0) || !(jct_s() > 0.0)) return -1.0;
  return ideal_s / jct_s();
}

void RunRecorder::integrate_to(double now_s) {
  stranded_gpu_s_ += static_cast<double>(stranded_now_) * (now_s - stranded_since_s_);
  stranded_since_s_ = now_s;
}

void RunRecorder::change_used(std::span<const GpuId> gpus, int delta) {
  for (GpuId g : gpus) {
    const auto n = static_cast<std::size_t>(cluster_.node_of(g));
    const int cap = cluster_.nodes()[n].gpu_count;
    auto stranded = [cap](int used) { return used > 0 && used < cap ? cap - used : 0; };
    stranded_now_ -= stranded(used_on_node_[n]);
    used_on_node_[n] += delta;
    stranded_now_ += stranded(used_on_node_[n]);
  }
}

void RunRecorder::on_run_end(SimTime end) {
  close_group(records_, group_);
  end_ = end;
  integrate_to(end.seconds());
}

void RunRecorder::on_event(const JobEvent& e) {
  auto i = static_cast<std::size_t>(e.job);
  JobRecord& r = records_[i];
  const double now = e.time.seconds();
  switch (e.kind) {
    case JobEventKind::Arrived:
    case JobEventKind::Rejected:
      r.job_id = e.spec->id;
      r.submit_s = e.spec->submit.seconds();
      r.requested_gpus = e.spec->requested_gpus;
      if (e.kind == JobEventKind::Arrived) {
        // Jobs admitted at the same instant share N: each sees the others that arrived with it.
        arrived_[i] = 1;
        ++active_;
        // The group's N is its first member's until the group closes (a burst of N jobs at one
        // instant would otherwise cost N^2).
        if (group_.empty() || e.time != group_time_) close_group(records_, group_);
        group_time_ = e.time;
        group_.push_back(i);
        records_[group_.front()].active_at_arrival = active_;
      }
      if (e.kind == JobEventKind::Rejected) {
        r.status = "rejected";
        r.reason = std::string(e.reason);
      }
      break;
    case JobEventKind::Started:
      if (r.start_s < 0) r.start_s = now;
      r.gpus = static_cast<int>(e.gpus.size());
      alloc_since_s_[i] = now;
      for (GpuId g : e.gpus) types_used_[i][static_cast<std::size_t>(cluster_.type_of(g))] = 1;
      if (e.restart) ++r.restarts;
      restart_len_s_[i] = e.restart ? e.restart_s : 0.0;
      integrate_to(now);
      change_used(e.gpus, +1);
      r.gpu_types.clear();
      for (std::size_t t = 0; t < types_used_[i].size(); ++t) {
        if (!types_used_[i][t]) continue;
        if (!r.gpu_types.empty()) r.gpu_types += '|';
        r.gpu_types += cluster_.gpu_types()[t].name;
      }
      break;
    case JobEventKind::Stopped:
    case JobEventKind::Completed: {
      double held = now - alloc_since_s_[i];
      integrate_to(now);
      change_used(e.gpus, -1);
      for (GpuId g : e.gpus) busy_by_type_[static_cast<std::size_t>(cluster_.type_of(g))] += held;
      r.gpu_s += held * static_cast<double>(e.gpus.size());
      // Restart time paid in this allocation: the overhead, cut short if the allocation ended first.
      if (!e.gpus.empty() && restart_len_s_[i] > 0.0) r.restart_s += std::min(held, restart_len_s_[i]);
      restart_len_s_[i] = 0.0;
      if (e.kind == JobEventKind::Stopped && e.reason == "preempted") ++r.preemptions;
      if (e.kind == JobEventKind::Completed) {
        if (arrived_[i]) --active_;
        r.finish_s = now;
        if (r.start_s < 0) r.start_s = now;  // zero-work job: done on arrival
        r.status = "completed";
      }
      break;
    }
    case JobEventKind::Unfinished:
      if (arrived_[i]) --active_;
      r.job_id = e.spec->id;
      r.submit_s = e.spec->submit.seconds();
      r.requested_gpus = e.spec->requested_gpus;
      r.status = "unfinished";
      r.reason = std::string(e.reason);
      break;
  }
}

}  // namespace hetsim
