#pragma once
// The GPU pool of a pass that plans against the whole cluster (every running job's GPUs up for
// grabs), and which GPU types some job seen so far can run on. GPUs of the other types can never
// be handed out (ElasticFlow's profiles have no rate for sia-64's rtx2080ti), so they are not
// counted as free: a pass that stops once every free GPU is given then stops early (edf,
// elasticflow).
#include <vector>

#include "hetsim/policy/policy.hpp"

namespace hetsim::policy_detail {

class UsablePool {
 public:
  /// Every GPU of the cluster, by type.
  std::vector<int> whole_cluster(const PolicyView& ctx) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    usable_.resize(ntypes, 0);
    std::vector<int> pool(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) pool[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    return pool;
  }
  /// Marks the types on which `job` runs at `gpus` GPUs.
  void mark(const PolicyView& ctx, const JobSpec& job, int gpus) {
    usable_.resize(ctx.cluster().gpu_types().size(), 0);
    for (std::size_t t = 0; t < usable_.size(); ++t)
      if (!usable_[t] && ctx.rate_on_type(job, static_cast<GpuTypeId>(t), gpus) > 0.0) usable_[t] = 1;
  }
  /// GPUs of `pool` on types some marked job runs on.
  int free(const std::vector<int>& pool) const {
    int n = 0;
    for (std::size_t t = 0; t < pool.size() && t < usable_.size(); ++t) n += usable_[t] ? pool[t] : 0;
    return n;
  }

 private:
  std::vector<char> usable_;  // [type]
};

}  // namespace hetsim::policy_detail
