// `hetsim list`: what hetsim knows by name (policies with their parameters and sources, cluster
// presets, trace formats, placement policies).
#include <fmt/core.h>
#include <memory>

#include "commands.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim::app {

Action add_list_command(CLI::App& app, const PolicyRegistry& registry) {
  auto what = std::make_shared<std::string>("policies");
  CLI::App* cmd = app.add_subcommand("list", "List policies, presets, formats or placements");
  cmd->add_option("what", *what, "policies | presets | formats | placements")->capture_default_str();
  return [what, &registry]() -> int {
    if (*what == "policies") {
      for (const PolicyInfo& p : registry.all()) {
        fmt::print("{}\n  {}\n  source: {}\n", p.name, p.summary, p.source);
        for (const PolicyParamInfo& param : p.params)
          fmt::print("  --param {}={}  {}\n", param.name, param.default_value, param.help);
      }
    } else if (*what == "presets") {
      for (const auto& [name, description] : list_presets()) fmt::print("{:<14} {}\n", name, description);
    } else if (*what == "formats") {
      fmt::print("native   hetsim's CSV with a header (docs/trace-format.md)\n"
                 "gavel    Gavel .trace files (7, 10 or 12 tab-separated fields)\n"
                 "philly   Philly jobs as flattened by the Pollux authors (philly.csv)\n"
                 "heet     Heet prototype trace.dat (arrival round, model, epochs, GPUs, batch)\n"
                 "pollux   Pollux/Sia workload CSV (name,time,application,num_replicas,batch_size)\n"
                 "alibaba-openb  Alibaba OpenB pod list (openb_pod_list_*.csv); CPU-only pods skipped and counted\n"
                 "itp      Microsoft ITP trace (raw or ElasticFlow's), work = duration\n"
                 "itp-ef   ElasticFlow's ITP trace, work = num_iteration (with --throughputs elasticflow-profiles)\n"
                 "clusters: --cluster alibaba-openb:CSV | alibaba-pai:CSV | alibaba-spot:CSV imports a node inventory\n");
    } else if (*what == "placements") {
      for (const auto& name : placement_names()) fmt::print("{}\n", name);
    } else {
      throw InputError("", 0, "list", "unknown list '" + *what + "' (policies, presets, formats, placements)");
    }
    return kOk;
  };
}

}  // namespace hetsim::app
