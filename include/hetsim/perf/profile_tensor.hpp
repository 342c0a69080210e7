#pragma once
/// A throughput profile as a 3-D tensor: job type x GPU type x elastic configuration. This is the
/// object Heet's collaborative filtering completes (Mo, Xu, Xu, "Heet: Accelerating Elastic
/// Training in Heterogeneous Deep Learning Clusters", ASPLOS'24). Loaders turn the three public
/// profile sets hetsim knows into one: the Heet prototype's profiles.json, Gavel's throughput JSON
/// and Sia's per-cluster placements CSVs.
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsim {

/// Dense I x J x K tensor of measured throughputs; NaN marks a cell that was never measured.
/// Values are positive (work units per second, see `unit`); a measured "cannot run" (Gavel's 0) is
/// kept out of `values` and listed in `cannot_run`.
struct ProfileTensor {
  std::string source;                 ///< file or directory the tensor was read from
  std::string unit;                   ///< unit of the values ("epochs/s", "steps/s", "samples/s")
  std::vector<std::string> jobs;      ///< mode 0: job type keys (see row_key())
  std::vector<std::string> gpus;      ///< mode 1: GPU type names (lower case)
  std::vector<std::string> configs;   ///< mode 2: configuration labels ("1", "2", "4", "22", ...)
  std::vector<int> config_gpus;       ///< GPUs used by each configuration (same size as configs)
  std::vector<double> values;         ///< I*J*K, index (i*J + j)*K + k; NaN = not measured
  /// Cells measured as "cannot run" (throughput 0), as (i, j, k); excluded from `values`.
  std::vector<std::size_t> cannot_run;

  std::size_t dim_jobs() const { return jobs.size(); }
  std::size_t dim_gpus() const { return gpus.size(); }
  std::size_t dim_configs() const { return configs.size(); }
  std::size_t size() const { return values.size(); }
  std::size_t index(std::size_t i, std::size_t j, std::size_t k) const { return (i * gpus.size() + j) * configs.size() + k; }
  double at(std::size_t i, std::size_t j, std::size_t k) const { return values[index(i, j, k)]; }
  bool measured(std::size_t flat) const { return !std::isnan(values[flat]); }
  /// Number of measured cells.
  std::size_t measured_count() const;
  /// Position of a job key / GPU name / configuration by GPU count ("n" label) or nullopt.
  std::optional<std::size_t> find_job(const std::string& key) const;
  std::optional<std::size_t> find_gpu(const std::string& name) const;
  std::optional<std::size_t> find_config(const std::string& label) const;
  /// "job / gpu / config" for messages.
  std::string describe(std::size_t flat) const;
};

/// Row key of a job type: the model name, plus "@<global batch>" when the profile distinguishes
/// batch sizes (Heet prototype: "vgg19@64").
std::string row_key(const std::string& model, int batch_size);

/// Model family of a job key, the part shared by the same model at other batch sizes: the key
/// before "@" ("vgg19@64" -> "vgg19"; Heet and Sia rows) or before " (batch size" (Gavel:
/// "ResNet-50 (batch size 64)" -> "ResNet-50"); else the key itself.
std::string job_family(const std::string& key);

/// The Heet prototype's profiles.json (epoch_time_s[gpu][model][batch][n]) as epochs/s; rows
/// "model@batch", configurations "1".."4" (GPUs on one host). Throws InputError (file, key path).
ProfileTensor load_heet_tensor(const std::string& path);

/// Gavel's throughput JSON (table[gpu][('<job type>', n)]["null"], steps/s), consolidated types
/// only (the "<gpu>_unconsolidated" sections are skipped); rows = Gavel job types, configurations
/// "1","2","4","8" (any other scale factor present is added in numeric order). A measured 0 goes to
/// cannot_run. Throws InputError (file, key path).
ProfileTensor load_gavel_tensor(const std::string& path);

/// Sia's profiles (siasosp23/artifacts, sia-simulator/traces/<app>/placements-<cluster>.csv), read
/// by header name (local_bsz, step_time, placement): rows "<app>@<local batch>", five GPU types:
/// a100 (placements-dgx-ext.csv), v100 (-azure), quadro (-quad, Quadro RTX 6000), rtx2080ti (-rtx)
/// and t4 (Sia's -aws files, which are byte-identical to Pollux's <t4_dir>/<app>/placements.csv
/// and therefore read from there; skipped when t4_dir is empty or lacks the app). Configurations =
/// placement strings (digits = GPUs per node, "22" = 2 nodes x 2 GPUs). Value = samples/s =
/// GPUs x local_bsz / step_time, averaged over repeated rows. `dir` holds one folder per
/// application. Throws InputError (file, line, field).
ProfileTensor load_sia_tensor(const std::string& dir, const std::string& t4_dir = "");

/// One Sia placements CSV already in memory, as the tensor of application `app` on `gpu`
/// (load_sia_tensor() reads every file through the same code); `path` is used in errors only.
ProfileTensor load_sia_placements(const std::string& path, std::string_view text, const std::string& app,
                                  const std::string& gpu);

/// Picks the loader: a directory -> Sia (T4 from ../../pollux/traces beside it when present); a
/// JSON with "epoch_time_s" -> Heet; other JSON -> Gavel.
ProfileTensor load_profile_tensor(const std::string& path);
/// The JSON cases of load_profile_tensor() over text already in memory; `path` is used in errors only.
ProfileTensor load_profile_tensor(const std::string& path, std::string_view text);

}  // namespace hetsim
