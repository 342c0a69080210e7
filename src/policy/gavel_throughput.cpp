// gavel-throughput: maximum total normalised throughput, after Gavel's ThroughputSumWithPerf
// (Narayanan et al., OSDI'20, section 4.2; stanford-futuredata/gavel,
// scheduler/policies/max_sum_throughput.py). Gavel sums raw steps/s, which lets a model with
// cheap steps dominate; hetsim normalises each job by its best throughput (the issue's
// "normalised throughput"):  maximise sum_i sum_t x[i][t] T[i][t] / max_t T[i][t]  under the base
// constraints. normalize=none gives Gavel's raw objective.
#include <algorithm>
#include <fmt/format.h>

#include "allocation_lp.hpp"
#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

class GavelThroughput final : public AllocationPolicy {
 public:
  explicit GavelThroughput(bool normalize) : normalize_(normalize) {}
  std::string name() const override { return "gavel-throughput"; }

  AllocationResult allocate(const AllocationView& view) override {
    if (view.jobs.empty()) return {};
    BaseLp base = make_base_lp(view, LinearProgram::Sense::Maximize);
    for (std::size_t i = 0; i < view.jobs.size(); ++i) {
      const auto& tput = view.jobs[i].throughput;
      double best = *std::max_element(tput.begin(), tput.end());
      for (std::size_t t = 0; t < tput.size(); ++t)
        base.lp.set_objective(base.var[i][t], normalize_ ? (best > 0 ? tput[t] / best : 0.0) : tput[t]);
    }
    return solve_allocation(view, name(), base);
  }

 private:
  bool normalize_;
};

}  // namespace

void register_gavel_throughput(PolicyRegistry& registry) {
  PolicyInfo info{"gavel-throughput",
                  "maximum total normalised throughput (LP), round-based time sharing",
                  "Gavel ThroughputSumWithPerf (Narayanan et al., OSDI'20)",
                  {{"normalize", "best", "'best' = each job's throughput over its best type's; 'none' = raw steps/s (Gavel)"}},
                  nullptr,
                  nullptr};
  info.make_allocation = [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<AllocationPolicy> {
    const std::string& v = param_string(p, "normalize");
    if (v != "best" && v != "none")
      throw InputError("", 0, "--param normalize", fmt::format("expected best or none, got '{}'", v));
    return std::make_unique<GavelThroughput>(v == "best");
  };
  registry.add(std::move(info));
}

}  // namespace hetsim
