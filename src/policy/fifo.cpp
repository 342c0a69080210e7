// fifo: first in, first out, strictly. The job at the head of the queue blocks everyone behind it
// (no backfilling), the classic baseline of cluster-scheduling papers (e.g. the FIFO baseline in
// Tiresias, NSDI'19, and Gavel, OSDI'20). Non-preemptive; rigid: a job gets exactly the GPUs it
// asked for, all of one type.
#include <fmt/format.h>

#include "gavel_fifo.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "share_tally.hpp"

namespace hetsim {
namespace {

enum class TypeChoice { First, Fastest };

class FifoPolicy final : public SchedulingPolicy {
 public:
  explicit FifoPolicy(TypeChoice choice) : choice_(choice) {}
  std::string name() const override { return "fifo"; }

  Decision schedule(const PolicyView& ctx) override {
    Decision d;
    std::vector<int> free(ctx.cluster().gpu_types().size());
    for (std::size_t t = 0; t < free.size(); ++t) free[t] = ctx.state().free_of_type(static_cast<GpuTypeId>(t));
    policy_detail::ShareTally shares(ctx.state());
    for (JobIndex j : ctx.pending()) {
      const JobSpec& spec = *ctx.job(j).spec;
      const bool share = shares_gpu(spec);
      GpuTypeId pick = -1;
      double best = 0.0;
      for (std::size_t t = 0; t < free.size(); ++t) {
        auto type = static_cast<GpuTypeId>(t);
        // A fraction of a GPU also fits on a shared GPU with room (ShareTally: the mechanism's rule).
        if (share ? !shares.fits(type, spec.gpu_milli, free[t]) : free[t] < spec.requested_gpus) continue;
        double rate = ctx.rate_on_type(spec, type, spec.requested_gpus);
        if (!(rate > 0.0)) continue;
        if (pick < 0 || (choice_ == TypeChoice::Fastest && rate > best)) {
          pick = type;
          best = rate;
        }
        if (choice_ == TypeChoice::First) break;
      }
      if (pick < 0) break;  // the head blocks the queue
      if (share)
        shares.take(pick, spec.gpu_milli, free[static_cast<std::size_t>(pick)]);
      else
        free[static_cast<std::size_t>(pick)] -= spec.requested_gpus;
      d.allocate.push_back({j, pick, spec.requested_gpus, {}});
    }
    return d;
  }

 private:
  TypeChoice choice_;
};

}  // namespace

void register_fifo(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "fifo",
      "strict arrival order, no backfilling: the head of the queue blocks; non-preemptive, rigid",
      "classic FIFO baseline (as in Tiresias, NSDI'19; Gavel, OSDI'20)",
      {{"gpu_type", "auto",
        "GPU type for the head job: 'first' = first type in cluster order with enough free GPUs "
        "(heterogeneity-agnostic), 'fastest' = the type with the highest throughput for it; 'auto' = "
        "'first' under the event mechanism and Gavel's own FIFO choice under --mechanism gavel"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        const std::string& v = param_string(p, "gpu_type");
        if (v != "first" && v != "fastest" && v != "auto")
          throw InputError("", 0, "--param gpu_type",
                           fmt::format("expected 'auto', 'first' or 'fastest', got '{}'", v));
        return std::make_unique<FifoPolicy>(v == "fastest" ? TypeChoice::Fastest : TypeChoice::First);
      },
      // Under --mechanism gavel: Gavel's FIFO (base mode), or FIFO_Perf with gpu_type=fastest.
      [](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<AllocationPolicy> {
        const std::string& v = param_string(p, "gpu_type");
        if (v != "auto" && v != "fastest")
          throw InputError("", 0, "--param gpu_type",
                           fmt::format("under --mechanism gavel fifo takes 'auto' or 'fastest', got '{}'", v));
        return make_gavel_fifo_allocation(v == "fastest", seed);
      }});
}

}  // namespace hetsim
