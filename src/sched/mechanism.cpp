#include "hetsim/sched/mechanism.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "hetsim/sched/admission.hpp"

namespace hetsim {
namespace {
constexpr std::size_t kMaxWarnings = 20;
}

Mechanism::Mechanism(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                     SchedulingPolicy& policy, const PlacementPolicy& placement, MechanismConfig config,
                     std::vector<JobEventSink*> sinks)
    : cluster_(cluster),
      workload_(workload),
      model_(model),
      policy_(policy),
      placement_(placement),
      config_(config),
      sinks_(std::move(sinks)),
      state_(cluster) {
  jobs_.resize(workload_.jobs.size());
  allocated_in_pass_.assign(jobs_.size(), 0);
  changed_flag_.assign(jobs_.size(), 0);
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    jobs_[i].spec = &workload_.jobs[i];
    jobs_[i].index = static_cast<JobIndex>(i);
    jobs_[i].remaining_work = workload_.jobs[i].work;
  }
}

MechanismStats Mechanism::run() {
  // Arrivals are queued up front in trace order, so equal submit times keep that order (sequence
  // numbers grow with the index).
  for (const JobRuntime& job : jobs_) sim_.schedule(job.spec->submit, EventClass::Arrival, job.index);
  if (config_.until_s) sim_.schedule(SimTime::from_seconds(*config_.until_s), EventClass::End);
  sim_.run(*this);
  if (!ended_) {
    // The queue ran dry: whatever is not final was left waiting by the policy.
    for (JobRuntime& job : jobs_) {
      if (job.status == JobStatus::Pending || job.status == JobStatus::Running) {
        const bool was_running = job.status == JobStatus::Running;
        if (was_running) stop_job(job, "run ended", false);
        job.status = JobStatus::Unfinished;
        job.reason = was_running ? fmt::format("would finish beyond the simulation horizon of {:.0e} s on its GPUs",
                                               kMaxSimSeconds)
                                 : "still waiting when no event was left: the policy never gave it GPUs";
        emit(JobEventKind::Unfinished, job, {}, job.reason);
      }
    }
  }
  stats_.end = sim_.now();
  for (JobEventSink* sink : sinks_) sink->on_run_end(stats_.end);
  return stats_;
}

void Mechanism::handle(const Event& event) {
  ++stats_.events;
  switch (event.cls) {
    case EventClass::Completion: on_completion(event.target, event.tag); break;
    case EventClass::Arrival: on_arrival(event.target); break;
    case EventClass::RoundTick: on_round_tick(); break;
    case EventClass::SchedulePass:
      pass_requested_ = false;
      run_policy();
      break;
    case EventClass::End: on_end(); break;
  }
  if (!ended_ && all_done()) sim_.stop();  // nothing left to simulate: do not tick on to the horizon
}

bool Mechanism::all_done() const { return final_jobs_ == jobs_.size(); }

void Mechanism::on_arrival(JobIndex j) {
  JobRuntime& job = jobs_[static_cast<std::size_t>(j)];
  job.updated = sim_.now();
  if (auto reason = admission_error(*job.spec, cluster_, model_)) {
    job.status = JobStatus::Rejected;
    job.reason = *reason;
    ++final_jobs_;
    emit(JobEventKind::Rejected, job, {}, job.reason);
    return;
  }
  emit(JobEventKind::Arrived, job, {});
  if (job.remaining_work <= 0.0) {
    // Nothing to do: it completes at its arrival without ever holding a GPU (JCT 0).
    job.status = JobStatus::Completed;
    ++final_jobs_;
    emit(JobEventKind::Completed, job, {});
    return;
  }
  job.status = JobStatus::Pending;
  pending_.insert(j);
  mark_changed(j);
  if (config_.interval_s <= 0.0) {
    request_pass();
  } else {
    if (!tick_scheduled_) {
      // Rounds are anchored at the first arrival; after an idle gap they resume on that grid.
      SimTime next = sim_.now();
      if (!first_tick_ && config_.round_grid_from_zero) first_tick_ = SimTime::from_us(0);
      if (first_tick_) {
        std::int64_t step = SimTime::from_seconds(config_.interval_s).us();
        std::int64_t since = sim_.now().us() - first_tick_->us();
        std::int64_t k = (since + step - 1) / step;
        if (config_.round_grid_from_zero) k = std::max<std::int64_t>(k, 1);
        next = SimTime::from_us(first_tick_->us() + k * step);
      }
      if (!first_tick_) first_tick_ = next;
      sim_.schedule(next, EventClass::RoundTick);
      tick_scheduled_ = true;
    }
    if (config_.schedule_on_arrival) request_pass();
  }
}

void Mechanism::on_completion(JobIndex j, std::uint64_t generation) {
  JobRuntime& job = jobs_[static_cast<std::size_t>(j)];
  if (job.status != JobStatus::Running || job.generation != generation) return;  // stale
  finish_job(job);
  if (config_.interval_s <= 0.0) request_pass();
}

void Mechanism::on_round_tick() {
  tick_scheduled_ = false;
  run_policy();
  if (!pending_.empty() || !running_.empty()) {
    sim_.schedule(sim_.now() + SimTime::from_seconds(config_.interval_s), EventClass::RoundTick);
    tick_scheduled_ = true;
  }
}

void Mechanism::on_end() {
  ended_ = true;
  for (JobRuntime& job : jobs_) {
    if (job.status == JobStatus::Completed || job.status == JobStatus::Rejected) continue;
    std::string reason = job.status == JobStatus::NotArrived ? "arrives after the --until horizon"
                                                             : "not finished at the --until horizon";
    if (job.status == JobStatus::Running) {
      advance(job);
      emit(JobEventKind::Stopped, job, job.gpus, "horizon");
      state_.release(job.index, job.gpus);
      job.gpus.clear();
      running_.erase(job.index);
    }
    pending_.erase(job.index);
    job.status = JobStatus::Unfinished;
    job.reason = reason;
    emit(JobEventKind::Unfinished, job, {}, job.reason);
  }
  sim_.stop();
}

void Mechanism::request_pass() {
  if (pass_requested_) return;
  pass_requested_ = true;
  sim_.schedule(sim_.now(), EventClass::SchedulePass);
}

void Mechanism::run_policy() {
  ++stats_.scheduling_passes;
  const ThroughputModel& planning = config_.planning_model ? *config_.planning_model : model_;
  SchedulerContext ctx(sim_.now(), state_, planning, jobs_, pending_, running_, changed_);
  Decision decision = policy_.schedule(ctx);
  // The policy has seen these; what apply() changes now is reported at the next pass.
  for (JobIndex j : changed_) changed_flag_[static_cast<std::size_t>(j)] = 0;
  changed_.clear();
  apply(decision);
}

void Mechanism::mark_changed(JobIndex j) {
  if (changed_flag_[static_cast<std::size_t>(j)]) return;
  changed_flag_[static_cast<std::size_t>(j)] = 1;
  changed_.push_back(j);
}

void Mechanism::refuse(const std::string& why) {
  ++stats_.refused_requests;
  if (stats_.warnings.size() < kMaxWarnings)
    stats_.warnings.push_back(fmt::format("t={:.6f}s: policy '{}': {}", sim_.now().seconds(), policy_.name(), why));
}

void Mechanism::apply(const Decision& decision) {
  auto valid_job = [&](JobIndex j) { return j >= 0 && static_cast<std::size_t>(j) < jobs_.size(); };
  // Phase 1: take GPUs back (preemptions, and running jobs that move or change size), so phase 2
  // can hand them to others in the same pass.
  for (JobIndex j : decision.preempt) {
    if (!valid_job(j) || jobs_[static_cast<std::size_t>(j)].status != JobStatus::Running) {
      refuse(fmt::format("preempt of job index {} which is not running", j));
      continue;
    }
    stop_job(jobs_[static_cast<std::size_t>(j)], "preempted", true);
  }
  std::vector<char>& seen = allocated_in_pass_;
  std::vector<const AllocationRequest*> to_place;
  for (const AllocationRequest& req : decision.allocate) {
    if (!valid_job(req.job)) {
      refuse(fmt::format("allocation for unknown job index {}", req.job));
      continue;
    }
    JobRuntime& job = jobs_[static_cast<std::size_t>(req.job)];
    if (seen[static_cast<std::size_t>(req.job)]++) {
      refuse(fmt::format("job {} allocated twice in one decision", job.spec->id));
      continue;
    }
    if (job.status != JobStatus::Pending && job.status != JobStatus::Running) {
      refuse(fmt::format("allocation for job {} which is {}", job.spec->id, to_string(job.status)));
      continue;
    }
    bool exact = !req.gpus.empty();
    if (!exact && (req.gpu_type < 0 || static_cast<std::size_t>(req.gpu_type) >= cluster_.gpu_types().size() ||
                   req.gpu_count <= 0)) {
      refuse(fmt::format("job {}: bad request ({} GPUs of type index {})", job.spec->id, req.gpu_count, req.gpu_type));
      continue;
    }
    if (job.status == JobStatus::Running) {
      bool same = exact ? req.gpus == job.gpus
                        : (req.gpu_type == job.gpu_type && req.gpu_count == static_cast<int>(job.gpus.size()));
      if (same) {  // keep the allocation: no restart
        if (req.batch_size > 0 && req.batch_size != job.batch_size) change_batch(job, req.batch_size);
        continue;
      }
      stop_job(job, exact ? "moved" : (req.gpu_type == job.gpu_type ? "resized" : "moved"), false);
    }
    to_place.push_back(&req);
  }
  for (const AllocationRequest& req : decision.allocate)
    if (valid_job(req.job)) seen[static_cast<std::size_t>(req.job)] = 0;
  // Phase 2: place in the order the policy gave.
  for (const AllocationRequest* req : to_place) {
    JobRuntime& job = jobs_[static_cast<std::size_t>(req->job)];
    std::vector<GpuId> gpus;
    if (!req->gpus.empty()) {
      gpus = req->gpus;
      std::vector<GpuId> sorted = gpus;
      std::sort(sorted.begin(), sorted.end());
      bool ok = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
      for (GpuId g : gpus) ok = ok && g >= 0 && g < cluster_.total_gpus() && state_.owner(g) == ClusterState::kFree;
      if (!ok) {
        refuse(fmt::format("job {}: requested GPUs are out of range, repeated or not free", job.spec->id));
        continue;
      }
    } else {
      gpus = placement_.place(state_, *job.spec, req->gpu_type, req->gpu_count, model_);
      if (gpus.empty()) {
        refuse(fmt::format("job {}: {} GPUs of type {} requested but only {} free", job.spec->id, req->gpu_count,
                           cluster_.gpu_types()[static_cast<std::size_t>(req->gpu_type)].name,
                           state_.free_of_type(req->gpu_type)));
        continue;
      }
      check_placement(job, *req, gpus);
    }
    if (req->batch_size > 0) job.batch_size = req->batch_size;
    if (!(model_.rate_at(*job.spec, cluster_, gpus, job.batch_size, job.work_done) > 0.0)) {
      refuse(fmt::format("job {}: zero throughput on the requested GPUs; not placed", job.spec->id));
      continue;
    }
    start_job(job, std::move(gpus));
  }
}

void Mechanism::check_placement(const JobRuntime& job, const AllocationRequest& req, std::vector<GpuId> gpus) const {
  // A placement policy that breaks its contract is a bug: stop the run (exit code 1) rather than
  // simulate an impossible allocation.
  bool ok = static_cast<int>(gpus.size()) == req.gpu_count;
  for (GpuId g : gpus)
    ok = ok && g >= 0 && g < cluster_.total_gpus() && cluster_.type_of(g) == req.gpu_type && state_.owner(g) == ClusterState::kFree;
  std::sort(gpus.begin(), gpus.end());
  ok = ok && std::adjacent_find(gpus.begin(), gpus.end()) == gpus.end();
  if (!ok)
    throw std::logic_error(fmt::format("placement '{}' gave job {} GPUs that are repeated, busy or not {} x {}",
                                       placement_.name(), job.spec->id, req.gpu_count,
                                       cluster_.gpu_types()[static_cast<std::size_t>(req.gpu_type)].name));
}

double Mechanism::restart_overhead_of(const JobRuntime& job) const {
  return job.spec->restart_overhead_s >= 0.0 ? job.spec->restart_overhead_s : config_.restart_overhead_s;
}

void Mechanism::advance(JobRuntime& job) {
  SimTime now = sim_.now();
  if (job.status == JobStatus::Running) {
    SimTime from = std::max(job.updated, job.resume_at);
    if (now > from) {
      double dt = (now - from).seconds();
      const double work = job.spec->work;
      if (!std::isfinite(model_.next_rate_change(*job.spec, job.work_done))) {
        job.remaining_work = std::max(0.0, job.remaining_work - job.rate * dt);
        job.work_done += job.rate * dt;
      } else {
        // Progress-dependent rate: integrate piece by piece; a crossed breakpoint is hit exactly.
        job.work_done = progress_after(model_, *job.spec, cluster_, job.gpus, job.batch_size, job.work_done, dt);
        job.remaining_work = std::max(0.0, work - job.work_done);
        job.rate = model_.rate_at(*job.spec, cluster_, job.gpus, job.batch_size, job.work_done);
      }
    }
    job.attained_gpu_s += static_cast<double>(job.gpus.size()) * (now - job.updated).seconds();
  }
  job.updated = now;
}

void Mechanism::schedule_completion(JobRuntime& job) {
  double seconds = 0.0;
  if (!std::isfinite(model_.next_rate_change(*job.spec, job.work_done))) {
    seconds = job.remaining_work / job.rate;
  } else {
    seconds = seconds_to_finish(model_, *job.spec, cluster_, job.gpus, job.batch_size, job.work_done);
    if (!std::isfinite(seconds)) return;  // never completes here; a later decision must move it
  }
  SimTime start = std::max(job.resume_at, sim_.now());
  // Past the horizon the job cannot finish in this run; with no completion event it ends
  // "unfinished" with its reason rather than "completed" at the edge of the clock.
  if (!(start.seconds() + seconds <= kMaxSimSeconds)) return;
  sim_.schedule(start + SimTime::from_seconds(seconds), EventClass::Completion, job.index, job.generation);
}

void Mechanism::change_batch(JobRuntime& job, int batch_size) {
  advance(job);
  job.batch_size = batch_size;
  job.rate = model_.rate_at(*job.spec, cluster_, job.gpus, job.batch_size, job.work_done);
  ++job.generation;
  schedule_completion(job);
}

void Mechanism::start_job(JobRuntime& job, std::vector<GpuId> gpus) {
  SimTime now = sim_.now();
  state_.assign(job.index, gpus);
  job.gpus = std::move(gpus);
  job.gpu_type = cluster_.type_of(job.gpus.front());
  job.rate = model_.rate_at(*job.spec, cluster_, job.gpus, job.batch_size, job.work_done);
  job.updated = now;
  job.allocated_since = now;
  const double overhead_s = restart_overhead_of(job);
  bool restart = overhead_s > 0.0;
  job.resume_at = restart ? now + SimTime::from_seconds(overhead_s) : now;
  // generation 0 = never started: the job's profiling runs come before any progress.
  if (job.generation == 0 && config_.profiling_s > 0.0) job.resume_at = job.resume_at + SimTime::from_seconds(config_.profiling_s);
  if (restart) ++job.restarts;
  ++job.generation;
  job.status = JobStatus::Running;
  pending_.erase(job.index);
  running_.insert(job.index);
  mark_changed(job.index);
  schedule_completion(job);
  emit(JobEventKind::Started, job, job.gpus, {}, restart, overhead_s);
}

void Mechanism::stop_job(JobRuntime& job, std::string_view reason, bool preemption) {
  advance(job);
  emit(JobEventKind::Stopped, job, job.gpus, reason);
  state_.release(job.index, job.gpus);
  job.gpus.clear();
  job.gpu_type = -1;
  job.rate = 0.0;
  ++job.generation;
  if (preemption) ++job.preemptions;
  job.status = JobStatus::Pending;
  running_.erase(job.index);
  pending_.insert(job.index);
  mark_changed(job.index);
}

void Mechanism::finish_job(JobRuntime& job) {
  advance(job);
  job.remaining_work = 0.0;  // the completion event is authoritative; drop rounding residue
  state_.release(job.index, job.gpus);
  job.status = JobStatus::Completed;
  ++job.generation;
  running_.erase(job.index);
  mark_changed(job.index);
  ++final_jobs_;
  emit(JobEventKind::Completed, job, job.gpus);
  job.gpus.clear();
  job.gpu_type = -1;
  job.rate = 0.0;
}

void Mechanism::emit(JobEventKind kind, const JobRuntime& job, std::span<const GpuId> gpus, std::string_view reason,
                     bool restart, double restart_s) {
  JobEvent e{sim_.now(), kind, job.index, job.spec, gpus, reason, restart, restart ? restart_s : 0.0};
  for (JobEventSink* sink : sinks_) sink->on_event(e);
}

}  // namespace hetsim
