// Space sharing in the job table (Gavel's packed policies: Narayanan et al., OSDI'20, section 3.1;
// stanford-futuredata/gavel scheduler/scheduler.py runs a JobIdPair on one set of workers). A
// pair's GPUs belong to one job of the pair, the host, in the cluster state; the other job runs on
// them as a sharer: Running in this table, with the host's GPUs in its JobRuntime and its events,
// but never in the cluster state's ownership. Its events carry shares_with = host so that the
// invariant checker and the recorder do not count the GPUs twice.
#include "hetsim/sched/job_table.hpp"

namespace hetsim {

void JobTable::emit_event(const JobEvent& event, const JobRuntime& job) {
  settled_ = event.time;
  if (checker_) checker_->on_event(event, job);
  for (JobEventSink* sink : sinks_) sink->on_event(event);
}

void JobTable::start_shared(JobIndex j, JobIndex host, double rate, SimTime now) {
  JobRuntime& job = this->job(j);
  job.gpus = this->job(host).gpus;
  const double overhead_s = open_allocation(job, rate, now);
  JobEvent e{now, JobEventKind::Started, j, job.spec, job.gpus, {}, StopReason::None, overhead_s > 0.0, overhead_s};
  e.shares_with = host;
  emit_event(e, job);
}

void JobTable::stop_shared(JobIndex j, JobIndex host, SimTime now, StopReason why) {
  JobRuntime& job = this->job(j);
  JobEvent e{now, JobEventKind::Stopped, j, job.spec, job.gpus, to_string(why), why, false, 0.0};
  e.shares_with = host;
  emit_event(e, job);
  back_to_pending(job, why);
}

void JobTable::finish_shared(JobIndex j, JobIndex host, SimTime now) {
  JobRuntime& job = this->job(j);
  if (checker_) checker_->before_completion(job, now);
  job.remaining_work = 0.0;
  job.work_done = job.spec->work;
  job.status = JobStatus::Completed;
  ++job.generation;
  running_.erase(j);
  mark_changed(j);
  ++final_jobs_;
  JobEvent e{now, JobEventKind::Completed, j, job.spec, job.gpus, {}, StopReason::None, false, 0.0};
  e.shares_with = host;
  emit_event(e, job);
  job.gpus.clear();
  job.gpu_type = -1;
  job.rate = 0.0;
}

}  // namespace hetsim
