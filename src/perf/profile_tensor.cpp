// Loading measured profiles into the job x GPU type x configuration tensor of Heet's collaborative
// filtering (Mo et al., ASPLOS'24). Rows, GPU types and configurations are kept in a fixed order
// (sorted keys; configurations by GPU count, then label) so every run sees the same tensor.
#include "hetsim/perf/profile_tensor.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"
#include "tensor_builder.hpp"

namespace hetsim {

std::size_t ProfileTensor::measured_count() const {
  return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double v) { return !std::isnan(v); }));
}

namespace {
template <typename T>
std::optional<std::size_t> find_in(const std::vector<T>& v, const T& x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it == v.end()) return std::nullopt;
  return static_cast<std::size_t>(it - v.begin());
}
}  // namespace

std::optional<std::size_t> ProfileTensor::find_job(const std::string& key) const { return find_in(jobs, key); }
std::optional<std::size_t> ProfileTensor::find_gpu(const std::string& name) const { return find_in(gpus, to_lower(name)); }
std::optional<std::size_t> ProfileTensor::find_config(const std::string& label) const { return find_in(configs, label); }

std::string ProfileTensor::describe(std::size_t flat) const {
  const std::size_t k = flat % configs.size();
  const std::size_t j = (flat / configs.size()) % gpus.size();
  const std::size_t i = flat / (configs.size() * gpus.size());
  return fmt::format("{} / {} / {}", jobs[i], gpus[j], configs[k]);
}

std::string row_key(const std::string& model, int batch_size) {
  return batch_size > 0 ? fmt::format("{}@{}", model, batch_size) : model;
}

std::string job_family(const std::string& key) {
  const std::size_t at = key.find('@');
  if (at != std::string::npos && at > 0) return key.substr(0, at);
  const std::size_t paren = key.find(" (batch size");
  if (paren != std::string::npos && paren > 0) return key.substr(0, paren);
  return key;
}

void TensorBuilder::add(const std::string& job, const std::string& gpu, const std::string& config, int config_gpus,
                        double value) {
  configs_[config] = config_gpus;
  auto& cell = cells_[{job, to_lower(gpu), config}];
  cell.first += value;
  cell.second += 1;
  jobs_.insert(job);
  gpus_.insert(to_lower(gpu));
}

void TensorBuilder::add_cannot_run(const std::string& job, const std::string& gpu, const std::string& config,
                                   int config_gpus) {
  configs_[config] = config_gpus;
  zeros_.insert({job, to_lower(gpu), config});
  jobs_.insert(job);
  gpus_.insert(to_lower(gpu));
}

ProfileTensor TensorBuilder::build(std::string source, std::string unit) const {
  ProfileTensor t;
  t.source = std::move(source);
  t.unit = std::move(unit);
  t.jobs.assign(jobs_.begin(), jobs_.end());
  t.gpus.assign(gpus_.begin(), gpus_.end());
  std::vector<std::pair<int, std::string>> cfg;
  for (const auto& [label, n] : configs_) cfg.emplace_back(n, label);
  std::sort(cfg.begin(), cfg.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : (a.second.size() != b.second.size() ? a.second.size() < b.second.size() : a.second < b.second);
  });
  for (const auto& [n, label] : cfg) {
    t.configs.push_back(label);
    t.config_gpus.push_back(n);
  }
  t.values.assign(t.jobs.size() * t.gpus.size() * t.configs.size(), std::numeric_limits<double>::quiet_NaN());
  auto flat = [&](const Cell& c) {
    return t.index(*t.find_job(std::get<0>(c)), *t.find_gpu(std::get<1>(c)), *t.find_config(std::get<2>(c)));
  };
  for (const auto& [cell, sum] : cells_) t.values[flat(cell)] = sum.first / sum.second;
  for (const Cell& c : zeros_)
    if (!cells_.contains(c)) t.cannot_run.push_back(flat(c));
  std::sort(t.cannot_run.begin(), t.cannot_run.end());
  return t;
}

namespace {

void require_object(const nlohmann::json& j, const std::string& path, const std::string& field) {
  if (!j.is_object()) throw InputError(path, 0, field, "expected a JSON object");
}

ProfileTensor heet_from_json(const nlohmann::json& root, const std::string& path) {
  require_heet_epoch_times(root, path);
  const auto epochs = root.find("epoch_time_s");
  require_object(*epochs, path, "epoch_time_s");
  TensorBuilder b;
  for (const auto& [gpu, models] : epochs->items()) {
    require_object(models, path, "epoch_time_s/" + gpu);
    for (const auto& [model, batches] : models.items()) {
      require_object(batches, path, fmt::format("epoch_time_s/{}/{}", gpu, model));
      for (const auto& [batch, counts] : batches.items()) {
        const std::string bf = fmt::format("epoch_time_s/{}/{}/{}", gpu, model, batch);
        require_object(counts, path, bf);
        const long long bs = parse_int(batch, SourcePos{path, 0, bf});
        if (bs <= 0) throw InputError(path, 0, bf, "global batch size must be positive");
        for (const auto& [n, seconds] : counts.items()) {
          const std::string f = bf + "/" + n;
          const long long gpus = parse_int(n, SourcePos{path, 0, f});
          if (gpus <= 0) throw InputError(path, 0, f, "GPU count must be positive");
          if (!seconds.is_number() || !(seconds.get<double>() > 0.0) || !std::isfinite(seconds.get<double>()))
            throw InputError(path, 0, f, fmt::format("epoch time must be a positive number (s), got {}", seconds.dump()));
          b.add(row_key(model, static_cast<int>(bs)), gpu, std::to_string(gpus), static_cast<int>(gpus),
                1.0 / seconds.get<double>());
        }
      }
    }
  }
  return b.build(path, "epochs/s");
}

// Gavel keys are Python reprs of ('<job type>', <scale factor>); see gavel_table.cpp for the
// quoting rules this mirrors.
std::pair<std::string, int> gavel_key(std::string_view key, const std::string& path, const std::string& field) {
  std::string_view k = trim(key);
  if (k.size() < 6 || k.front() != '(' || k.back() != ')' || (k[1] != '\'' && k[1] != '"'))
    throw InputError(path, 0, field, "expected a key like \"('<job type>', <scale factor>)\"");
  const char quote = k[1];
  std::string_view inner = k.substr(2, k.size() - 3);
  const std::size_t close = inner.rfind(std::string{quote} + ",");
  if (close == std::string_view::npos || close == 0)
    throw InputError(path, 0, field, "expected a key like \"('<job type>', <scale factor>)\"");
  const long long sf = parse_int(inner.substr(close + 2), SourcePos{path, 0, field});
  if (sf < 1) throw InputError(path, 0, field, "scale factor must be a positive GPU count");
  return {std::string(inner.substr(0, close)), static_cast<int>(sf)};
}

ProfileTensor gavel_from_json(const nlohmann::json& root, const std::string& path) {
  TensorBuilder b;
  for (const auto& [gpu, entries] : root.items()) {
    require_object(entries, path, gpu);
    if (gpu.ends_with("_unconsolidated")) continue;  // the consolidated table is the profile
    for (const auto& [key, value] : entries.items()) {
      const std::string field = gpu + "/" + key;
      auto [job, sf] = gavel_key(key, path, field);
      if (!value.is_object()) throw InputError(path, 0, field, "expected an object with a \"null\" entry");
      const auto alone = value.find("null");
      if (alone == value.end()) continue;  // only co-located measurements: nothing for an isolated job
      if (!alone->is_number()) throw InputError(path, 0, field + "/null", "throughput must be a number");
      const double v = alone->get<double>();
      if (!std::isfinite(v) || v < 0.0) throw InputError(path, 0, field + "/null", "throughput must be >= 0");
      if (v == 0.0)
        b.add_cannot_run(job, gpu, std::to_string(sf), sf);
      else
        b.add(job, gpu, std::to_string(sf), sf, v);
    }
  }
  return b.build(path, "steps/s");
}

}  // namespace

ProfileTensor load_heet_tensor(const std::string& path) {
  const nlohmann::json root = parse_json_file(path);
  if (!root.is_object()) throw InputError(path, 0, "", "a Heet profile table must be a JSON object");
  return heet_from_json(root, path);
}

ProfileTensor load_gavel_tensor(const std::string& path) {
  const nlohmann::json root = parse_json_file(path);
  if (!root.is_object()) throw InputError(path, 0, "", "a Gavel throughput table must be a JSON object");
  return gavel_from_json(root, path);
}

ProfileTensor load_profile_tensor(const std::string& path) {
  if (std::filesystem::is_directory(path)) {
    const auto t4 = std::filesystem::path(path) / ".." / ".." / "pollux" / "traces";
    return load_sia_tensor(path, std::filesystem::is_directory(t4) ? t4.string() : std::string());
  }
  return load_profile_tensor(path, read_file(path));
}

ProfileTensor load_profile_tensor(const std::string& path, std::string_view text) {
  const nlohmann::json root = parse_json_text(path, text);
  if (!root.is_object()) throw InputError(path, 0, "", "a profile table must be a JSON object");
  return is_heet_profile_json(root) ? heet_from_json(root, path) : gavel_from_json(root, path);
}

}  // namespace hetsim
