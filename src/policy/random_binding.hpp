#pragma once
// Private helper of the Heet prototype's baselines (mozizhao/elastic AFS_scheduler.py,
// SRSF_scheduler.py, Gavel_scheduler.py): each arriving job is put in the queue of one GPU type drawn uniformly at
// random, and stays there. Ours: the draw is among the types where the job can run at `gpus` GPUs
// (the prototype draws among all), and it depends only on (seed, job index), so it is the same
// whatever else happens in the run.
#include <cstdint>
#include <vector>

#include "hetsim/policy/policy.hpp"

namespace hetsim {

class RandomTypeBinding {
 public:
  explicit RandomTypeBinding(std::uint64_t seed) : seed_(seed) {}

  /// The GPU type job `j` is bound to (drawn on first call).
  GpuTypeId type_of(const PolicyView& ctx, JobIndex j, int gpus) {
    const auto k = static_cast<std::size_t>(j);
    if (k < bound_.size() && bound_[k] >= 0) return static_cast<GpuTypeId>(bound_[k]);
    std::vector<GpuTypeId> ok;
    const auto ntypes = static_cast<GpuTypeId>(ctx.cluster().gpu_types().size());
    for (GpuTypeId t = 0; t < ntypes; ++t) {
      const int n = std::min(gpus, ctx.cluster().max_gpus_per_node(t));
      if (ctx.rate_on_type(*ctx.job(j).spec, t, n) > 0.0) ok.push_back(t);
    }
    return type_among(j, std::move(ok), ntypes);
  }

  /// The GPU type job `j` is bound to, drawn on first call among `ok` (among all `ntypes` types
  /// when `ok` is empty).
  GpuTypeId type_among(JobIndex j, std::vector<GpuTypeId> ok, GpuTypeId ntypes) {
    auto it = bound_.find(j);
    if (it != bound_.end()) return it->second;
    if (ok.empty())
      for (GpuTypeId t = 0; t < ntypes; ++t) ok.push_back(t);
    // SplitMix64 of (seed, job): one well-mixed draw per job, no std::*_distribution.
    std::uint64_t z = seed_ + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(j) + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const GpuTypeId t = ok[static_cast<std::size_t>(z % ok.size())];
    if (k >= bound_.size()) bound_.resize(k + 1, -1);
    bound_[k] = static_cast<int>(t);
    return t;
  }

 private:
  std::uint64_t seed_;
  std::vector<int> bound_;  // [job]: its type, -1 = not drawn yet (a flat table: srsf and afs ask every round)
};

}  // namespace hetsim
