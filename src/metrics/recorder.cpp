#include "hetsim/metrics/recorder.hpp"

#include <algorithm>

namespace hetsim {

RunRecorder::RunRecorder(const Cluster& cluster, std::size_t jobs)
    : cluster_(cluster),
      rows_(jobs),
      types_used_(jobs * cluster.gpu_types().size(), 0),
      busy_by_type_(cluster.gpu_types().size(), 0.0),
      used_on_node_(cluster.nodes().size(), 0) {}

void RunRecorder::set_ideal_runtimes(const std::vector<double>& ideal_s) {
  for (std::size_t i = 0; i < rows_.size() && i < ideal_s.size(); ++i) rows_[i].ideal_s = ideal_s[i];
}

void RunRecorder::build_records() const {
  if (built_) return;
  built_ = true;
  const std::size_t ntypes = cluster_.gpu_types().size();
  records_.resize(rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& w = rows_[i];
    JobRecord& r = records_[i];
    if (w.spec) {
      r.job_id = w.spec->id;
      r.submit_s = w.spec->submit.seconds();
      r.requested_gpus = w.spec->requested_gpus;
      r.deadline_s = w.spec->deadline_s;
    }
    r.start_s = w.start_s;
    r.finish_s = w.finish_s;
    r.gpus = w.gpus;
    for (std::size_t t = 0; t < ntypes; ++t) {
      if (!types_used_[i * ntypes + t]) continue;
      if (!r.gpu_types.empty()) r.gpu_types += '|';
      r.gpu_types += cluster_.gpu_types()[t].name;
    }
    r.preemptions = w.preemptions;
    r.restarts = w.restarts;
    r.restart_s = w.restart_s;
    r.gpu_s = w.gpu_s;
    r.ideal_s = w.ideal_s;
    r.active_at_arrival = w.active_at_arrival;
    r.status = w.status;
  }
  for (const auto& [i, why] : reasons_) records_[i].reason = why;  // the last one given wins
}

const std::vector<JobRecord>& RunRecorder::records() const {
  build_records();
  return records_;
}

std::vector<JobRecord> RunRecorder::take_records() {
  build_records();
  return std::move(records_);
}

double JobRecord::ftf_rho() const {
  if (status != JobStatus::Completed || !(ideal_s > 0.0) || active_at_arrival <= 0) return -1.0;
  return jct_s() / (active_at_arrival * ideal_s);
}

double JobRecord::norm_throughput() const {
  if (status != JobStatus::Completed || !(ideal_s > 0.0) || !(jct_s() > 0.0)) return -1.0;
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

void RunRecorder::change_shared_use(GpuId gpu, int delta) {
  if (shares_on_gpu_.empty()) shares_on_gpu_.assign(static_cast<std::size_t>(cluster_.total_gpus()), 0);
  int& on = shares_on_gpu_[static_cast<std::size_t>(gpu)];
  const bool was_used = on > 0;
  on += delta;
  if (was_used != (on > 0)) {
    const GpuId one[] = {gpu};
    change_used(one, delta);
  }
}

// Every job of a same-instant group gets the count after the group's last admission; writing it
// once per group (not once per member at every admission) keeps a burst of N arrivals O(N).
void RunRecorder::close_group() {
  for (std::size_t k : group_) rows_[k].active_at_arrival = group_active_;
  group_.clear();
}

void RunRecorder::on_run_end(SimTime end) {
  close_group();
  end_ = end;
  integrate_to(end.seconds());
}

void RunRecorder::on_event(const JobEvent& e) {
  auto i = static_cast<std::size_t>(e.job);
  Row& r = rows_[i];
  const double now = e.time.seconds();
  switch (e.kind) {
    case JobEventKind::Arrived:
    case JobEventKind::Rejected:
      r.spec = e.spec;
      if (e.kind == JobEventKind::Arrived) {
        // Jobs admitted at the same instant share N: each sees the others that arrived with it.
        r.arrived = true;
        ++active_;
        if (!group_.empty() && e.time != group_time_) close_group();
        group_time_ = e.time;
        group_.push_back(i);
        group_active_ = active_;
      }
      if (e.kind == JobEventKind::Rejected) {
        r.status = JobStatus::Rejected;
        reasons_.emplace_back(i, std::string(e.reason));
      }
      break;
    case JobEventKind::Started: {
      if (r.start_s < 0) r.start_s = now;
      r.gpus = static_cast<int>(e.gpus.size());
      r.alloc_since_s = now;
      char* used = &types_used_[i * cluster_.gpu_types().size()];
      for (GpuId g : e.gpus) used[static_cast<std::size_t>(cluster_.type_of(g))] = 1;
      if (e.restart) ++r.restarts;
      r.restart_len_s = e.restart ? e.restart_s : 0.0;
      integrate_to(now);
      if (e.shares_with >= 0) {
        // space sharing (a job pair): the sharer's GPUs are counted with its host
      } else if (e.spec && shares_gpu(*e.spec)) {
        for (GpuId g : e.gpus) change_shared_use(g, +1);
      } else {
        change_used(e.gpus, +1);
      }
      break;
    }
    case JobEventKind::Stopped:
    case JobEventKind::Completed: {
      double held = now - r.alloc_since_s;
      integrate_to(now);
      if (e.shares_with >= 0) {
        // space sharing (a job pair): the host's events count the GPUs' busy time
        r.gpu_s += held * static_cast<double>(e.gpus.size());
      } else if (e.spec && shares_gpu(*e.spec)) {
        // A share of one GPU: busy for its fraction of the time held.
        const double share = e.spec->gpu_milli / 1000.0;
        for (GpuId g : e.gpus) {
          change_shared_use(g, -1);
          busy_by_type_[static_cast<std::size_t>(cluster_.type_of(g))] += held * share;
        }
        r.gpu_s += held * share * static_cast<double>(e.gpus.size());
      } else {
        change_used(e.gpus, -1);
        for (GpuId g : e.gpus) busy_by_type_[static_cast<std::size_t>(cluster_.type_of(g))] += held;
        r.gpu_s += held * static_cast<double>(e.gpus.size());
      }
      // Restart time paid in this allocation: the overhead, cut short if the allocation ended first.
      if (!e.gpus.empty() && r.restart_len_s > 0.0) r.restart_s += std::min(held, r.restart_len_s);
      r.restart_len_s = 0.0;
      if (e.stop_reason == StopReason::Preempted) ++r.preemptions;
      if (e.kind == JobEventKind::Completed) {
        if (r.arrived) --active_;
        r.finish_s = now;
        if (r.start_s < 0) r.start_s = now;  // zero-work job: done on arrival
        r.status = JobStatus::Completed;
      }
      break;
    }
    case JobEventKind::Unfinished:
      if (r.arrived) --active_;
      r.spec = e.spec;
      r.status = JobStatus::Unfinished;
      reasons_.emplace_back(i, std::string(e.reason));
      break;
  }
}

}  // namespace hetsim
