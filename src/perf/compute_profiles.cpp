// Compute profiles for the analytic model: Gavel's measured single-GPU throughputs
// (stanford-futuredata/gavel, scheduler/simulation_throughputs.json) and hetsim's job-types JSON.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

#include "hetsim/perf/analytic_model.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

using nlohmann::json;

// fp32 parameter counts of Gavel's job families, times 4 bytes. Estimated from the architectures
// Gavel's workloads run (docs/models.md gives the derivation of each).
struct FamilyBytes {
  const char* family;
  double bytes;
};
constexpr FamilyBytes kGavelFamilies[] = {
    {"ResNet-18", 11.17e6 * 4},       // CIFAR-10 ResNet-18 (kuangliu/pytorch-cifar): 11.17 M
    {"ResNet-50", 25.56e6 * 4},       // torchvision resnet50: 25.56 M
    {"Transformer", 49.0e6 * 4},      // base Transformer on Multi30k (6+6 layers, d=512): ~49 M
    {"LM", 13.99e6 * 4},              // word_language_model LSTM, 2 x 200, Wikitext-2 vocab 33,278: ~14 M
    {"Recommendation", 24.5e6 * 4},   // autoencoder 20,108 -> 600 -> 200 -> 600 -> 20,108 on ML-20M: ~24.5 M
    {"A3C", 0.59e6 * 4},              // pytorch-a3c actor-critic, 4 conv + LSTM(288, 256): ~0.59 M
    {"CycleGAN", 28.3e6 * 4},         // 2 ResNet-9 generators (11.38 M) + 2 PatchGAN discriminators (2.77 M)
};

class GavelComputeProfile final : public ComputeProfile {
 public:
  GavelComputeProfile(std::unique_ptr<GavelThroughputTable> table, std::string path)
      : table_(std::move(table)), path_(std::move(path)) {}
  std::string source() const override { return path_; }
  double step_time_s(const JobSpec& job, GpuTypeId type) const override {
    JobSpec one = job;
    one.requested_gpus = 1;
    const double steps_per_s = table_->rate(one, AllocationShape{type, 1, true});
    return steps_per_s > 0.0 ? 1.0 / steps_per_s : 0.0;
  }
  std::optional<double> gradient_bytes(const JobSpec& job) const override { return gavel_gradient_bytes(job.job_type); }

 private:
  std::unique_ptr<GavelThroughputTable> table_;
  std::string path_;
};

class JobTypesProfile final : public ComputeProfile {
 public:
  JobTypesProfile(std::map<std::string, JobTypeProfileEntry> entries, std::string path)
      : entries_(std::move(entries)), path_(std::move(path)) {}
  std::string source() const override { return path_; }
  double step_time_s(const JobSpec& job, GpuTypeId type) const override {
    auto it = entries_.find(job.job_type);
    if (it == entries_.end() || type < 0 || static_cast<std::size_t>(type) >= it->second.step_time_s.size()) return 0.0;
    return it->second.step_time_s[static_cast<std::size_t>(type)];
  }
  std::optional<double> gradient_bytes(const JobSpec& job) const override {
    auto it = entries_.find(job.job_type);
    if (it == entries_.end()) return std::nullopt;
    return it->second.gradient_bytes;
  }

 private:
  std::map<std::string, JobTypeProfileEntry> entries_;
  std::string path_;
};

double positive_number(const json& v, const std::string& path, const std::string& field) {
  if (!v.is_number()) throw InputError(path, 0, field, fmt::format("expected a number, got {}", v.type_name()));
  const double d = v.get<double>();
  if (!(d > 0.0) || !std::isfinite(d)) throw InputError(path, 0, field, fmt::format("must be positive, got {}", v.dump()));
  return d;
}

}  // namespace

std::unique_ptr<ComputeProfile> make_job_types_profile(std::map<std::string, JobTypeProfileEntry> entries,
                                                       std::string source) {
  return std::make_unique<JobTypesProfile>(std::move(entries), std::move(source));
}

std::optional<double> gavel_gradient_bytes(const std::string& job_type) {
  // The family is the job type up to " (batch size ...)".
  const std::string family = job_type.substr(0, job_type.find(" ("));
  for (const FamilyBytes& f : kGavelFamilies)
    if (family == f.family) return f.bytes;
  return std::nullopt;
}

std::unique_ptr<ComputeProfile> load_gavel_compute_profile(const std::string& path, const Cluster& cluster) {
  return std::make_unique<GavelComputeProfile>(GavelThroughputTable::load(path, cluster), path);
}

std::unique_ptr<ComputeProfile> load_job_types_profile(const std::string& path, const Cluster& cluster) {
  const json root = parse_json_file(path);
  if (!root.is_object()) throw InputError(path, 0, "", "a job-types file must be a JSON object");
  for (const auto& [key, value] : root.items())
    if (key != "job_types") throw InputError(path, 0, key, "unknown key; expected: job_types");
  const auto types = root.find("job_types");
  if (types == root.end() || !types->is_object() || types->empty())
    throw InputError(path, 0, "job_types", "must be a non-empty object keyed by job type");
  std::map<std::string, JobTypeProfileEntry> entries;
  for (const auto& [name, spec] : types->items()) {
    const std::string at = "job_types." + name;
    if (!spec.is_object()) throw InputError(path, 0, at, "expected an object with gradient_bytes and step_time_s");
    for (const auto& [key, value] : spec.items())
      if (key != "gradient_bytes" && key != "step_time_s")
        throw InputError(path, 0, at + "." + key, "unknown key; expected one of: gradient_bytes, step_time_s");
    JobTypeProfileEntry entry;
    const auto bytes = spec.find("gradient_bytes");
    if (bytes == spec.end()) throw InputError(path, 0, at + ".gradient_bytes", "missing");
    entry.gradient_bytes = positive_number(*bytes, path, at + ".gradient_bytes");
    const auto steps = spec.find("step_time_s");
    if (steps == spec.end() || !steps->is_object() || steps->empty())
      throw InputError(path, 0, at + ".step_time_s", "must be a non-empty object keyed by GPU type");
    entry.step_time_s.assign(cluster.gpu_types().size(), 0.0);
    for (const auto& [gpu, t] : steps->items()) {
      const double s = positive_number(t, path, at + ".step_time_s." + gpu);
      // GPU types the cluster lacks are allowed: one file can serve several clusters.
      if (const auto type = cluster.find_gpu_type(gpu)) entry.step_time_s[static_cast<std::size_t>(*type)] = s;
    }
    entries.emplace(name, std::move(entry));
  }
  return make_job_types_profile(std::move(entries), path);
}

}  // namespace hetsim
