#pragma once
/// Metrics of finished runs as data: flattening summary.json into named numbers, and the tidy
/// results table of a sweep (one row per point and metric; docs/experiment-spec.md).
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hetsim/experiment/spec.hpp"
#include "hetsim/util/csv.hpp"  // csv_cell, used with these tables

namespace hetsim {

/// Every numeric value of a summary.json text, in file order: top-level numbers by key, numbers in
/// nested objects as "<key>.<subkey>" (e.g. "utilization_by_type.v100"). Strings are skipped.
/// Metrics others add to summary.json appear here with no change. Throws InputError on bad JSON.
std::vector<std::pair<std::string, double>> summary_metrics(const std::string& summary_json, const std::string& source);

/// The metrics of an in-memory run, exactly as summary_metrics would read them from its file.
std::vector<std::pair<std::string, double>> summary_metrics(const RunOutput& output);

/// True when `name` is a numeric summary key (or "<object key>.<anything>" for per-type maps).
bool is_known_metric(const std::string& name);
/// Comma-separated list of the known metric names, for error messages.
std::string known_metric_names();

/// Formats a metric value for CSV/JSON: shortest text that reads back as the same double.
std::string metric_text(double value);

/// One row of a results table.
struct ResultRow {
  std::string point;
  std::string policy;
  std::vector<std::pair<std::string, std::string>> axis_values;
  std::string metric;
  double value = 0.0;
};

/// Status of one point folder under <out>/points/<id>.
enum class PointStatus { Missing, Done, Failed, Stale };
/// A sweep point's output files, each recorded (size and checksum) in its DONE marker.
inline constexpr const char* kPointOutputs[] = {"jobs.csv", "summary.json", "utilization.csv"};

/// Reads a point folder's status: Done when point.json equals the fingerprint and DONE records the
/// outputs as they are (kPointOutputs: sizes and checksums; otherwise Missing, so it runs again),
/// Failed when FAILED exists (its text in `error`), Stale when it holds another run's outputs.
PointStatus point_status(const std::string& point_dir, const std::string& fingerprint, std::string* error = nullptr);

/// Writes <out>/points.csv (the manifest: index, point, policy, one column per axis), and from each
/// point folder <out>/results.csv (point, policy, axes..., metric, value; points in index order,
/// metrics in summary order, filtered to spec.metrics when given) and <out>/failures.csv (point,
/// policy, axes..., error). Only points with included[index] are reported (empty = all); a
/// reported point that is neither done nor failed is a failure with error "not run". `suffix` goes
/// before ".csv" (shards write "results.shard-0-of-4.csv", so shards sharing a folder never write
/// the same file). Returns (done, failed) counts.
std::pair<std::size_t, std::size_t> write_results(const std::string& out_dir, const ExperimentSpec& spec,
                                                  const std::vector<ExperimentPoint>& points,
                                                  const std::vector<bool>& included, const std::string& suffix = "");

/// Reads a results.csv (as written above). Throws InputError naming the file and line.
std::vector<ResultRow> read_results_csv(const std::string& path);

}  // namespace hetsim
