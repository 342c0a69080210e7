#pragma once
/// Running an experiment's points on a thread pool, with resume and shards, and merging shards.
///
/// Layout of an output folder (docs/experiment-spec.md):
///   points.csv, results.csv, failures.csv                (written by write_results)
///   points/<id>/point.json  what the run is (the point's fingerprint)
///   points/<id>/jobs.csv, summary.json, utilization.csv  the run's outputs
///   points/<id>/DONE or FAILED                            completion marker, written last
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "hetsim/experiment/spec.hpp"
#include "hetsim/policy/registry.hpp"

namespace hetsim {

/// A deterministic share of the points: point i belongs to shard (i mod count).
struct Shard {
  int index = 0;  ///< 0-based
  int count = 1;
  bool contains(std::size_t point_index) const {
    return static_cast<int>(point_index % static_cast<std::size_t>(count)) == index;
  }
};

/// Parses "I/N" (0 <= I < N). Throws InputError (field "--shard") otherwise.
Shard parse_shard(const std::string& text);

/// How to run a sweep.
struct SweepOptions {
  std::string out_dir;
  int threads = 1;
  Shard shard;
  /// Skip points whose folder already holds a completed run of the same fingerprint. false = run
  /// every point again (the regression gate).
  bool resume = true;
  /// Check every run's invariants (`--check-invariants`). A point that breaks one is recorded as
  /// failed, the tables are written, and then the InvariantViolation is rethrown (exit code 1).
  bool check_invariants = false;
  /// Called after each point finishes (from a worker thread, serialised): points finished so far
  /// in this invocation, points to run in it, failures so far.
  std::function<void(std::size_t finished, std::size_t to_run, std::size_t failed)> progress;
  /// Called after each point finishes (serialised, before `progress`): the point, its wall time,
  /// whether it completed, its run's warnings. For stderr only: no output file records them.
  std::function<void(const ExperimentPoint& point, double wall_s, bool ok, const std::vector<std::string>& warnings)>
      point_done;
};

/// Counts of one sweep invocation.
struct SweepCounts {
  std::size_t in_shard = 0;  ///< points of this shard
  std::size_t skipped = 0;   ///< already done (resume)
  std::size_t ran = 0;       ///< run now
  std::size_t done = 0;      ///< completed points of this shard, after the run
  std::size_t failed = 0;    ///< failed points of this shard (error in failures.csv and FAILED)
};

/// Runs the points of `options.shard` that are not done yet, then writes points.csv, results.csv
/// and failures.csv covering this shard (named "*.shard-I-of-N.csv" when there are several shards,
/// so shards can share one output folder; `merge` writes the plain names). A point that throws is recorded as failed with its error;
/// the others still run. Throws InputError only when the output folder cannot be written.
SweepCounts run_sweep(const ExperimentSpec& spec, const std::vector<ExperimentPoint>& points,
                      const PolicyRegistry& registry, const SweepOptions& options);

/// Joins shard output folders into `out_dir` (which may be one of them): copies each point's
/// folder from the shard that completed it, then writes the tables over all points. The result is
/// byte-identical to an unsharded run. Returns counts over all points (failed includes points no
/// shard ran).
SweepCounts merge_sweeps(const ExperimentSpec& spec, const std::vector<ExperimentPoint>& points,
                         const std::string& out_dir, const std::vector<std::string>& shard_dirs);

}  // namespace hetsim
