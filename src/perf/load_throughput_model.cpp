#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetsim/perf/elasticflow_table.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

std::string throughput_file_kind(const std::string& path) {
  if (path.empty()) throw InputError("", 0, "--throughputs", "the path is empty");
  if (ElasticFlowThroughputTable::is_profile_dir(path)) return "elasticflow-table";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, 0, "--throughputs", "no such file or folder");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "--throughputs",
                     "a folder, but not an ElasticFlow profile folder (expected throughputs_<GPU>/<model>.csv); "
                     "other throughput tables are JSON files");
  // Parsed here only to tell the formats apart; the chosen loader parses again, which costs a few
  // milliseconds for Gavel's 1.2 MB table and keeps each loader usable on its own.
  const nlohmann::json root = parse_json_file(path);
  if (!root.is_object())
    throw InputError(path, 0, "", "a throughput file must be a JSON object (a Gavel table, a Heet profile or a job-types file)");
  if (root.contains("job_types")) return "job-types";
  if (is_heet_profile_json(root)) return "heet-profile";
  return "gavel-table";
}

std::unique_ptr<ThroughputModel> load_throughput_model(const std::string& path, const Cluster& cluster,
                                                       bool spread_unconsolidated) {
  if (path.empty()) return std::make_unique<DurationModel>(cluster);
  const std::string kind = throughput_file_kind(path);
  if (kind == "elasticflow-table") return ElasticFlowThroughputTable::load(path, cluster);
  if (kind == "heet-profile") return HeetProfileTable::load(path, cluster);
  // A job-types file is read as a Gavel table here (and fails there, naming the file), as before:
  // only make_throughput_model turns it into the analytic model.
  return GavelThroughputTable::load(path, cluster, spread_unconsolidated);
}

}  // namespace hetsim
