// Gavel-style synthetic workloads. Distributions follow Gavel's generator (stanford-futuredata/gavel,
// scheduler/utils.py: _generate_scale_factor, _generate_duration, generate_job; arrivals as in
// scheduler.py _sample_arrival_time_delta); the code is hetsim's own.
#include "hetsim/workload/gavel_generator.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <random>

#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "hetsim/util/parse.hpp"
#include "hetsim/util/random.hpp"

namespace hetsim {
namespace {

// Salts of the two random streams of one seed.
constexpr std::uint64_t kArrivalStream = 1;
constexpr std::uint64_t kJobStream = 2;

// "('<job type>', <n>)" -> (job type, n); false when the key has another shape. Gavel writes
// Python tuple reprs; the job type may itself contain parentheses, so split at the last quote.
bool split_key(std::string_view key, std::string& job_type, int& scale_factor) {
  key = trim(key);
  if (key.size() < 6 || key.front() != '(' || key.back() != ')') return false;
  const char quote = key[1];
  if (quote != '\'' && quote != '"') return false;
  std::string_view inner = key.substr(2, key.size() - 3);
  const std::size_t close = inner.rfind(std::string{quote} + ",");
  if (close == std::string_view::npos || close == 0) return false;
  std::string_view number = trim(inner.substr(close + 2));
  int value = 0;
  for (char c : number) {
    if (c < '0' || c > '9' || value > 100000) return false;
    value = value * 10 + (c - '0');
  }
  if (number.empty() || value < 1) return false;
  job_type.assign(inner.substr(0, close));
  scale_factor = value;
  return true;
}

// Gavel's Philly-derived scale factor: r in [0.7, 0.8] -> 2, (0.8, 0.95] -> 4, above -> 8.
int draw_scale_factor(std::mt19937_64& rng) {
  const double r = uniform01(rng);
  if (r < 0.7) return 1;
  if (r <= 0.8) return 2;
  if (r <= 0.95) return 4;
  return 8;
}

// Gavel's Philly-derived duration in seconds.
double draw_duration_s(std::mt19937_64& rng) {
  const bool long_job = uniform01(rng) >= 0.8;
  const double u = uniform01(rng);
  const double exponent = long_job ? 3.0 + u : 1.5 + 1.5 * u;
  return 60.0 * std::pow(10.0, exponent);
}

}  // namespace

std::vector<GeneratorJobType> read_generator_job_types(const std::string& throughputs_path,
                                                       const std::string& reference_gpu) {
  const nlohmann::ordered_json root = read_json_file(throughputs_path);
  if (!root.is_object()) throw InputError(throughputs_path, 0, "", "a Gavel throughput table must be a JSON object");
  const std::string gpu = to_lower(reference_gpu);
  auto table = root.find(gpu);
  if (table == root.end() || !table->is_object())
    throw InputError(throughputs_path, 0, "generator.reference_gpu",
                     fmt::format("GPU type '{}' is not in this throughput table", reference_gpu));
  std::map<std::string, GeneratorJobType> by_name;
  for (const auto& [key, entry] : table->items()) {
    std::string job_type;
    int scale_factor = 0;
    const std::string field = gpu + "." + key;
    if (!split_key(key, job_type, scale_factor))
      throw InputError(throughputs_path, 0, field, "expected a key like \"('<job type>', <scale factor>)\"");
    if (!entry.is_object() || !entry.contains("null") || !entry["null"].is_number())
      throw InputError(throughputs_path, 0, field, "expected an object with a numeric \"null\" throughput");
    const double rate = entry["null"].get<double>();
    if (!std::isfinite(rate) || rate < 0) throw InputError(throughputs_path, 0, field + ".null", "throughput must be >= 0");
    GeneratorJobType& type = by_name[job_type];
    type.name = job_type;
    if (rate > 0) type.steps_per_s[scale_factor] = rate;
  }
  std::vector<GeneratorJobType> types;
  for (auto& [name, type] : by_name)
    if (!type.steps_per_s.empty()) types.push_back(std::move(type));
  return types;
}

Workload make_gavel_workload(const GavelWorkloadConfig& config, const std::vector<GeneratorJobType>& types,
                             const std::string& source) {
  if (config.jobs <= 0) throw InputError(source, 0, "generator.jobs", "must be a positive number of jobs");
  if (!(config.jobs_per_hour > 0) || !std::isfinite(config.jobs_per_hour))
    throw InputError(source, 0, "generator.jobs_per_hour", "must be a positive arrival rate (jobs per hour)");
  // Candidates per scale factor, in name order (types is sorted), so the draw is reproducible.
  std::map<int, std::vector<const GeneratorJobType*>> fits;
  for (int sf : {1, 2, 4, 8})
    for (const GeneratorJobType& t : types)
      if (t.steps_per_s.count(sf)) fits[sf].push_back(&t);
  if (fits[1].empty()) throw InputError(source, 0, "generator", "no job type has a 1-GPU throughput on the reference GPU");

  std::mt19937_64 arrivals(derive_seed(config.seed, kArrivalStream));
  std::mt19937_64 attrs(derive_seed(config.seed, kJobStream));
  const double mean_gap_s = 3600.0 / config.jobs_per_hour;

  Workload w;
  w.source = fmt::format("generator:gavel(jobs={},jobs_per_hour={},multi_gpu={},seed={})", config.jobs,
                         config.jobs_per_hour, config.multi_gpu, config.seed);
  const auto source_file = std::make_shared<const std::string>(w.source);  // one copy for all jobs
  w.format = "generator";
  double t = 0.0;
  for (int i = 0; i < config.jobs; ++i) {
    if (i > 0) t += -std::log(1.0 - uniform01(arrivals)) * mean_gap_s;
    int sf = draw_scale_factor(attrs);
    if (!config.multi_gpu || fits[sf].empty()) sf = 1;
    const double duration_s = draw_duration_s(attrs);
    const auto& candidates = fits[sf];
    const auto pick = static_cast<std::size_t>(uniform01(attrs) * static_cast<double>(candidates.size()));
    const GeneratorJobType& type = *candidates[std::min(pick, candidates.size() - 1)];
    JobSpec job;
    job.id = fmt::format("gen-{}", i);
    job.submit = SimTime::from_seconds(t);
    job.job_type = type.name;
    job.requested_gpus = job.min_gpus = job.max_gpus = sf;
    job.work = std::round(duration_s * type.steps_per_s.at(sf));
    if (job.work < 1) job.work = 1;
    job.unit = WorkUnit::Iterations;
    job.source_file = source_file;
    job.source_line = static_cast<std::size_t>(i + 1);
    w.jobs.push_back(std::move(job));
  }
  return w;
}

}  // namespace hetsim
