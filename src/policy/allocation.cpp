// Shared helpers of the allocation policies (Gavel, OSDI'20: policies/isolated.py,
// policies/proportional.py); see include/hetsim/policy/allocation.hpp.
#include "hetsim/policy/allocation.hpp"

#include <algorithm>
#include <cmath>

namespace hetsim {

AllocationView allocation_view_of(const Cluster& cluster, SimTime now, const PolicyView* base) {
  AllocationView view;
  view.now = now;
  view.base = base;
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t) {
    view.type_names.push_back(cluster.gpu_types()[t].name);
    view.gpus_per_type.push_back(cluster.gpus_of_type(static_cast<GpuTypeId>(t)));
  }
  return view;
}

AllocationJob allocation_row(JobIndex j, const JobRuntime& job, std::vector<double> throughput, double remaining_work,
                             double age_s, int placement_changes) {
  AllocationJob a;
  a.job = j;
  a.spec = job.spec;
  a.scale_factor = job.spec->requested_gpus;
  a.priority_weight = job.spec->priority_weight;
  a.throughput = std::move(throughput);
  a.remaining_work = remaining_work;
  a.age_s = age_s;
  a.current_type = job.status == JobStatus::Running ? static_cast<int>(job.gpu_type) : -1;
  a.placement_changes = placement_changes;
  return a;
}

AllocationMatrix zero_allocation(const AllocationView& view) {
  AllocationMatrix x;
  if (view.spare_x != nullptr) x = std::move(*view.spare_x);
  x.resize(view.jobs.size());
  for (std::vector<double>& row : x) row.assign(view.gpus_per_type.size(), 0.0);
  return x;
}

AllocationMatrix isolated_allocation(const AllocationView& view) {
  const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
  AllocationMatrix x(n, std::vector<double>(types, 0.0));
  if (n == 0) return x;
  for (std::size_t i = 0; i < n; ++i) {
    const AllocationJob& job = view.jobs[i];
    double row = 0.0;
    for (std::size_t t = 0; t < types; ++t) {
      if (!(job.throughput[t] > 0.0)) continue;
      x[i][t] = static_cast<double>(view.gpus_per_type[t]) / (static_cast<double>(n) * job.scale_factor);
      row += x[i][t];
    }
    if (row > 1.0)
      for (double& v : x[i]) v /= row;
  }
  return sanitize_allocation(view, std::move(x));
}

std::vector<double> isolated_throughputs(const AllocationView& view) {
  AllocationMatrix x = isolated_allocation(view);
  std::vector<double> out(view.jobs.size(), 0.0);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t t = 0; t < x[i].size(); ++t) out[i] += view.jobs[i].throughput[t] * x[i][t];
  return out;
}

std::vector<double> proportional_throughputs(const AllocationView& view) {
  double total = 0.0;
  for (int g : view.gpus_per_type) total += g;
  std::vector<double> out(view.jobs.size(), 0.0);
  if (total <= 0) return out;
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t t = 0; t < view.gpus_per_type.size(); ++t)
      out[i] += view.jobs[i].throughput[t] * view.gpus_per_type[t] / total;
  return out;
}

AllocationMatrix sanitize_allocation(const AllocationView& view, AllocationMatrix x, bool scale_to_fit) {
  const std::size_t n = view.jobs.size(), types = view.gpus_per_type.size();
  x.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i].resize(types, 0.0);
    double row = 0.0;
    for (std::size_t t = 0; t < types; ++t) {
      double& v = x[i][t];
      if (!std::isfinite(v) || !(view.jobs[i].throughput[t] > 0.0)) v = 0.0;
      v = std::clamp(v, 0.0, 1.0);
      row += v;
    }
    if (row > 1.0 && scale_to_fit)
      for (double& v : x[i]) v /= row;
  }
  if (!scale_to_fit) return x;
  for (std::size_t t = 0; t < types; ++t) {
    double used = 0.0;
    for (std::size_t i = 0; i < n; ++i) used += x[i][t] * view.jobs[i].scale_factor;
    double cap = view.gpus_per_type[t];
    if (used > cap && used > 0.0)
      for (std::size_t i = 0; i < n; ++i) x[i][t] *= cap / used;
  }
  return x;
}

}  // namespace hetsim
