#include <algorithm>

#include "hetsim/policy/policy.hpp"

namespace hetsim {

double PolicyView::remaining_work(JobIndex j) const {
  const JobRuntime& job = this->job(j);
  if (job.status != JobStatus::Running) return job.remaining_work;
  SimTime from = std::max(job.updated, job.resume_at);
  if (now_ <= from) return job.remaining_work;
  return std::max(0.0, job.remaining_work - job.rate * (now_ - from).seconds());
}

double PolicyView::work_done(JobIndex j) const {
  const JobRuntime& job = this->job(j);
  if (job.status != JobStatus::Running) return job.work_done;
  SimTime from = std::max(job.updated, job.resume_at);
  if (now_ <= from) return job.work_done;
  return progress_after(*model_, *job.spec, cluster(), job.gpus, job.batch_size, job.work_done,
                        (now_ - from).seconds());
}

double PolicyView::attained_gpu_s(JobIndex j) const {
  const JobRuntime& job = this->job(j);
  if (job.status != JobStatus::Running || now_ <= job.updated) return job.attained_gpu_s;
  // The same sum the mechanism adds when it brings the job up to date (sched/mechanism.cpp).
  // A share of one GPU (JobSpec::gpu_milli) counts its fraction, as the mechanism does.
  const double held = shares_gpu(*job.spec) ? job.spec->gpu_milli / 1000.0 : static_cast<double>(job.gpus.size());
  return job.attained_gpu_s + held * (now_ - job.updated).seconds();
}

double PolicyView::rate_on_type(const JobSpec& job, GpuTypeId type, int count) const {
  AllocationShape shape{type, count, count <= cluster().max_gpus_per_node(type)};
  return model_->rate(job, shape);
}

}  // namespace hetsim
