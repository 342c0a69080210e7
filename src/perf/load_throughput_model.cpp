#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hetsim/perf/elasticflow_table.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

ThroughputFile read_throughput_file(const std::string& path) {
  if (path.empty()) throw InputError("", 0, "--throughputs", "the path is empty");
  if (ElasticFlowThroughputTable::is_profile_dir(path)) return {"elasticflow-table", nullptr};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, 0, "--throughputs", "no such file or folder");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "--throughputs",
                     "a folder, but not an ElasticFlow profile folder (expected throughputs_<GPU>/<model>.csv); "
                     "other throughput tables are JSON files");
  // Parsed once: the Gavel loader takes this document (the Heet and job-types readers parse their
  // small files again, which keeps each of them usable on its own).
  auto root = std::make_shared<const nlohmann::json>(parse_json_file(path));
  if (!root->is_object())
    throw InputError(path, 0, "", "a throughput file must be a JSON object (a Gavel table, a Heet profile or a job-types file)");
  if (root->contains("job_types")) return {"job-types", std::move(root)};
  if (is_heet_profile_json(*root)) return {"heet-profile", std::move(root)};
  return {"gavel-table", std::move(root)};
}

std::string throughput_file_kind(const std::string& path) { return read_throughput_file(path).kind; }

std::unique_ptr<ThroughputModel> load_throughput_model(const std::string& path, const Cluster& cluster,
                                                       bool spread_unconsolidated) {
  if (path.empty()) return std::make_unique<DurationModel>(cluster);
  return load_throughput_model(read_throughput_file(path), path, cluster, spread_unconsolidated);
}

std::unique_ptr<ThroughputModel> load_throughput_model(const ThroughputFile& file, const std::string& path,
                                                       const Cluster& cluster, bool spread_unconsolidated) {
  if (file.kind == "elasticflow-table") return ElasticFlowThroughputTable::load(path, cluster);
  if (file.kind == "heet-profile") return HeetProfileTable::load(path, cluster);
  // A job-types file is read as a Gavel table here (and fails there, naming the file), as before:
  // only make_throughput_model turns it into the analytic model.
  if (!file.root) throw std::logic_error("load_throughput_model: a JSON kind without its document");
  return GavelThroughputTable::from_json(path, *file.root, cluster, spread_unconsolidated);
}

}  // namespace hetsim
