#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

const nlohmann::json& require_object(const nlohmann::json& j, const std::string& path, const std::string& field,
                                     const char* what) {
  if (!j.is_object()) throw InputError(path, 0, field, fmt::format("expected an object keyed by {}", what));
  return j;
}

}  // namespace

bool is_heet_profile_json(const nlohmann::json& root) {
  return root.is_object() && (root.contains("epoch_time_s") || root.contains("iteration_time_s") ||
                              (root.contains("keys") && root.contains("cluster")));
}

void require_heet_epoch_times(const nlohmann::json& root, const std::string& path) {
  if (root.contains("epoch_time_s")) return;
  std::vector<std::string> present;
  for (const char* k : {"iteration_time_s", "keys", "cluster", "round_length_s"})
    if (root.contains(k)) present.push_back(fmt::format("'{}'", k));
  throw InputError(path, 0, "epoch_time_s",
                   fmt::format("missing: a Heet profiles.json ({}) needs the section epoch_time_s (gpu type -> model "
                               "-> global batch size -> GPUs -> seconds per epoch); hetsim's rates are "
                               "1 / epoch_time_s",
                               present.empty() ? std::string("no Heet fields found")
                                               : fmt::format("it has {}", fmt::join(present, ", "))));
}

std::unique_ptr<HeetProfileTable> HeetProfileTable::load(const std::string& path, const Cluster& cluster) {
  return load(path, read_file(path), cluster);
}

std::unique_ptr<HeetProfileTable> HeetProfileTable::load(const std::string& path, std::string_view text,
                                                         const Cluster& cluster) {
  const nlohmann::json root = parse_json_text(path, text);
  if (!root.is_object()) throw InputError(path, 0, "", "a Heet profile table must be a JSON object");
  require_heet_epoch_times(root, path);
  const auto epochs = root.find("epoch_time_s");

  auto table = std::make_unique<HeetProfileTable>();
  table->path_ = path;
  table->epoch_time_s_.assign(cluster.gpu_types().size(), {});

  // Every GPU section is validated even when the cluster lacks that type, so a broken file fails
  // the same way whatever cluster it is paired with.
  for (const auto& [gpu, models] : require_object(*epochs, path, "epoch_time_s", "GPU type").items()) {
    const std::string gpu_field = "epoch_time_s/" + gpu;
    const std::optional<GpuTypeId> type = cluster.find_gpu_type(gpu);
    for (const auto& [model, batches] : require_object(models, path, gpu_field, "model").items()) {
      const std::string model_field = gpu_field + "/" + model;
      for (const auto& [batch_text, counts] : require_object(batches, path, model_field, "global batch size").items()) {
        const std::string batch_field = model_field + "/" + batch_text;
        const long long batch = parse_int(batch_text, SourcePos{path, 0, batch_field});
        if (batch <= 0 || batch > 1'000'000'000)
          throw InputError(path, 0, batch_field, "global batch size must be a positive integer");
        for (const auto& [gpus_text, seconds] : require_object(counts, path, batch_field, "GPU count").items()) {
          const std::string field = batch_field + "/" + gpus_text;
          const long long gpus = parse_int(gpus_text, SourcePos{path, 0, field});
          if (gpus <= 0 || gpus > 1'000'000) throw InputError(path, 0, field, "GPU count must be a positive integer");
          if (!seconds.is_number())
            throw InputError(path, 0, field, fmt::format("epoch time must be a number (s), got {}", seconds.dump()));
          const double s = seconds.get<double>();
          // The rate is 1/s, so zero or negative times have no meaning (unlike Gavel's 0 = cannot run).
          if (!std::isfinite(s) || s <= 0.0)
            throw InputError(path, 0, field, fmt::format("epoch time must be a positive number (s), got {}", s));
          if (!type) continue;
          table->epoch_time_s_[static_cast<std::size_t>(*type)][Key{model, static_cast<int>(batch), static_cast<int>(gpus)}] = s;
        }
      }
    }
  }
  return table;
}

double HeetProfileTable::rate(const JobSpec& job, const AllocationShape& shape) const {
  if (shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= epoch_time_s_.size()) return 0.0;
  // shape.consolidated is deliberately ignored: the profile only has single-host runs (see header).
  const auto& times = epoch_time_s_[static_cast<std::size_t>(shape.gpu_type)];
  auto it = times.find(Key{job.job_type, job.global_batch_size, shape.gpu_count});
  return it == times.end() ? 0.0 : 1.0 / it->second;
}

std::optional<std::string> HeetProfileTable::check_job(const JobSpec& job, const Cluster& cluster) const {
  if (job.unit != WorkUnit::Epochs)
    return fmt::format("job {}: heet-profile needs work in epochs, but the job's work is in {}", job.id,
                       to_string(job.unit));
  if (job.global_batch_size <= 0)
    return fmt::format("job {}: heet-profile selects the profile by global batch size, and the job has none", job.id);
  const Key key{job.job_type, job.global_batch_size, job.requested_gpus};
  for (std::size_t t = 0; t < cluster.gpu_types().size() && t < epoch_time_s_.size(); ++t)
    if (epoch_time_s_[t].contains(key)) return std::nullopt;
  return fmt::format("job {}: model '{}' with global batch size {} on {} GPU(s) is not in profile table {} for any "
                     "GPU type of the cluster",
                     job.id, job.job_type, job.global_batch_size, job.requested_gpus, path_);
}

}  // namespace hetsim
