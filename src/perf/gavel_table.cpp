#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

constexpr std::string_view kUnconsolidatedSuffix = "_unconsolidated";

// Gavel writes its keys with Python's repr() of a (job_type, scale_factor) tuple, e.g.
// "('Recommendation (batch size 8192)', 4)". Job types contain parentheses and could contain
// commas, so the split is at the last closing quote, not at the first comma. repr() switches to
// double quotes when the string holds a single quote, hence both quote characters.
std::pair<std::string, int> parse_key(std::string_view key, const std::string& path, const std::string& field) {
  auto bad = [&](const std::string& why) {
    return InputError(path, 0, field, fmt::format("expected a key like \"('<job type>', <scale factor>)\": {}", why));
  };
  std::string_view k = trim(key);
  if (k.size() < 6 || k.front() != '(' || k.back() != ')' || (k[1] != '\'' && k[1] != '"'))
    throw bad("not a quoted (job type, scale factor) pair");
  const char quote = k[1];
  std::string_view inner = k.substr(2, k.size() - 3);  // job type + quote + ", <sf>"
  const std::size_t close = inner.rfind(std::string{quote} + ",");
  if (close == std::string_view::npos) throw bad("no scale factor after the job type");
  std::string job_type(inner.substr(0, close));
  if (job_type.empty()) throw bad("empty job type");
  const long long sf = parse_int(inner.substr(close + 2), SourcePos{path, 0, field});
  if (sf < 1 || sf > 1'000'000) throw bad(fmt::format("scale factor {} is not a positive GPU count", sf));
  return {std::move(job_type), static_cast<int>(sf)};
}

}  // namespace

std::unique_ptr<GavelThroughputTable> GavelThroughputTable::load(const std::string& path, const Cluster& cluster,
                                                                 bool spread_unconsolidated) {
  const nlohmann::json root = parse_json_file(path);
  if (!root.is_object()) throw InputError(path, 0, "", "a Gavel throughput table must be a JSON object keyed by GPU type");

  auto table = std::make_unique<GavelThroughputTable>();
  table->path_ = path;
  table->spread_unconsolidated_ = spread_unconsolidated;
  const std::size_t types = cluster.gpu_types().size();
  table->consolidated_.assign(types, {});
  table->unconsolidated_.assign(types, {});

  for (const auto& [gpu_key, entries] : root.items()) {
    // Validate every GPU section, including ones the cluster lacks: a broken table should fail
    // the same way whatever cluster it is paired with.
    if (!entries.is_object())
      throw InputError(path, 0, gpu_key, "expected an object of \"('<job type>', <scale factor>)\" entries");
    std::string gpu_name = gpu_key;
    bool unconsolidated = false;
    if (gpu_name.size() > kUnconsolidatedSuffix.size() && gpu_name.ends_with(kUnconsolidatedSuffix)) {
      gpu_name.resize(gpu_name.size() - kUnconsolidatedSuffix.size());
      unconsolidated = true;
    }
    const std::optional<GpuTypeId> type = cluster.find_gpu_type(gpu_name);
    for (const auto& [key, value] : entries.items()) {
      const std::string field = gpu_key + "/" + key;
      auto [job_type, scale_factor] = parse_key(key, path, field);
      if (!value.is_object()) throw InputError(path, 0, field, "expected an object with a \"null\" entry");
      // "null" is the job running alone; the other entries are co-location pairs, not modelled yet.
      const auto isolated = value.find("null");
      if (isolated == value.end()) throw InputError(path, 0, field, "missing the \"null\" (isolated throughput) entry");
      if (!isolated->is_number())
        throw InputError(path, 0, field, fmt::format("\"null\" must be a number (steps/s), got {}", isolated->dump()));
      const double steps_per_s = isolated->get<double>();
      if (!std::isfinite(steps_per_s) || steps_per_s < 0.0)
        throw InputError(path, 0, field, fmt::format("\"null\" must be a non-negative number (steps/s), got {}", steps_per_s));
      if (!type) continue;
      auto& target = unconsolidated ? table->unconsolidated_ : table->consolidated_;
      target[static_cast<std::size_t>(*type)][Key{std::move(job_type), scale_factor}] = steps_per_s;
    }
  }
  return table;
}

namespace {
// Exact entry, or nullopt.
template <class Map, class Key>
std::optional<double> exact(const Map& map, const Key& key) {
  if (auto it = map.find(key); it != map.end()) return it->second;
  return std::nullopt;
}
// The entry of the largest measured scale factor m < n with non-zero throughput, scaled by n/m
// (ideal data-parallel scaling beyond the last measurement), or nullopt.
template <class Map, class Key>
std::optional<double> extrapolated(const Map& map, const Key& key) {
  auto it = map.lower_bound(key);
  while (it != map.begin()) {
    --it;
    if (it->first.job_type != key.job_type) break;
    if (it->second > 0.0) return it->second * key.scale_factor / it->first.scale_factor;
  }
  return std::nullopt;
}
}  // namespace

double GavelThroughputTable::rate(const JobSpec& job, const AllocationShape& shape) const {
  if (shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= consolidated_.size() || shape.gpu_count <= 0)
    return 0.0;
  const auto t = static_cast<std::size_t>(shape.gpu_type);
  const Key key{job.job_type, shape.gpu_count};
  // Measured values first (the unconsolidated variant when the GPUs span nodes), then the
  // documented extrapolation from the largest smaller measured scale factor.
  const bool spread = !shape.consolidated && spread_unconsolidated_;
  if (spread)
    if (auto v = exact(unconsolidated_[t], key)) return *v;
  if (auto v = exact(consolidated_[t], key)) return *v;
  if (spread)
    if (auto v = extrapolated(unconsolidated_[t], key)) return *v;
  if (auto v = extrapolated(consolidated_[t], key)) return *v;
  return 0.0;
}

std::optional<std::string> GavelThroughputTable::check_job(const JobSpec& job, const Cluster& cluster) const {
  if (job.unit != WorkUnit::Iterations)
    return fmt::format("job {}: gavel-table needs work in iterations, but the job's work is in {}", job.id,
                       to_string(job.unit));
  const Key key{job.job_type, job.requested_gpus};
  for (std::size_t t = 0; t < cluster.gpu_types().size() && t < consolidated_.size(); ++t) {
    auto type = static_cast<GpuTypeId>(t);
    AllocationShape shape{type, job.requested_gpus, job.requested_gpus <= cluster.max_gpus_per_node(type)};
    if (rate(job, shape) > 0.0) return std::nullopt;
  }
  bool listed = false;
  std::set<int> scale_factors;  // of this job type on the cluster's types, to help fix the trace
  for (std::size_t t = 0; t < cluster.gpu_types().size() && t < consolidated_.size(); ++t) {
    for (const auto* map : {&consolidated_[t], &unconsolidated_[t]}) {
      if (auto it = map->find(key); it != map->end()) {
        listed = true;
        if (it->second > 0.0) return std::nullopt;
      }
      for (const auto& [k, v] : *map)
        if (k.job_type == job.job_type && v > 0.0) scale_factors.insert(k.scale_factor);
    }
  }
  if (listed)
    return fmt::format("job {}: job type '{}' with scale factor {} has zero throughput on every GPU type of the "
                       "cluster in throughput table {}",
                       job.id, job.job_type, job.requested_gpus, path_);
  std::string hint;
  if (!scale_factors.empty()) hint = fmt::format(" (scale factors it has: {})", fmt::join(scale_factors, ", "));
  return fmt::format("job {}: job type '{}' with scale factor {} is not in throughput table {}{}", job.id,
                     job.job_type, job.requested_gpus, path_, hint);
}

}  // namespace hetsim
