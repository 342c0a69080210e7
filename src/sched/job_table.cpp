#include "hetsim/sched/job_table.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "hetsim/sched/admission.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {
constexpr std::size_t kMaxWarnings = 20;
}  // namespace

JobTable::JobTable(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                   LifecycleConfig config, std::vector<JobEventSink*> sinks)
    : cluster_(cluster),
      model_(model),
      config_(config),
      sinks_(std::move(sinks)),
      state_(cluster),
      pending_(workload.jobs.size()),
      running_(workload.jobs.size()) {
  jobs_.resize(workload.jobs.size());
  changed_flag_.assign(jobs_.size(), 0);
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    jobs_[i].spec = &workload.jobs[i];
    jobs_[i].index = static_cast<JobIndex>(i);
    jobs_[i].remaining_work = workload.jobs[i].work;
  }
  if (config_.check_invariants)
    checker_ = std::make_unique<InvariantChecker>(cluster, model, jobs_.size(), config_.progress, config_.profiling_s);
}

Admission JobTable::arrive(JobIndex j, SimTime now, const PolicyAdmission& policy_admission) {
  JobRuntime& job = this->job(j);
  job.updated = now;
  auto reason = admission_error(*job.spec, cluster_, model_);
  // A job that has nothing to do completes at once: no policy turns it away.
  if (!reason && policy_admission && job.remaining_work > 0.0) reason = policy_admission(*job.spec);
  if (reason) {
    job.status = JobStatus::Rejected;
    ++final_jobs_;
    emit(now, JobEventKind::Rejected, job, {}, *reason);
    return Admission::Rejected;
  }
  emit(now, JobEventKind::Arrived, job, {});
  if (job.remaining_work <= 0.0) {
    // Nothing to do: it completes at its arrival without ever holding a GPU (JCT 0).
    job.status = JobStatus::Completed;
    ++final_jobs_;
    emit(now, JobEventKind::Completed, job, {});
    return Admission::CompletedAtArrival;
  }
  job.status = JobStatus::Pending;
  pending_.insert(j);
  mark_changed(j);
  return Admission::Pending;
}

double JobTable::restart_overhead_of(const JobRuntime& job) const {
  return job.spec->restart_overhead_s >= 0.0 ? job.spec->restart_overhead_s : config_.restart_overhead_s;
}

void JobTable::start(JobIndex j, const std::vector<GpuId>& gpus, double rate, SimTime now) {
  JobRuntime& job = this->job(j);
  if (shares_gpu(*job.spec)) {
    if (gpus.size() != 1) throw std::logic_error(fmt::format("job {} takes a share of one GPU, given {}", job.spec->id, gpus.size()));
    state_.assign_share(j, gpus.front(), job.spec->gpu_milli);
  } else {
    state_.assign(j, gpus);
  }
  job.gpus.assign(gpus.begin(), gpus.end());
  const double overhead_s = open_allocation(job, rate, now);
  emit(now, JobEventKind::Started, job, job.gpus, {}, StopReason::None, overhead_s);
}

// What every start does once the job's GPUs are set (whole, a share, or a pair host's): rate and
// clocks, the restart overhead and first profiling runs, counters, running set. Returns the restart
// overhead charged (0 = none).
double JobTable::open_allocation(JobRuntime& job, double rate, SimTime now) {
  job.gpu_type = cluster_.type_of(job.gpus.front());
  job.rate = rate;
  job.updated = now;
  job.allocated_since = now;
  const double overhead_s = restart_overhead_of(job);
  const bool restart = overhead_s > 0.0;
  job.resume_at = restart ? now + SimTime::from_seconds(overhead_s) : now;
  // generation 0 = never started: the job's profiling runs come before any progress.
  if (job.generation == 0 && config_.profiling_s > 0.0)
    job.resume_at = job.resume_at + SimTime::from_seconds(config_.profiling_s);
  if (restart) ++job.restarts;
  ++job.generation;
  job.status = JobStatus::Running;
  pending_.erase(job.index);
  running_.insert(job.index);
  mark_changed(job.index);
  return restart ? overhead_s : 0.0;
}

void JobTable::stop(JobIndex j, SimTime now, StopReason why) {
  JobRuntime& job = this->job(j);
  emit(now, JobEventKind::Stopped, job, job.gpus, to_string(why), why);
  release_gpus(job);
  back_to_pending(job, why);
}

// What every stop does once its event is out and its GPUs are given back (or stay with a pair's
// host): no allocation, a new generation, the preemption counted, back in the pending set.
void JobTable::back_to_pending(JobRuntime& job, StopReason why) {
  job.gpus.clear();
  job.gpu_type = -1;
  job.rate = 0.0;
  ++job.generation;
  if (why == StopReason::Preempted) ++job.preemptions;
  job.status = JobStatus::Pending;
  running_.erase(job.index);
  pending_.insert(job.index);
  mark_changed(job.index);
}

void JobTable::change_batch(JobIndex j, int batch_size, double rate, SimTime now) {
  JobRuntime& job = this->job(j);
  job.batch_size = batch_size;
  job.rate = rate;
  ++job.generation;
  if (checker_) checker_->on_rate_change(job, now);
}

void JobTable::change_rate(JobIndex j, double rate, SimTime now) {
  JobRuntime& job = this->job(j);
  job.rate = rate;
  ++job.generation;
  if (checker_) checker_->on_rate_change(job, now);
}

void JobTable::finish(JobIndex j, SimTime now) {
  JobRuntime& job = this->job(j);
  if (checker_) checker_->before_completion(job, now);
  job.remaining_work = 0.0;  // the completion is authoritative; drop rounding residue
  job.work_done = job.spec->work;
  release_gpus(job);
  job.status = JobStatus::Completed;
  ++job.generation;
  running_.erase(j);
  mark_changed(j);
  ++final_jobs_;
  emit(now, JobEventKind::Completed, job, job.gpus);
  job.gpus.clear();
  job.gpu_type = -1;
  job.rate = 0.0;
}

void JobTable::end_unfinished(SimTime now, const EndOfRun& end,
                              const std::function<void(JobRuntime&)>& bring_up_to_date) {
  for (JobRuntime& job : jobs_) {
    if (job.status == JobStatus::Completed || job.status == JobStatus::Rejected ||
        job.status == JobStatus::Unfinished)
      continue;
    const std::string* reason = &end.not_arrived_reason;
    if (job.status == JobStatus::Running) {
      bring_up_to_date(job);
      stop(job.index, now, end.stop);
      reason = &end.running_reason;
    } else if (job.status == JobStatus::Pending) {
      reason = &end.pending_reason;
    }
    pending_.erase(job.index);
    job.status = JobStatus::Unfinished;
    ++final_jobs_;
    emit(now, JobEventKind::Unfinished, job, {}, *reason);
  }
}

void JobTable::refuse(std::string message) {
  ++stats_.refused_requests;
  if (stats_.warnings.size() < kMaxWarnings) stats_.warnings.push_back(std::move(message));
}

void JobTable::warn(std::string message) {
  if (stats_.warnings.size() < kMaxWarnings) stats_.warnings.push_back(std::move(message));
}

void JobTable::end_run(SimTime end) {
  end = std::min(end, settled_);
  stats_.end = end;
  for (JobEventSink* sink : sinks_) sink->on_run_end(end);
  if (checker_) {
    checker_->at_run_end(end);
    stats_.checked_final_events = checker_->final_counts();
  }
}

void JobTable::release_gpus(const JobRuntime& job) {
  if (shares_gpu(*job.spec))
    for (GpuId g : job.gpus) state_.release_share(job.index, g, job.spec->gpu_milli);
  else
    state_.release(job.index, job.gpus);
}

void JobTable::mark_changed(JobIndex j) {
  auto& flag = changed_flag_[static_cast<std::size_t>(j)];
  if (flag) return;
  flag = 1;
  changed_.push_back(j);
}

void JobTable::clear_changed() {
  for (JobIndex j : changed_) changed_flag_[static_cast<std::size_t>(j)] = 0;
  changed_.clear();
}

void JobTable::emit(SimTime now, JobEventKind kind, const JobRuntime& job, std::span<const GpuId> gpus,
                    std::string_view reason, StopReason stop, double restart_s) {
  if (kind != JobEventKind::Rejected) settled_ = now;
  JobEvent e{now, kind, job.index, job.spec, gpus, reason, stop, restart_s > 0.0, restart_s};
  if (checker_) checker_->on_event(e, job);  // before the sinks: a broken rule stops the run first
  for (JobEventSink* sink : sinks_) sink->on_event(e);
}

void check_round_limit(std::uint64_t rounds, double max_rounds, double round_s, SimTime now) {
  if (static_cast<double>(rounds) <= max_rounds) return;
  throw InputError("", 0, "--interval",
                   fmt::format("the run took more than {:.3g} rounds of {} s (simulated time {:.6g} s) and was stopped: "
                               "use a longer --interval (or --until to end it earlier)",
                               max_rounds, round_s, now.seconds()));
}

}  // namespace hetsim
