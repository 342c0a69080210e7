#pragma once
/// Throughput models backed by measured tables, and the duration model for traces that carry only
/// run times. One implementation file each under src/perf/.
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hetsim/perf/throughput_model.hpp"

namespace hetsim {

/// Gavel's measured throughput table (stanford-futuredata/gavel, simulation_throughputs.json):
/// steps/s keyed by GPU type, then "('<job type>', <scale factor>)", then "null" for a job running
/// alone. Rate for `n` GPUs of type t = table[t][(job_type, n)]["null"]; when the allocation spans
/// several nodes, table[t + "_unconsolidated"] is used if present (Gavel's unconsolidated
/// variant), else the consolidated value. A scale factor n absent from the table is extrapolated
/// from the largest measured scale factor m < n with non-zero throughput: rate(n) = rate(m) * n / m
/// (ideal data-parallel scaling past the last measurement; Gavel's own simulator has no rule and
/// fails on such jobs, but its MSR traces contain them, e.g. CycleGAN on 8 GPUs or any type on 16).
/// Nothing to extrapolate from gives rate 0; check_job() rejects a job whose requested scale factor
/// has rate 0 on every GPU type of the cluster. Unit: iterations/s.
class GavelThroughputTable final : public ThroughputModel {
 public:
  /// Loads the JSON file and binds its GPU type keys to `cluster`'s types (case-insensitive).
  /// `spread_unconsolidated`: an allocation spread over several nodes runs at the table's
  /// `<type>_unconsolidated` rate (true, hetsim's default) or at the consolidated rate as if it
  /// were packed (false: what Gavel's own simulator does, scheduler.py reads only the consolidated
  /// entries). Throws InputError (file, key path) on malformed JSON or non-numeric throughput.
  static std::unique_ptr<GavelThroughputTable> load(const std::string& path, const Cluster& cluster,
                                                    bool spread_unconsolidated = true);
  /// The same over JSON text already in memory (load() reads the file and calls it); `path` is
  /// used in error messages only.
  static std::unique_ptr<GavelThroughputTable> load(const std::string& path, std::string_view text,
                                                    const Cluster& cluster, bool spread_unconsolidated = true);
  /// The same over the parsed document (the text form parses and calls it; load_throughput_model
  /// passes the document read_throughput_file parsed, so Gavel's 1.2 MB table is parsed once).
  static std::unique_ptr<GavelThroughputTable> from_json(const std::string& path, const nlohmann::json& root,
                                                         const Cluster& cluster, bool spread_unconsolidated = true);
  std::string name() const override { return "gavel-table"; }
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;
  /// The table's co-location entry table[type][(a's type, sf)][(b's type, sf)] = [rate a, rate b]
  /// (consolidated sections only, as Gavel's simulator reads them); nullopt when it is absent.
  std::optional<std::pair<double, double>> pair_rates(const JobSpec& a, const JobSpec& b, GpuTypeId type,
                                                      int scale_factor) const override;

 private:
  // (gpu type id, job type index of a, job type index of b, scale factor) of a co-location entry.
  using PairKey = std::tuple<int, int, int, int>;
  std::map<PairKey, std::pair<double, double>> pairs_;
  // Measured steps/s of one job type on one GPU type: (scale factor, steps/s), ascending.
  using Curve = std::vector<std::pair<int, double>>;
  // The table's index of a job's type, or -1 when the table lacks it. Resolved once per JobSpec
  // (rate() is called for every job on every pass, so no string is hashed or compared in a map).
  int job_type_index(const JobSpec& job) const;
  // [gpu type id][job type index], consolidated and unconsolidated.
  std::vector<std::vector<Curve>> consolidated_;
  std::vector<std::vector<Curve>> unconsolidated_;
  std::unordered_map<std::string, int> job_type_index_;  // interned at load
  std::vector<std::string> job_type_names_;               // [job type index]
  std::set<std::string> table_gpu_types_;                 // GPU types the file has, for messages
  // JobSpec -> job type index, for the types the table has. A hit is confirmed by comparing the
  // JobSpec's job_type with the indexed name, so a JobSpec reused at the same address with another
  // type is resolved again. A model belongs to one run and one thread (docs/architecture.md,
  // "Experiments and threads"), so the cache needs no lock.
  mutable std::unordered_map<const JobSpec*, int> resolved_;
  bool spread_unconsolidated_ = true;
  std::string path_;
};

/// The Heet prototype's profile table (mozizhao/elastic, extracted to profiles.json):
/// epoch_time_s[gpu][model][global batch][n GPUs on one host]. Rate = 1 / epoch time, in epochs/s;
/// job_type = model, JobSpec::global_batch_size selects the batch. An allocation spread over
/// several hosts is not in the profile: it runs at the single-host rate for the same GPU count
/// (documented limitation until the topology model lands). Unit: epochs/s.
class HeetProfileTable final : public ThroughputModel {
 public:
  /// Loads profiles.json; throws InputError (file, key path) on malformed content.
  static std::unique_ptr<HeetProfileTable> load(const std::string& path, const Cluster& cluster);
  /// The same over JSON text already in memory; `path` is used in error messages only.
  static std::unique_ptr<HeetProfileTable> load(const std::string& path, std::string_view text, const Cluster& cluster);
  std::string name() const override { return "heet-profile"; }
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;

 private:
  struct Key {
    std::string model;
    int batch;
    int gpus;
    auto operator<=>(const Key&) const = default;
  };
  std::vector<std::map<Key, double>> epoch_time_s_;  // [gpu type id]
  std::string path_;
};

/// For traces that carry only a run time (Philly, native traces with duration_s): a job's work is
/// its duration in reference seconds, i.e. the time it ran on its requested GPU count. Rate on n
/// GPUs of type t = relative_speed(t) * min(n, requested) / requested: no speed-up beyond the
/// requested count, linear slow-down below it, and types faster or slower only when the cluster
/// spec gives relative speeds. Unit: reference seconds per second.
class DurationModel final : public ThroughputModel {
 public:
  explicit DurationModel(const Cluster& cluster);
  std::string name() const override { return "duration"; }
  double rate(const JobSpec& job, const AllocationShape& shape) const override;
  std::optional<std::string> check_job(const JobSpec& job, const Cluster& cluster) const override;

 private:
  std::vector<double> speed_;
};

/// True when a throughput JSON object has the Heet prototype's profiles.json layout: an
/// "epoch_time_s" or "iteration_time_s" section, or its "keys" and "cluster" description fields.
/// (A Gavel table's top-level keys are GPU type names.)
bool is_heet_profile_json(const nlohmann::json& root);

/// Throws the InputError for a Heet profiles.json without its "epoch_time_s" section, naming the
/// Heet fields it does have; returns when the section is present.
void require_heet_epoch_times(const nlohmann::json& root, const std::string& path);

/// Which reader a throughput path selects, by its content: "elasticflow-table" (a folder of
/// throughputs_<GPU>/ CSVs, or one such folder), "job-types" (a JSON object with a top-level
/// "job_types" key: compute times for the analytic model), "heet-profile"
/// (is_heet_profile_json), else "gavel-table". The one rule shared by load_throughput_model(),
/// make_throughput_model("auto") and the experiment-spec check. Throws InputError naming the path
/// for an empty path, a missing file or folder, a folder that is not an ElasticFlow profile
/// folder, invalid JSON (with its line) or JSON that is not an object.
std::string throughput_file_kind(const std::string& path);

/// A throughput path recognised once: its kind (throughput_file_kind's names) and, for a JSON file,
/// the parsed document, which the loaders take instead of parsing the file again (issue 19: Gavel's
/// 1.2 MB table was parsed three times per run). Throws as throughput_file_kind.
struct ThroughputFile {
  std::string kind;
  std::shared_ptr<const nlohmann::json> root;  ///< null for an ElasticFlow folder
};
ThroughputFile read_throughput_file(const std::string& path);

/// Picks the model for a run: no file -> DurationModel; a folder of throughputs_<GPU>/ CSVs ->
/// ElasticFlowThroughputTable; a JSON object in the Heet layout
/// (is_heet_profile_json) -> Heet profile; any other JSON object -> Gavel table. Throws InputError
/// naming the file.
/// `spread_unconsolidated` is passed to GavelThroughputTable::load() when the file is a Gavel table.
std::unique_ptr<ThroughputModel> load_throughput_model(const std::string& path, const Cluster& cluster,
                                                       bool spread_unconsolidated = true);
/// The same over a file read_throughput_file() already recognised (`path` names it in messages).
std::unique_ptr<ThroughputModel> load_throughput_model(const ThroughputFile& file, const std::string& path,
                                                       const Cluster& cluster, bool spread_unconsolidated = true);

}  // namespace hetsim
