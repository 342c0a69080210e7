#pragma once
/// Step-time models of the goodput workload: seconds per training iteration of one application on
/// one GPU type for a placement and a per-GPU batch size. Two implementations:
///  - `pollux-table`: the Pollux simulator's interpolation of the measured profiles
///    (applications.py, Application.get_throughput);
///  - `pollux-fit`: the parametric model Pollux and Sia fit to the same profiles
///    (adaptdl goodput.py, PerfParams), fitted here with Eigen least squares (pollux_fit.hpp).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hetsim/perf/pollux_app.hpp"

namespace hetsim {

/// One predicted step: total time and the part of it spent synchronising gradients.
struct StepTime {
  double step_s = 0.0;
  double sync_s = 0.0;
};

/// GPUs per node of an allocation, in the order the GPUs were given (nodes without GPUs dropped).
using Placement = std::vector<int>;

/// Normalised placement key: zero entries dropped, then the lexicographically smallest rotation,
/// as digits ("4,1,2" -> "124"). This is the Pollux simulator's lookup key into placements.csv.
std::string placement_key(const Placement& placement);

/// Step-time model interface.
class StepTimeModel {
 public:
  virtual ~StepTimeModel() = default;
  /// "pollux-table" or "pollux-fit".
  virtual std::string name() const = 0;
  /// Step time of `app` on `gpu_type` (lower-case name) with `placement` and per-GPU (atomic)
  /// batch `local_bsz`. Throws std::out_of_range when the model has nothing for this GPU type.
  virtual StepTime step_time(const PolluxApplication& app, const std::string& gpu_type, const Placement& placement,
                             double local_bsz) const = 0;
};

/// The Pollux simulator's interpolation. A placement measured in placements*.csv: linear in the
/// per-GPU batch between measured batches (clamped to the measured range: the simulator would
/// raise). Any other placement: linear over the Delaunay tetrahedra of (nodes <= 16, replicas,
/// batch) built from the placement rows averaged per (nodes, replicas, batch) plus the
/// scalability rows; outside their hull the nearest sample in (nodes, replicas) at the clamped
/// batch is used (documented fallback; the simulator would fail an assertion).
/// With `triangulation_cache_dir` (load_goodput_model passes HETSIM_CACHE_DIR, else the user's
/// cache folder), Delaunay triangulations are kept there between runs: the same profiles are
/// triangulated by Qhull once (docs/models.md).
class PolluxTableStepModel final : public StepTimeModel {
 public:
  explicit PolluxTableStepModel(std::string triangulation_cache_dir = {});
  ~PolluxTableStepModel() override;
  std::string name() const override { return "pollux-table"; }
  StepTime step_time(const PolluxApplication& app, const std::string& gpu_type, const Placement& placement,
                     double local_bsz) const override;

 private:
  struct Table;
  const Table& table(const PolluxApplication& app, const std::string& gpu_type) const;
  mutable std::map<std::string, std::unique_ptr<Table>> tables_;  // lazily built per app/GPU type
  // The table last asked for: most calls ask for the same one again, and the map's key needs a
  // string built per call.
  mutable std::string last_app_, last_type_;
  mutable const Table* last_table_ = nullptr;
  std::string cache_dir_;
};

}  // namespace hetsim
