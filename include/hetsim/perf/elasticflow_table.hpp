#pragma once
/// ElasticFlow's measured throughput profiles (pkusys/ElasticFlow, scheduler/throughputs_<GPU>/
/// <model>.csv; Gu et al., ASPLOS'23) as a throughput model for `--throughputs DIR`.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// Iterations/s per (model, global batch size, GPU count) per GPU type. Files: one CSV per model,
/// header `global_batch_size,1,2,4,...` (GPU counts), one row per global batch size. The GPU type
/// is the folder name after `throughputs_`, matched case-insensitively against the cluster
/// (`throughputs_A100` -> `a100`). job_type = model (file name without .csv), and
/// JobSpec::global_batch_size picks the row.
///
/// Rate on n GPUs: the cell for n; between two measured counts, linear interpolation; above the
/// largest measured count, that count's rate (no further speed-up: the measured curves flatten or
/// fall at 32-64 GPUs). Empty, `nan` and 0 cells are "not measured" (rate 0 there, and ignored as
/// interpolation ends). The allocation's node spread is ignored: the A100 profiles were measured
/// across 8-GPU InfiniBand nodes, so multi-node cost is already in the numbers. Unit: iterations/s.
class ElasticFlowThroughputTable final : public ThroughputModel {
 public:
  /// Loads `dir`: either a folder holding `throughputs_<GPU>/` folders, or one such folder. Every
  /// file is validated, also for GPU types the cluster lacks. Throws InputError "file:line: field
  /// 'n': ..." for a bad cell, or naming the folder when it holds no profile.
  static std::unique_ptr<ElasticFlowThroughputTable> load(const std::string& dir, const Cluster& cluster);
  /// A table of one profile CSV already in memory: `model`'s file of the `throughputs_<gpu>`
  /// folder. load() reads every file through the same code, so the errors are identical; `path`
  /// is used in error messages only.
  static std::unique_ptr<ElasticFlowThroughputTable> load_csv(const std::string& path, std::string_view text,
                                                              const std::string& model, const std::string& gpu,
                                                              const Cluster& cluster);
  /// True when `path` is a folder load() accepts (cheap: looks at names only).
  static bool is_profile_dir(const std::string& path);

  std::string name() const override { return "elasticflow-table"; }
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  /// Rejects work not in iterations, a missing batch size, and a (model, batch, requested count)
  /// with rate 0 on every GPU type of the cluster (naming the types that have the model).
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;

 private:
  // Measured GPU counts -> iterations/s (only positive, finite cells).
  using Curve = std::map<int, double>;
  // [gpu type id] -> (model, batch) -> curve
  std::vector<std::map<std::pair<std::string, int>, Curve>> curves_;
  // Validates one profile file and keeps its curves when the cluster has `type`.
  void add_csv(const std::string& path, std::string_view text, const std::string& model, std::optional<GpuTypeId> type);
  std::string path_;
};

}  // namespace hetsim
