// Gavel's round-based time-sharing mechanism with Gavel's simulator semantics
// (Narayanan et al., OSDI'20; stanford-futuredata/gavel, scheduler/scheduler.py simulate(),
// _update_priorities, _schedule_jobs_on_workers[_helper], _assign_workers_to_job,
// _get_job_steps_and_finish_times, _done_callback), re-implemented:
//  - A round starts when the previous one ends. Each scheduled job runs
//    min(floor(T * round_s), remaining) steps at its throughput T on its type (Gavel's integer
//    steps), so it finishes at start + steps / T; the round ends when the last of them finishes
//    (normally just under round_s, earlier when every scheduled job completes). GPUs of a job that
//    completes mid-round stay idle until the round ends. A job's JCT ends at its own finish time.
//  - Jobs that arrive during a round join at its end; after an idle period the next round starts
//    at the next arrival.
//  - X is recomputed when the set of active jobs changed and at least min_reset_interval_s passed
//    since the last reset (or no reset happened yet at time > 0, Gavel's `_last_reset_time == 0`
//    test); the reset also restarts the per-type time accounting (GavelPriorities).
//  - Each round, per GPU type (v100, p100, k80 first, as Gavel hard-codes; other types after, in
//    cluster order; shuffled every round for policies that are not heterogeneity-aware), jobs are
//    taken by (priority, deficit, x) descending; a job is scheduled on the first type where it
//    fits, has non-zero throughput and, for FIFO, positive priority.
//  - Placement as Gavel: per type, jobs by scale factor descending; a job keeps last round's GPUs
//    when none was taken yet; others get GPUs walking servers in order. Progress rates are the
//    consolidated table rates whatever the placement (Gavel's simulator does the same).
//  - Restart overhead (hetsim addition, 0 by default): charged at the start of every round in
//    which a job's placement changed; no progress during it.
//  - Gavel's accounting of a job's run time for priorities uses finish - previous round end, which
//    after an idle gap includes the gap; hetsim keeps that so priorities match.
#include "hetsim/sched/gavel_mechanism.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsim/sched/admission.hpp"

namespace hetsim {
namespace {
constexpr std::size_t kMaxWarnings = 20;
}

GavelMechanism::GavelMechanism(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                               AllocationPolicy& policy, GavelConfig config, std::vector<JobEventSink*> sinks)
    : cluster_(cluster),
      workload_(workload),
      model_(model),
      policy_(policy),
      config_(config),
      sinks_(std::move(sinks)),
      state_(cluster),
      priorities_(cluster.gpu_types().size(), config.round_s),
      shuffler_(config.seed + 5) {
  const std::size_t n = workload_.jobs.size(), types = cluster_.gpu_types().size();
  jobs_.resize(n);
  throughput_.assign(n, std::vector<double>(types, 0.0));
  placement_changes_.assign(n, 0);
  taken_in_round_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    jobs_[i].spec = &workload_.jobs[i];
    jobs_[i].index = static_cast<JobIndex>(i);
    jobs_[i].remaining_work = workload_.jobs[i].work;
  }
}

void GavelMechanism::emit(double time_s, JobEventKind kind, const JobRuntime& job, std::span<const GpuId> gpus,
                          std::string_view reason, bool restart) {
  JobEvent e{SimTime::from_seconds(time_s), kind, job.index, job.spec, gpus, reason, restart,
             restart ? config_.restart_overhead_s : 0.0};
  for (JobEventSink* sink : sinks_) sink->on_event(e);
}

void GavelMechanism::admit(JobIndex j) {
  JobRuntime& job = jobs_[static_cast<std::size_t>(j)];
  const double submit_s = job.spec->submit.seconds();
  if (auto reason = admission_error(*job.spec, cluster_, model_)) {
    job.status = JobStatus::Rejected;
    job.reason = *reason;
    // Point the user at the trace row, as the event mechanism does.
    const JobSpec& spec = *job.spec;
    std::string where = fmt::format("{}:{}: ", spec.source_file, spec.source_line);
    if (!spec.source_file.empty() && job.reason.rfind(where, 0) != 0) job.reason = where + job.reason;
    ++final_jobs_;
    emit(submit_s, JobEventKind::Rejected, job, {}, job.reason);
    return;
  }
  emit(submit_s, JobEventKind::Arrived, job, {});
  if (job.remaining_work <= 0.0) {
    job.status = JobStatus::Completed;
    ++final_jobs_;
    emit(submit_s, JobEventKind::Completed, job, {});
    return;
  }
  const int sf = job.spec->requested_gpus;
  for (std::size_t t = 0; t < throughput_[0].size(); ++t) {
    auto type = static_cast<GpuTypeId>(t);
    if (cluster_.gpus_of_type(type) < sf) continue;
    throughput_[static_cast<std::size_t>(j)][t] =
        model_.rate(*job.spec, AllocationShape{type, sf, sf <= cluster_.max_gpus_per_node(type)});
  }
  job.status = JobStatus::Pending;
  active_.insert(j);
  priorities_.add_job(j);
}

void GavelMechanism::compute_allocation(double now) {
  AllocationView view;
  view.now = SimTime::from_seconds(now);
  for (std::size_t t = 0; t < cluster_.gpu_types().size(); ++t) {
    view.type_names.push_back(cluster_.gpu_types()[t].name);
    view.gpus_per_type.push_back(cluster_.gpus_of_type(static_cast<GpuTypeId>(t)));
  }
  for (JobIndex j : active_) {
    const JobRuntime& job = jobs_[static_cast<std::size_t>(j)];
    AllocationJob a;
    a.job = j;
    a.spec = job.spec;
    a.scale_factor = job.spec->requested_gpus;
    a.priority_weight = job.spec->priority_weight;
    a.throughput = throughput_[static_cast<std::size_t>(j)];
    a.remaining_work = job.remaining_work;
    a.age_s = now - job.spec->submit.seconds();
    auto it = assignment_.find(j);
    a.current_type = it == assignment_.end() ? -1 : static_cast<int>(cluster_.type_of(it->second.front()));
    a.placement_changes = placement_changes_[static_cast<std::size_t>(j)];
    view.jobs.push_back(std::move(a));
  }
  AllocationResult r = policy_.allocate(view);
  ++solver_.allocations;
  solver_.solves += static_cast<std::uint64_t>(r.solves);
  solver_.solver_s_total += r.solver_s;
  solver_.solver_s_max = std::max(solver_.solver_s_max, r.solver_s);
  solver_.node_limits += static_cast<std::uint64_t>(r.node_limit_hits);
  solver_.time_limits += static_cast<std::uint64_t>(r.time_limit_hits);
  AllocationMatrix x;
  if (!r.ok || r.x.size() != view.jobs.size()) {
    ++solver_.failures;
    ++stats_.refused_requests;
    if (stats_.warnings.size() < kMaxWarnings)
      stats_.warnings.push_back(fmt::format("t={:.6f}s round {}: policy '{}': {}; using the isolated (equal-share) "
                                            "fallback allocation",
                                            now, solver_.rounds, policy_.name(),
                                            r.ok ? "allocation has the wrong number of rows" : r.failure));
    x = isolated_allocation(view);
  } else {
    x = sanitize_allocation(view, std::move(r.x), false);
  }
  allocation_.clear();
  for (std::size_t i = 0; i < view.jobs.size(); ++i) allocation_[view.jobs[i].job] = x[i];
}

std::vector<std::size_t> GavelMechanism::type_order() {
  std::vector<std::size_t> order;
  for (const char* name : {"v100", "p100", "k80"})
    if (auto t = cluster_.find_gpu_type(name)) order.push_back(static_cast<std::size_t>(*t));
  for (std::size_t t = 0; t < cluster_.gpu_types().size(); ++t)
    if (std::find(order.begin(), order.end(), t) == order.end()) order.push_back(t);
  if (!policy_.fixed_type_order()) shuffler_.shuffle(order);
  return order;
}

std::map<JobIndex, std::vector<GpuId>> GavelMechanism::choose_and_place() {
  const std::vector<std::size_t> order = type_order();
  const std::size_t types = cluster_.gpu_types().size();
  // Which jobs run on which type (Gavel's _schedule_jobs_on_workers_helper).
  std::vector<int> left(types);
  for (std::size_t t = 0; t < types; ++t) left[t] = cluster_.gpus_of_type(static_cast<GpuTypeId>(t));
  struct Entry {
    JobIndex job;
    std::size_t type;
    double priority, deficit, x;
  };
  // One pass over the jobs fills every type's list (jobs in Gavel's dict order, as before).
  const std::vector<JobIndex>& jobs = priorities_.order();
  std::vector<std::vector<Entry>> per_type(types);
  for (auto& list : per_type) list.reserve(jobs.size());
  std::vector<double> priority, deficit;
  for (JobIndex j : jobs) {
    auto a = allocation_.find(j);
    const std::vector<double>* x = a == allocation_.end() ? nullptr : &a->second;
    priorities_.priorities_of(j, x, throughput_[static_cast<std::size_t>(j)], priority, deficit);
    for (std::size_t t = 0; t < types; ++t) per_type[t].push_back({j, t, priority[t], deficit[t], x ? (*x)[t] : 0.0});
  }
  std::vector<Entry> queue;
  queue.reserve(jobs.size() * types);
  for (std::size_t t : order) {
    std::stable_sort(per_type[t].begin(), per_type[t].end(), [](const Entry& a, const Entry& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.deficit != b.deficit) return a.deficit > b.deficit;
      return a.x > b.x;
    });
    queue.insert(queue.end(), per_type[t].begin(), per_type[t].end());
  }
  std::vector<char>& taken = taken_in_round_;
  std::vector<std::vector<std::pair<JobIndex, int>>> chosen(types);
  for (const Entry& e : queue) {
    if (left[e.type] == 0 || taken[static_cast<std::size_t>(e.job)]) continue;
    if (!(throughput_[static_cast<std::size_t>(e.job)][e.type] > 0.0)) continue;  // never where it cannot run
    if (policy_.skip_zero_priority() && e.priority <= 0.0) continue;
    int sf = jobs_[static_cast<std::size_t>(e.job)].spec->requested_gpus;
    if (sf > left[e.type]) continue;
    left[e.type] -= sf;
    taken[static_cast<std::size_t>(e.job)] = 1;
    chosen[e.type].push_back({e.job, sf});
  }
  for (const auto& list : chosen)
    for (const auto& [j, sf] : list) taken[static_cast<std::size_t>(j)] = 0;

  // Which GPUs (Gavel's placement: keep last round's GPUs when possible, else walk the servers).
  std::map<JobIndex, std::vector<GpuId>> next;
  for (std::size_t t : order) {
    auto& list = chosen[t];
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::vector<GpuId>> servers;
    for (const Node& node : cluster_.nodes()) {
      if (static_cast<std::size_t>(node.gpu_type) != t) continue;
      std::vector<GpuId> gpus;
      for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) gpus.push_back(g);
      servers.push_back(std::move(gpus));
    }
    std::vector<std::size_t> front(servers.size(), 0);
    std::vector<char> assigned(static_cast<std::size_t>(cluster_.total_gpus()), 0);
    std::size_t ptr = 0;
    std::vector<int> sizes;
    for (const auto& [j, sf] : list)
      if (std::find(sizes.begin(), sizes.end(), sf) == sizes.end()) sizes.push_back(sf);
    for (int size : sizes) {
      for (const auto& [j, sf] : list) {
        if (sf != size) continue;
        auto prev = assignment_.find(j);
        if (prev == assignment_.end() || static_cast<std::size_t>(cluster_.type_of(prev->second.front())) != t) continue;
        bool free = std::none_of(prev->second.begin(), prev->second.end(),
                                 [&](GpuId g) { return assigned[static_cast<std::size_t>(g)] != 0; });
        if (!free) continue;
        next[j] = prev->second;
        for (GpuId g : prev->second) assigned[static_cast<std::size_t>(g)] = 1;
      }
      for (const auto& [j, sf] : list) {
        if (sf != size || !allocation_.count(j)) continue;
        std::vector<GpuId>& gpus = next[j];
        while (static_cast<int>(gpus.size()) < sf && ptr < servers.size()) {
          if (front[ptr] >= servers[ptr].size()) {
            ++ptr;
            continue;
          }
          GpuId g = servers[ptr][front[ptr]++];
          if (!assigned[static_cast<std::size_t>(g)]) {
            gpus.push_back(g);
            assigned[static_cast<std::size_t>(g)] = 1;
          }
        }
        if (static_cast<int>(gpus.size()) != sf) next.erase(j);  // cannot happen when counts fit; never half-place
      }
    }
  }
  return next;
}

void GavelMechanism::finish(JobIndex j, double time_s) {
  JobRuntime& job = jobs_[static_cast<std::size_t>(j)];
  job.remaining_work = 0.0;
  job.status = JobStatus::Completed;
  ++final_jobs_;
  auto it = assignment_.find(j);
  std::vector<GpuId> gpus = it == assignment_.end() ? std::vector<GpuId>{} : it->second;
  if (!gpus.empty()) state_.release(j, gpus);
  if (it != assignment_.end()) assignment_.erase(it);
  emit(time_s, JobEventKind::Completed, job, gpus);
  job.gpus.clear();
  job.gpu_type = -1;
  active_.erase(j);
  priorities_.remove_job(j);
}

void GavelMechanism::end_unfinished(double time_s, const std::string& reason) {
  for (JobRuntime& job : jobs_) {
    if (job.status == JobStatus::Completed || job.status == JobStatus::Rejected) continue;
    if (auto it = assignment_.find(job.index); it != assignment_.end()) {
      emit(time_s, JobEventKind::Stopped, job, it->second, "horizon");
      state_.release(job.index, it->second);
      assignment_.erase(it);
    }
    std::string why = job.status == JobStatus::NotArrived ? "arrives after the --until horizon" : reason;
    job.status = JobStatus::Unfinished;
    job.reason = why;
    emit(time_s, JobEventKind::Unfinished, job, {}, job.reason);
  }
}

MechanismStats GavelMechanism::run() {
  const std::size_t n = jobs_.size();
  std::size_t next_arrival = 0;
  now_ = n > 0 ? workload_.jobs[0].submit.seconds() : 0.0;
  double round_start = 0.0;
  std::optional<double> round_end;
  double last_reset = 0.0;
  bool need_update = false, forced = false;
  std::vector<Dispatch> running;

  while (final_jobs_ < n) {
    const bool arrivals_left = next_arrival < n;
    if (!arrivals_left && running.empty()) last_reset = 0.0;  // Gavel forces a reset when idle at the end
    if (!running.empty()) {
      double latest = 0.0;
      for (const Dispatch& d : running) latest = std::max(latest, d.finish_s);
      if (round_end) round_start = *round_end;
      round_end = latest;
      now_ = latest;
    } else if (arrivals_left) {
      now_ = std::max(now_, workload_.jobs[next_arrival].submit.seconds());
    }
    if (config_.until_s && now_ > *config_.until_s) {
      const double until = *config_.until_s;
      for (const Dispatch& d : running) {
        JobRuntime& job = jobs_[static_cast<std::size_t>(d.job)];
        if (d.finish_s <= until && job.remaining_work - d.steps <= 0.0) finish(d.job, d.finish_s);
      }
      end_unfinished(until, "not finished at the --until horizon");
      now_ = until;
      break;
    }
    // Round end: account the steps of every job that ran, complete the finished ones.
    for (const Dispatch& d : running) {
      JobRuntime& job = jobs_[static_cast<std::size_t>(d.job)];
      job.remaining_work = std::max(0.0, job.remaining_work - d.steps);
      priorities_.record_run(d.job, d.type, d.finish_s - round_start);
      if (job.remaining_work <= 0.0) {
        finish(d.job, d.finish_s);
        need_update = true;
      }
    }
    running.clear();
    while (next_arrival < n && workload_.jobs[next_arrival].submit.seconds() <= now_) {
      JobIndex j = static_cast<JobIndex>(next_arrival++);
      admit(j);
      if (jobs_[static_cast<std::size_t>(j)].status == JobStatus::Pending) need_update = true;
    }
    if (active_.empty()) continue;

    // Allocation (Gavel's _update_priorities).
    const bool due = now_ - last_reset >= config_.min_reset_interval_s || last_reset == 0.0;
    if (need_update && due) {
      priorities_.reset(now_ - last_reset, allocation_);
      last_reset = now_;
      compute_allocation(now_);
      need_update = false;
    } else if (policy_.every_round()) {
      compute_allocation(now_);
    }
    ++solver_.rounds;
    ++stats_.scheduling_passes;

    std::map<JobIndex, std::vector<GpuId>> next = choose_and_place();
    // Stop jobs that lose or change their GPUs, then start the new placements.
    for (auto it = assignment_.begin(); it != assignment_.end();) {
      auto nx = next.find(it->first);
      if (nx != next.end() && nx->second == it->second) {
        ++it;
        continue;
      }
      JobRuntime& job = jobs_[static_cast<std::size_t>(it->first)];
      bool moved = nx != next.end();
      emit(now_, JobEventKind::Stopped, job, it->second, moved ? "moved" : "preempted");
      if (!moved) ++job.preemptions;
      state_.release(it->first, it->second);
      job.gpus.clear();
      job.gpu_type = -1;
      job.status = JobStatus::Pending;
      it = assignment_.erase(it);
    }
    for (const auto& [j, gpus] : next) {
      JobRuntime& job = jobs_[static_cast<std::size_t>(j)];
      const bool fresh = !assignment_.count(j);
      const std::size_t t = static_cast<std::size_t>(cluster_.type_of(gpus.front()));
      const bool restart = fresh && config_.restart_overhead_s > 0.0;
      if (fresh) {
        state_.assign(j, gpus);
        assignment_[j] = gpus;
        job.gpus = gpus;
        job.gpu_type = static_cast<GpuTypeId>(t);
        job.status = JobStatus::Running;
        ++placement_changes_[static_cast<std::size_t>(j)];
        if (restart) ++job.restarts;
        emit(now_, JobEventKind::Started, job, gpus, {}, restart);
      }
      const double rate = throughput_[static_cast<std::size_t>(j)][t];
      const double overhead = restart ? std::min(config_.restart_overhead_s, config_.round_s) : 0.0;
      double steps = std::floor(rate * (config_.round_s - overhead));
      if (steps < 1.0) steps = rate * (config_.round_s - overhead);  // very slow jobs: fractional progress
      steps = std::min(steps, job.remaining_work);
      running.push_back({j, t, steps, now_ + overhead + steps / rate});
    }
    if (running.empty() && next_arrival >= n) {
      // Nothing can run and nothing will arrive: Gavel would spin here. Force one recomputation;
      // if that does not help either, the remaining jobs are reported unfinished (never hang).
      if (forced) {
        end_unfinished(now_, "no GPU type could be given to it: the policy left it without GPUs");
        break;
      }
      forced = true;
      need_update = true;
      last_reset = 0.0;
    } else if (!running.empty()) {
      forced = false;
    }
  }
  stats_.end = SimTime::from_seconds(now_);
  stats_.events = solver_.rounds;
  for (JobEventSink* sink : sinks_) sink->on_run_end(stats_.end);
  return stats_;
}

}  // namespace hetsim
