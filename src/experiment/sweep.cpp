#include "hetsim/experiment/sweep.hpp"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <exception>
#include <mutex>
#include <optional>

#include "hetsim/experiment/results.hpp"
#include "hetsim/metrics/timeline.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/util/parallel.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

namespace fs = std::filesystem;

// The DONE marker: size and checksum of each output, which a resume checks (point_status).
std::string done_marker(const fs::path& dir) {
  std::string text;
  for (const char* name : kPointOutputs) text += fmt::format("{} {}\n", name, file_fingerprint(dir / name));
  return text;
}

// Runs one point into its folder. The marker is written last, so an interrupted run leaves no
// DONE and is redone on resume. A point whose outputs cannot be written (full disk) fails like
// one whose run fails: FAILED holds the error, and no DONE points at truncated files.
// A broken invariant (an internal error) is recorded the same way and then rethrown.
// Returns the run's warnings (for stderr; no output file records them).
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

// A sweep's outputs on a file its runs read would replace the user's data after the runs (run and
// compare refuse the same): results*.csv and failures*.csv in --out, anything under --out/points/.
void check_outputs_not_inputs(const fs::path& out, const std::vector<ExperimentPoint>& points) {
  const fs::path root = resolved(out);
  for (const ExperimentPoint& p : points)
    for (const auto& [option, path] : run_input_files(p.run)) {
      const fs::path in = resolved(path);
      const std::string name = in.filename().string();
      const bool table = in.parent_path() == root && in.extension() == ".csv" &&
                         (name.rfind("results", 0) == 0 || name.rfind("failures", 0) == 0);
      const fs::path below = in.lexically_relative(root / "points");
      const bool in_points = !below.empty() && *below.begin() != "..";
      if (table || in_points)
        throw InputError(path, 0, "--out",
                         fmt::format("--out {} would overwrite the file point {} reads ({} {}); give --out another "
                                     "folder",
                                     out.string(), p.id, option, path));
    }
}

std::vector<std::string> run_point(const ExperimentPoint& point, const fs::path& dir, const PolicyRegistry& registry,
                                   bool check_invariants) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string(), 0, "--out", "cannot create folder: " + ec.message());
  fs::remove(dir / "DONE", ec);
  fs::remove(dir / "FAILED", ec);
  try {
    write_text_checked(dir / "point.json", "--out", point.fingerprint);
    StreamedOutputFile utilization_csv(dir / "utilization.csv", "--out");
    UtilizationRecorder utilization(utilization_csv.stream());
    JobEventSink* sinks[] = {&utilization};
    RunSpec run = point.run;  // the checks are no part of the point (nor of its fingerprint)
    run.mechanism.check_invariants = run.mechanism.check_invariants || check_invariants;
    RunOutput out = run_simulation(run, registry, sinks);
    write_run_outputs(dir.string(), out);
    utilization_csv.commit();
    write_text_checked(dir / "DONE", "--out", done_marker(dir));
    std::vector<std::string> warnings = out.stats.warnings;
    if (out.summary.solver_time_limits > 0)
      warnings.push_back(fmt::format("{} solver searches stopped at the wall-time safety net (results depend on "
                                     "machine speed)", out.summary.solver_time_limits));
    return warnings;
  } catch (const std::exception& e) {
    fs::remove(dir / "DONE", ec);
    try {
      write_text_checked(dir / "FAILED", "--out", std::string(e.what()) + "\n");
    } catch (const InputError&) {
      // Not even the marker fits: the point has no DONE, so it counts as failed ("not run") and
      // the results tables, which cannot be written either, report the disk error.
    }
    if (dynamic_cast<const InvariantViolation*>(&e)) throw;
  }
  return {};
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw InputError("", 0, "--shard", "expected I/N, e.g. 0/4");
  const SourcePos pos{"", 0, "--shard"};
  const long long i = parse_int(text.substr(0, slash), pos);
  const long long n = parse_int(text.substr(slash + 1), pos);
  if (n < 1 || n > 100000 || i < 0 || i >= n)
    throw InputError("", 0, "--shard", fmt::format("'{}': need 0 <= I < N (I is 0-based)", text));
  return Shard{static_cast<int>(i), static_cast<int>(n)};
}

SweepCounts run_sweep(const ExperimentSpec& spec, const std::vector<ExperimentPoint>& points,
                      const PolicyRegistry& registry, const SweepOptions& options) {
  const fs::path out(options.out_dir);
  check_outputs_not_inputs(out, points);
  std::error_code ec;
  fs::create_directories(out / "points", ec);
  if (ec) throw InputError(options.out_dir, 0, "--out", "cannot create folder: " + ec.message());
  check_output_folder(out / "points", "--out");

  SweepCounts counts;
  std::vector<bool> included(points.size(), false);
  std::vector<const ExperimentPoint*> to_run;
  for (const ExperimentPoint& p : points) {
    if (!options.shard.contains(p.index)) continue;
    included[p.index] = true;
    ++counts.in_shard;
    if (options.resume && point_status((out / "points" / p.id).string(), p.fingerprint) == PointStatus::Done) {
      ++counts.skipped;
      continue;
    }
    to_run.push_back(&p);
  }
  std::mutex lock;
  std::size_t finished = 0, failed = 0;
  std::exception_ptr violation;  // of the lowest point index that broke an invariant
  try {
    parallel_for(to_run.size(), options.threads, [&](std::size_t i) {
      const ExperimentPoint& p = *to_run[i];
      const fs::path dir = out / "points" / p.id;
      std::exception_ptr broken;  // counted as failed (FAILED holds it), then rethrown
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::string> warnings;
      try {
        warnings = run_point(p, dir, registry, options.check_invariants);
      } catch (const InvariantViolation&) {
        broken = std::current_exception();
      }
      const bool ok = point_status(dir.string(), p.fingerprint) == PointStatus::Done;
      {
        std::lock_guard<std::mutex> guard(lock);
        ++finished;
        if (!ok) ++failed;
        if (options.point_done)
          options.point_done(p, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), ok,
                             warnings);
        if (options.progress) options.progress(finished, to_run.size(), failed);
      }
      if (broken) std::rethrow_exception(broken);
    });
  } catch (const InvariantViolation&) {
    violation = std::current_exception();
  }
  counts.ran = to_run.size();
  const std::string suffix =
      options.shard.count > 1 ? fmt::format(".shard-{}-of-{}", options.shard.index, options.shard.count) : "";
  auto [done, bad] = write_results(options.out_dir, spec, points, included, suffix);
  counts.done = done;
  counts.failed = bad;
  if (violation) std::rethrow_exception(violation);  // an internal error: the tables are written first
  return counts;
}

SweepCounts merge_sweeps(const ExperimentSpec& spec, const std::vector<ExperimentPoint>& points,
                         const std::string& out_dir, const std::vector<std::string>& shard_dirs) {
  // Shards first: with no shard folder named, --out is the shard, and creating it first would turn a
  // mistyped folder into an empty "sweep" with every point not run.
  for (const std::string& s : shard_dirs)
    if (!fs::is_directory(fs::path(s) / "points")) throw InputError(s, 0, "shard", "not a sweep output folder (no points/)");
  const fs::path out(out_dir);
  std::error_code ec;
  fs::create_directories(out / "points", ec);
  if (ec) throw InputError(out_dir, 0, "--out", "cannot create folder: " + ec.message());
  SweepCounts counts;
  counts.in_shard = points.size();
  for (const ExperimentPoint& p : points) {
    const fs::path target = out / "points" / p.id;
    // Prefer a completed copy; fall back to a failed one so its error is kept.
    std::optional<fs::path> done_copy, failed_copy;
    for (const std::string& s : shard_dirs) {
      const fs::path dir = fs::path(s) / "points" / p.id;
      const PointStatus st = point_status(dir.string(), p.fingerprint);
      if (st == PointStatus::Done) {
        done_copy = dir;
        break;
      }
      if (st == PointStatus::Failed && !failed_copy) failed_copy = dir;
    }
    const std::optional<fs::path> best = done_copy ? done_copy : failed_copy;
    if (!best) continue;
    if (fs::weakly_canonical(*best, ec) == fs::weakly_canonical(target, ec)) continue;
    fs::remove_all(target, ec);
    fs::create_directories(target, ec);
    fs::copy(*best, target, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) throw InputError(target.string(), 0, "--out", "cannot copy point folder: " + ec.message());
  }
  auto [done, bad] = write_results(out_dir, spec, points, {});
  counts.done = done;
  counts.failed = bad;
  return counts;
}

}  // namespace hetsim
