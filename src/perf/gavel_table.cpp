#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <map>
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

// Sets the steps/s of `scale_factor`, keeping the curve sorted; a repeated key keeps the last value.
void set_rate(std::vector<std::pair<int, double>>& curve, int scale_factor, double steps_per_s) {
  auto it = std::lower_bound(curve.begin(), curve.end(), std::pair{scale_factor, -1.0});
  if (it != curve.end() && it->first == scale_factor)
    it->second = steps_per_s;
  else
    curve.insert(it, {scale_factor, steps_per_s});
}

// One co-location entry read from the file, before its job types are interned.
struct RawPair {
  GpuTypeId type;
  std::string job_type, other_type;
  int scale_factor;
  double rate, other_rate;
};

// Checks one co-location entry "('<other>', <sf>)": [rate of this job, rate of the other] (Gavel's
// layout, SOURCES.md GAVEL-TPUT) of `key`'s job, whose solo rate is `solo`, within GPU section
// `section`. Each rate must be a finite number >= 0; when the other job has a "null" entry in the
// same section (else the entry is unusable and skipped), the pair's two rates may not exceed the
// two solo rates together (sum of
// steps/s; the literal rule of issue 17; the shipped table never comes near it). Appends the entry
// to `out` when `type` is set (a consolidated section of a type the cluster has).
void read_pair(const std::string& path, const std::string& field, const nlohmann::json& section,
               const std::string& other_key, const nlohmann::json& value, double solo, std::optional<GpuTypeId> type,
               const std::string& job_type, int scale_factor, std::vector<RawPair>& out) {
  auto [other_type, other_sf] = parse_key(other_key, path, field);
  if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_number())
    throw InputError(path, 0, field,
                     fmt::format("a co-location entry must be [rate of this job, rate of the other] (steps/s), got {}",
                                 value.dump()));
  const double rate = value[0].get<double>(), other_rate = value[1].get<double>();
  if (!std::isfinite(rate) || !std::isfinite(other_rate) || rate < 0.0 || other_rate < 0.0)
    throw InputError(path, 0, field, fmt::format("co-location rates must be finite numbers >= 0, got {}", value.dump()));
  // An entry for a job the section does not list cannot be used (or checked): it is skipped.
  const auto partner = section.find(other_key);
  if (partner == section.end() || !partner->is_object() || !partner->contains("null") || !(*partner)["null"].is_number())
    return;
  const double other_solo = (*partner)["null"].get<double>();
  if (rate + other_rate > (solo + other_solo) * (1.0 + 1e-9))
    throw InputError(path, 0, field,
                     fmt::format("pair rates {:g} + {:g} steps/s exceed the two jobs' solo rates {:g} + {:g}", rate,
                                 other_rate, solo, other_solo));
  if (type && other_sf == scale_factor)
    out.push_back({*type, job_type, std::move(other_type), scale_factor, rate, other_rate});
}

}  // namespace

std::unique_ptr<GavelThroughputTable> GavelThroughputTable::load(const std::string& path, const Cluster& cluster,
                                                                 bool spread_unconsolidated) {
  return load(path, read_file(path), cluster, spread_unconsolidated);
}

std::unique_ptr<GavelThroughputTable> GavelThroughputTable::load(const std::string& path, std::string_view text,
                                                                 const Cluster& cluster, bool spread_unconsolidated) {
  return from_json(path, parse_json_text(path, text), cluster, spread_unconsolidated);
}

std::unique_ptr<GavelThroughputTable> GavelThroughputTable::from_json(const std::string& path, const nlohmann::json& root,
                                                                      const Cluster& cluster,
                                                                      bool spread_unconsolidated) {
  if (!root.is_object()) throw InputError(path, 0, "", "a Gavel throughput table must be a JSON object keyed by GPU type");

  auto table = std::make_unique<GavelThroughputTable>();
  table->path_ = path;
  table->spread_unconsolidated_ = spread_unconsolidated;
  const std::size_t types = cluster.gpu_types().size();
  table->consolidated_.assign(types, {});
  table->unconsolidated_.assign(types, {});

  std::vector<RawPair> raw_pairs;
  std::map<std::string, std::string> sections;  // lower-case key -> the key as written
  for (const auto& [gpu_key, entries] : root.items()) {
    // GPU types match case-insensitively, so "v100" and "V100" are one section given twice.
    if (auto [at, added] = sections.try_emplace(to_lower(gpu_key), gpu_key); !added)
      throw InputError(path, 0, gpu_key,
                       fmt::format("GPU type section given twice (also as '{}'; GPU types match case-insensitively)",
                                   at->second));
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
    table->table_gpu_types_.insert(gpu_name);
    for (const auto& [key, value] : entries.items()) {
      const std::string field = gpu_key + "/" + key;
      auto [job_type, scale_factor] = parse_key(key, path, field);
      if (!value.is_object()) throw InputError(path, 0, field, "expected an object with a \"null\" entry");
      // "null" is the job running alone; the other entries are co-location pairs (read_pair).
      const auto isolated = value.find("null");
      if (isolated == value.end()) throw InputError(path, 0, field, "missing the \"null\" (isolated throughput) entry");
      if (!isolated->is_number())
        throw InputError(path, 0, field, fmt::format("\"null\" must be a number (steps/s), got {}", isolated->dump()));
      const double steps_per_s = isolated->get<double>();
      if (!std::isfinite(steps_per_s) || steps_per_s < 0.0)
        throw InputError(path, 0, field, fmt::format("\"null\" must be a non-negative number (steps/s), got {}", steps_per_s));
      for (const auto& [other_key, pair] : value.items())
        if (other_key != "null")
          read_pair(path, field + "/" + other_key, entries, other_key, pair, steps_per_s,
                    unconsolidated ? std::nullopt : type, job_type, scale_factor, raw_pairs);
      if (!type) continue;
      auto [index, added] = table->job_type_index_.try_emplace(job_type, static_cast<int>(table->job_type_names_.size()));
      if (added) table->job_type_names_.push_back(std::move(job_type));
      auto& target = unconsolidated ? table->unconsolidated_ : table->consolidated_;
      auto& curves = target[static_cast<std::size_t>(*type)];
      if (curves.size() <= static_cast<std::size_t>(index->second)) curves.resize(static_cast<std::size_t>(index->second) + 1);
      set_rate(curves[static_cast<std::size_t>(index->second)], scale_factor, steps_per_s);
    }
  }
  for (auto* target : {&table->consolidated_, &table->unconsolidated_})
    for (auto& curves : *target) curves.resize(table->job_type_names_.size());
  // Both job types of a kept entry are in the same section of a cluster type, so both are interned.
  for (const RawPair& p : raw_pairs)
    table->pairs_[{static_cast<int>(p.type), table->job_type_index_.at(p.job_type),
                   table->job_type_index_.at(p.other_type), p.scale_factor}] = {p.rate, p.other_rate};
  return table;
}

namespace {
// Exact entry, or nullopt.
std::optional<double> exact(const std::vector<std::pair<int, double>>& curve, int scale_factor) {
  auto it = std::lower_bound(curve.begin(), curve.end(), std::pair{scale_factor, -1.0});
  if (it != curve.end() && it->first == scale_factor) return it->second;
  return std::nullopt;
}
// The entry of the largest measured scale factor m < n with non-zero throughput, scaled by n/m
// (ideal data-parallel scaling beyond the last measurement), or nullopt.
std::optional<double> extrapolated(const std::vector<std::pair<int, double>>& curve, int scale_factor) {
  auto it = std::lower_bound(curve.begin(), curve.end(), std::pair{scale_factor, -1.0});
  while (it != curve.begin()) {
    --it;
    if (it->second > 0.0) return it->second * scale_factor / it->first;
  }
  return std::nullopt;
}
}  // namespace

int GavelThroughputTable::job_type_index(const JobSpec& job) const {
  if (auto hit = resolved_.find(&job); hit != resolved_.end() && job_type_names_[static_cast<std::size_t>(hit->second)] == job.job_type)
    return hit->second;
  const auto it = job_type_index_.find(job.job_type);
  if (it == job_type_index_.end()) return -1;
  resolved_[&job] = it->second;
  return it->second;
}

double GavelThroughputTable::rate(const JobSpec& job, const AllocationShape& shape) const {
  if (shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= consolidated_.size() || shape.gpu_count <= 0)
    return 0.0;
  const int index = job_type_index(job);
  if (index < 0) return 0.0;
  const auto t = static_cast<std::size_t>(shape.gpu_type);
  const Curve& packed = consolidated_[t][static_cast<std::size_t>(index)];
  const Curve& unpacked = unconsolidated_[t][static_cast<std::size_t>(index)];
  const int n = shape.gpu_count;
  // Measured values first (the unconsolidated variant when the GPUs span nodes), then the
  // documented extrapolation from the largest smaller measured scale factor.
  const bool spread = !shape.consolidated && spread_unconsolidated_;
  if (spread)
    if (auto v = exact(unpacked, n)) return *v;
  if (auto v = exact(packed, n)) return *v;
  if (spread)
    if (auto v = extrapolated(unpacked, n)) return *v;
  if (auto v = extrapolated(packed, n)) return *v;
  return 0.0;
}

std::optional<std::pair<double, double>> GavelThroughputTable::pair_rates(const JobSpec& a, const JobSpec& b,
                                                                           GpuTypeId type, int scale_factor) const {
  const int ia = job_type_index(a), ib = job_type_index(b);
  if (ia < 0 || ib < 0) return std::nullopt;
  auto it = pairs_.find({static_cast<int>(type), ia, ib, scale_factor});
  if (it == pairs_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> GavelThroughputTable::check_job(const JobSpec& job, const Cluster& cluster) const {
  if (job.unit != WorkUnit::Iterations)
    return fmt::format("job {}: gavel-table needs work in iterations, but the job's work is in {}", job.id,
                       to_string(job.unit));
  const int index = job_type_index(job);
  for (std::size_t t = 0; t < cluster.gpu_types().size() && t < consolidated_.size(); ++t) {
    auto type = static_cast<GpuTypeId>(t);
    AllocationShape shape{type, job.requested_gpus, job.requested_gpus <= cluster.max_gpus_per_node(type)};
    if (rate(job, shape) > 0.0) return std::nullopt;
  }
  bool listed = false;
  std::set<int> scale_factors;  // of this job type on the cluster's types, to help fix the trace
  for (std::size_t t = 0; t < cluster.gpu_types().size() && t < consolidated_.size(); ++t) {
    if (index < 0) break;
    for (const auto* curves : {&consolidated_[t], &unconsolidated_[t]}) {
      const Curve& curve = (*curves)[static_cast<std::size_t>(index)];
      if (auto v = exact(curve, job.requested_gpus)) {
        listed = true;
        if (*v > 0.0) return std::nullopt;
      }
      for (const auto& [sf, v] : curve)
        if (v > 0.0) scale_factors.insert(sf);
    }
  }
  if (listed)
    return fmt::format("job {}: job type '{}' with scale factor {} has zero throughput on every GPU type of the "
                       "cluster in throughput table {}",
                       job.id, job.job_type, job.requested_gpus, path_);
  std::string hint;
  if (!scale_factors.empty()) hint = fmt::format(" (scale factors it has: {})", fmt::join(scale_factors, ", "));
  // The usual cause on a homogeneous preset (philly-2048's generic 'gpu'): no type in common.
  if (job_type_names_.empty()) {
    std::vector<std::string> in_cluster;
    for (const std::string& t : table_gpu_types_)
      if (cluster.find_gpu_type(t)) in_cluster.push_back(t);
    hint = in_cluster.empty()
               ? fmt::format(" (the table has GPU types {}; none of them is in cluster '{}')",
                             fmt::join(table_gpu_types_, ", "), cluster.name())
               : fmt::format(" (its sections for the cluster's GPU types ({}) hold no entries)", fmt::join(in_cluster, ", "));
  }
  return fmt::format("job {}: job type '{}' with scale factor {} is not in throughput table {}{}", job.id,
                     job.job_type, job.requested_gpus, path_, hint);
}

}  // namespace hetsim
