// ElasticFlow's throughput profiles (github.com/pkusys/ElasticFlow, scheduler/throughputs_A100 and
// throughputs_T4; Gu et al., "ElasticFlow: An Elastic Serverless Training Platform for
// Distributed Deep Learning", ASPLOS'23). The A100 files were measured by the authors; the T4
// ones are derived from Pollux's measurements (per the ElasticFlow README).
#include "hetsim/perf/elasticflow_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFolderPrefix = "throughputs_";

bool is_type_folder(const fs::path& p) {
  std::error_code ec;
  const std::string name = p.filename().string();
  return name.size() > kFolderPrefix.size() && name.starts_with(kFolderPrefix) && fs::is_directory(p, ec);
}

// The `throughputs_<GPU>` folders of `dir` (or `dir` itself), sorted by name for a stable order.
std::vector<fs::path> type_folders(const fs::path& dir) {
  std::vector<fs::path> out;
  if (is_type_folder(dir)) return {dir};
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (is_type_folder(entry.path())) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// An empty cell, "nan" or 0 means the authors have no measurement there.
bool unmeasured(std::string_view cell) {
  const std::string c = to_lower(trim(cell));
  return c.empty() || c == "nan";
}

}  // namespace

bool ElasticFlowThroughputTable::is_profile_dir(const std::string& path) { return !type_folders(path).empty(); }

std::unique_ptr<ElasticFlowThroughputTable> ElasticFlowThroughputTable::load(const std::string& dir, const Cluster& cluster) {
  const std::vector<fs::path> folders = type_folders(dir);
  if (folders.empty())
    throw InputError(dir, 0, "--throughputs", "not an ElasticFlow profile folder (expected throughputs_<GPU>/<model>.csv)");
  auto table = std::make_unique<ElasticFlowThroughputTable>();
  table->path_ = dir;
  table->curves_.assign(cluster.gpu_types().size(), {});
  for (const fs::path& folder : folders) {
    const std::string gpu = folder.filename().string().substr(kFolderPrefix.size());
    const std::optional<GpuTypeId> type = cluster.find_gpu_type(gpu);
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (entry.path().extension() == ".csv") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::string path = file.string();
      const std::string model = file.stem().string();
      table->add_csv(path, read_file(path), model, type);
    }
  }
  return table;
}

std::unique_ptr<ElasticFlowThroughputTable> ElasticFlowThroughputTable::load_csv(const std::string& path,
                                                                                 std::string_view text,
                                                                                 const std::string& model,
                                                                                 const std::string& gpu,
                                                                                 const Cluster& cluster) {
  auto table = std::make_unique<ElasticFlowThroughputTable>();
  table->path_ = path;
  table->curves_.assign(cluster.gpu_types().size(), {});
  table->add_csv(path, text, model, cluster.find_gpu_type(gpu));
  return table;
}

void ElasticFlowThroughputTable::add_csv(const std::string& path, std::string_view text, const std::string& model,
                                         std::optional<GpuTypeId> type) {
  std::vector<int> counts;  // GPU count of each column after the first
  std::size_t line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (trim(line).empty()) continue;
    const std::vector<std::string_view> f = split(line, ',');
    if (counts.empty()) {
      if (trim(f[0]) != "global_batch_size")
        throw InputError(path, line_no, "global_batch_size", "the first column must be global_batch_size");
      if (f.size() < 2) throw InputError(path, line_no, "", "no GPU-count columns");
      for (std::size_t i = 1; i < f.size(); ++i) {
        const long long n = parse_int(f[i], SourcePos{path, line_no, "GPU count"});
        if (n < 1 || n > 1'000'000)
          throw InputError(path, line_no, std::string(trim(f[i])), "GPU count must be between 1 and 1000000");
        counts.push_back(static_cast<int>(n));
      }
      continue;
    }
    if (f.size() != counts.size() + 1)
      throw InputError(path, line_no, "",
                       fmt::format("expected {} comma-separated fields as in the header, got {}", counts.size() + 1,
                                   f.size()));
    const long long batch = parse_int(f[0], SourcePos{path, line_no, "global_batch_size"});
    if (batch < 1 || batch > 1'000'000'000)
      throw InputError(path, line_no, "global_batch_size", fmt::format("must be a positive integer, got {}", batch));
    Curve curve;
    for (std::size_t i = 1; i < f.size(); ++i) {
      if (unmeasured(f[i])) continue;
      const std::string field = std::to_string(counts[i - 1]);
      const double v = parse_double(f[i], SourcePos{path, line_no, field});
      if (v < 0.0) throw InputError(path, line_no, field, fmt::format("throughput must not be negative, got {}", v));
      if (v > 0.0) curve[counts[i - 1]] = v;
    }
    if (type) curves_[static_cast<std::size_t>(*type)][{model, static_cast<int>(batch)}] = std::move(curve);
  }
  if (counts.empty()) throw InputError(path, 0, "", "no header line");
}

double ElasticFlowThroughputTable::rate(const JobSpec& job, const AllocationShape& shape) const {
  if (shape.gpu_type < 0 || static_cast<std::size_t>(shape.gpu_type) >= curves_.size() || shape.gpu_count <= 0) return 0.0;
  const auto& by_key = curves_[static_cast<std::size_t>(shape.gpu_type)];
  const auto it = by_key.find({job.job_type, job.global_batch_size});
  if (it == by_key.end() || it->second.empty()) return 0.0;
  const Curve& c = it->second;
  const int n = shape.gpu_count;
  const auto hi = c.lower_bound(n);
  if (hi != c.end() && hi->first == n) return hi->second;
  if (hi == c.end()) return std::prev(hi)->second;  // past the largest measurement: no further speed-up
  if (hi == c.begin()) return 0.0;                   // below the smallest measured count: unknown
  const auto lo = std::prev(hi);
  const double w = static_cast<double>(n - lo->first) / static_cast<double>(hi->first - lo->first);
  return lo->second + w * (hi->second - lo->second);
}

std::optional<std::string> ElasticFlowThroughputTable::check_job(const JobSpec& job, const Cluster& cluster) const {
  if (job.unit != WorkUnit::Iterations)
    return fmt::format("job {}: elasticflow-table needs work in iterations (trace format itp-ef), but the job's work is in {}",
                       job.id, to_string(job.unit));
  if (job.global_batch_size <= 0)
    return fmt::format("job {}: elasticflow-table selects the row by global batch size, and the job has none", job.id);
  // What the table has for this model on each of the cluster's types, so the message names the
  // real cause (a batch size or GPU count that is not measured, not only the model).
  std::vector<std::string> has;
  for (std::size_t t = 0; t < curves_.size(); ++t) {
    const AllocationShape shape{static_cast<GpuTypeId>(t), job.requested_gpus, true};
    if (rate(job, shape) > 0.0) return std::nullopt;
    std::vector<int> batches;
    const Curve* same_batch = nullptr;
    for (const auto& [key, curve] : curves_[t])
      if (key.first == job.job_type) {
        batches.push_back(key.second);
        if (key.second == job.global_batch_size) same_batch = &curve;
      }
    const std::string& type = cluster.gpu_types()[t].name;
    if (same_batch && !same_batch->empty())
      has.push_back(fmt::format("{} measures it at batch size {} from {} GPU(s)", type, job.global_batch_size,
                                same_batch->begin()->first));
    else if (!batches.empty())
      has.push_back(fmt::format("{} has it at batch sizes {} only", type, fmt::join(batches, ", ")));
  }
  return fmt::format("job {}: model '{}' at global batch size {} on {} GPU(s) has no throughput in {} for any GPU type of "
                     "the cluster ({})",
                     job.id, job.job_type, job.global_batch_size, job.requested_gpus, path_,
                     has.empty() ? std::string("no type of the cluster has this model")
                                 : fmt::format("{}", fmt::join(has, "; ")));
}

}  // namespace hetsim
