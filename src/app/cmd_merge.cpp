// `hetsim merge SPEC --out DIR SHARD_DIR...`: joins the output folders of `sweep --shard` runs into
// one folder identical to an unsharded sweep.
#include <fmt/core.h>
#include <memory>

#include "commands.hpp"
#include "hetsim/experiment/sweep.hpp"

namespace hetsim::app {
namespace {

struct MergeOptions {
  std::string spec;
  std::string out;
  std::vector<std::string> shards;
};

}  // namespace

Action add_merge_command(CLI::App& app, const PolicyRegistry& registry) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand("merge", "Join the output folders of sharded sweeps (sweep --shard I/N)");
  cmd->add_option("spec", opts->spec, "The experiment spec the shards ran")->required();
  cmd->add_option("shards", opts->shards, "Shard output folders (may include --out itself)");
  cmd->add_option("--out", opts->out, "Merged output folder")->required();
  return [opts, &registry]() -> int {
    const ExperimentSpec spec = load_experiment_spec(opts->spec, registry);
    const auto points = expand_points(spec, registry);
    std::vector<std::string> shards = opts->shards;
    if (shards.empty()) shards.push_back(opts->out);  // shards that all wrote into --out
    const SweepCounts c = merge_sweeps(spec, points, opts->out, shards);
    fmt::print("merge {}: {} points, {} done, {} failed or not run; results: {}/results.csv\n", spec.name,
               c.in_shard, c.done, c.failed, opts->out);
    if (c.failed > 0) {
      fmt::print(stderr, "hetsim: {} points failed or were not run (see {}/failures.csv); exit code {}\n", c.failed,
                 opts->out, static_cast<int>(kPointsFailed));
      return kPointsFailed;
    }
    return kOk;
  };
}

}  // namespace hetsim::app
