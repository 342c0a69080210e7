#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetsim/perf/elasticflow_table.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

std::unique_ptr<ThroughputModel> load_throughput_model(const std::string& path, const Cluster& cluster,
                                                       bool spread_unconsolidated) {
  if (path.empty()) return std::make_unique<DurationModel>(cluster);
  if (ElasticFlowThroughputTable::is_profile_dir(path)) return ElasticFlowThroughputTable::load(path, cluster);
  // Parsed here only to tell the formats apart; the chosen loader parses again, which costs a few
  // milliseconds for Gavel's 1.2 MB table and keeps each loader usable on its own.
  const nlohmann::json root = parse_json_file(path);
  if (!root.is_object())
    throw InputError(path, 0, "", "a throughput file must be a JSON object (a Gavel table or a Heet profile)");
  if (is_heet_profile_json(root)) return HeetProfileTable::load(path, cluster);
  return GavelThroughputTable::load(path, cluster, spread_unconsolidated);
}

}  // namespace hetsim
