#pragma once
/// The one table from experiment-spec keys to RunSpec fields. A spec key, a sweep axis and a
/// results column are all the same name; adding a RunSpec field is one line in run_keys.cpp.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetsim/run.hpp"

namespace hetsim {

/// What kind of JSON value a key takes; Path and Folder values are resolved against the spec
/// file's folder and must exist (a file, a directory). Cluster and Table values (paths resolved
/// the same way) are checked by the command line's own code: resolve_cluster() for `--cluster`
/// (preset, cluster JSON, node inventory), throughput_file_kind() for `--throughputs` (a table
/// file or an ElasticFlow profile folder).
enum class RunKeyKind { Text, Path, Folder, Cluster, Table, Number, Integer, Boolean };

/// One settable RunSpec field.
struct RunKey {
  std::string name;  ///< dotted spec key, e.g. "interval_s", "generator.jobs_per_hour"
  std::string flag;  ///< the `hetsim run` flag that sets it (cli_flag_of), e.g. "--interval"
  RunKeyKind kind = RunKeyKind::Text;
  std::string help;  ///< one line for docs and errors
  /// Stores a value already checked against `kind` (and path-resolved) into the spec. Throws
  /// std::invalid_argument with a short reason for a value of the right kind that is still wrong
  /// (an unknown trace format, a negative count).
  std::function<void(RunSpec&, const nlohmann::ordered_json&)> set;
};

/// Every key, in documentation order. Besides these, "param.<name>" sets a policy parameter and
/// "model_param.<name>" a throughput-model parameter.
std::vector<RunKey> run_keys();

/// Prefix of policy-parameter keys ("param.alpha" sets PolicyParams["alpha"]).
inline constexpr std::string_view kParamKeyPrefix = "param.";
/// Prefix of throughput-model parameter keys ("model_param.comm" sets RunSpec::model_params["comm"]).
inline constexpr std::string_view kModelParamKeyPrefix = "model_param.";

/// Name of a kind for messages ("a number", "a file path", ...).
const char* describe(RunKeyKind kind);

}  // namespace hetsim
