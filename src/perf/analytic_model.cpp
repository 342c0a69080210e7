// The analytic throughput model: compute + communication over the topology. Sources: the additive
// compute/communication step model with partial overlap follows Pollux (Qiao et al., OSDI 2021,
// sec. 3.2, which uses an overlap exponent instead of a linear factor) and Sia (Jayaram Subramanya
// et al., SOSP 2023); the slowest-worker rule for synchronous SGD on mixed GPUs and the
// speed-proportional batch split follow heterogeneity-aware data parallelism, e.g. HetPipe (Park
// et al., ATC 2020) and "Heterogeneity-aware distributed parameter servers" (Jiang et al.,
// SIGMOD 2017). The formulas are hetsim's own (docs/models.md).
#include "hetsim/perf/analytic_model.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace hetsim {
namespace {
constexpr std::size_t kCacheLimit = 200'000;
}

AnalyticModel::AnalyticModel(const Cluster& cluster, std::unique_ptr<ComputeProfile> profile, AnalyticConfig config)
    : cluster_(cluster), topology_(cluster), profile_(std::move(profile)), config_(config) {
  if (!(config_.overlap >= 0.0 && config_.overlap <= 1.0))
    throw std::invalid_argument(fmt::format("analytic model: overlap must be in [0, 1], got {}", config_.overlap));
  if (config_.comm.ps_shards < 1) throw std::invalid_argument("analytic model: ps_shards must be >= 1");
  if (!profile_) throw std::invalid_argument("analytic model: no compute profile");
}

std::optional<double> AnalyticModel::compute_s(const JobSpec& job, std::span<const GpuId> gpus) const {
  double slowest = 0.0;
  double speed_sum = 0.0;  // steps per second summed over the workers
  for (GpuId g : gpus) {
    const double t = profile_->step_time_s(job, cluster_.type_of(g));
    if (!(t > 0.0)) return std::nullopt;
    slowest = std::max(slowest, t);
    speed_sum += 1.0 / t;
  }
  // Synchronous SGD: every worker waits for the slowest one. Rebalanced: worker i gets a share of
  // the global batch proportional to its speed, so all finish together after n / sum(1/t_i).
  return config_.rebalance ? static_cast<double>(gpus.size()) / speed_sum : slowest;
}

std::optional<StepBreakdown> AnalyticModel::step(const JobSpec& job, std::span<const GpuId> gpus) const {
  if (gpus.empty()) return std::nullopt;
  const auto bytes = profile_->gradient_bytes(job);
  if (!bytes) return std::nullopt;
  const auto compute = compute_s(job, gpus);
  if (!compute) return std::nullopt;
  StepBreakdown b;
  b.compute_s = *compute;
  if (gpus.size() > 1) {
    const CommEstimate c = estimate_communication(topology_, gpus, *bytes, config_.comm);
    b.comm_s = c.time_s;
    b.comm_choice = c.choice;
  }
  b.step_s = b.compute_s + b.comm_s - config_.overlap * std::min(b.compute_s, b.comm_s);
  return b;
}

std::optional<NetworkDemand> AnalyticModel::network_demand(const JobSpec& job, std::span<const GpuId> gpus) const {
  if (gpus.size() < 2 || topology_.locality(gpus) == Locality::SingleNode) return std::nullopt;
  ShapeKey key = shape_key(job, gpus);
  if (auto it = demand_cache_.find(key); it != demand_cache_.end()) return it->second;
  std::optional<NetworkDemand> demand;
  const auto bytes = profile_->gradient_bytes(job);
  const auto compute = compute_s(job, gpus);
  if (bytes && compute) {
    CommEstimate c = estimate_communication(topology_, gpus, *bytes, config_.comm, true);
    if (!c.link_bytes.empty())
      demand = NetworkDemand{static_cast<int>(gpus.size()), *compute, config_.overlap, c.transfer_s, c.latency_s,
                             std::move(c.link_bytes)};
  }
  if (demand_cache_.size() >= kCacheLimit) demand_cache_.clear();
  demand_cache_.emplace(std::move(key), demand);
  return demand;
}

AnalyticModel::ShapeKey AnalyticModel::shape_key(const JobSpec& job, std::span<const GpuId> gpus) const {
  std::vector<int> shape;
  std::vector<GpuId> sorted(gpus.begin(), gpus.end());
  std::sort(sorted.begin(), sorted.end());
  for (GpuId g : sorted) {
    const NodeId n = cluster_.node_of(g);
    if (shape.size() >= 2 && shape[shape.size() - 2] == n) {
      ++shape.back();
    } else {
      shape.push_back(n);
      shape.push_back(1);
    }
  }
  return {job.job_type, std::move(shape)};
}

double AnalyticModel::rate_on(const JobSpec& job, const Cluster&, std::span<const GpuId> gpus) const {
  if (gpus.empty()) return 0.0;
  ShapeKey key = shape_key(job, gpus);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const auto b = step(job, gpus);
  const double r = b && b->step_s > 0.0 ? static_cast<double>(gpus.size()) / b->step_s : 0.0;
  if (cache_.size() >= kCacheLimit) cache_.clear();
  cache_.emplace(std::move(key), r);
  return r;
}

std::optional<std::vector<GpuId>> AnalyticModel::representative(const AllocationShape& shape) const {
  const int n = shape.gpu_count;
  if (n <= 0 || shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= cluster_.gpu_types().size())
    return std::nullopt;
  std::vector<const Node*> nodes;
  for (const Node& node : cluster_.nodes())
    if (node.gpu_type == shape.gpu_type) nodes.push_back(&node);
  std::vector<GpuId> out;
  auto take = [&](const Node& node, int k) {
    for (int i = 0; i < k; ++i) out.push_back(node.first_gpu + i);
  };
  if (shape.consolidated) {
    for (const Node* node : nodes)
      if (node->gpu_count >= n) {
        take(*node, n);
        return out;
      }
    return std::nullopt;
  }
  if (n >= 2 && n <= cluster_.max_gpus_per_node(shape.gpu_type)) {
    // Spread although it would fit on one node: the smallest spread, over two nodes.
    std::vector<const Node*> fit;
    for (const Node* node : nodes)
      if (node->gpu_count >= (n + 1) / 2) fit.push_back(node);
    if (fit.size() < 2) return std::nullopt;
    take(*fit[0], n - n / 2);
    take(*fit[1], n / 2);
    return out;
  }
  int left = n;
  for (const Node* node : nodes) {
    const int k = std::min(left, node->gpu_count);
    take(*node, k);
    left -= k;
    if (left == 0) return out;
  }
  return std::nullopt;
}

double AnalyticModel::rate(const JobSpec& job, const AllocationShape& shape) const {
  const auto gpus = representative(shape);
  return gpus ? rate_on(job, cluster_, *gpus) : 0.0;
}

std::optional<std::string> AnalyticModel::check_job(const JobSpec& job, const Cluster& cluster) const {
  if (job.unit != WorkUnit::Iterations)
    return fmt::format("job {}: analytic needs work in iterations, but the job's work is in {}", job.id,
                       to_string(job.unit));
  bool any_step = false;
  for (std::size_t t = 0; t < cluster.gpu_types().size(); ++t)
    any_step = any_step || profile_->step_time_s(job, static_cast<GpuTypeId>(t)) > 0.0;
  if (!profile_->gradient_bytes(job) && !any_step)
    return fmt::format("job {}: job type '{}' is not in the profile {} (no step time, no gradient size)", job.id,
                       job.job_type, profile_->source());
  if (!profile_->gradient_bytes(job))
    return fmt::format("job {}: analytic model has no gradient size for job type '{}' (profile {}); give it in a "
                       "job-types JSON (docs/models.md)",
                       job.id, job.job_type, profile_->source());
  if (any_step) return std::nullopt;
  return fmt::format("job {}: job type '{}' has no single-GPU step time for any GPU type of the cluster in {}", job.id,
                     job.job_type, profile_->source());
}

}  // namespace hetsim
