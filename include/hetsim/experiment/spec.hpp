#pragma once
/// Experiment specs: a JSON file that names the runs of an experiment (schema in
/// docs/experiment-spec.md). Parsing checks everything that can be checked without simulating
/// (unknown keys, value kinds, missing files, unknown policies and parameters), so a bad spec fails
/// before any run starts, naming the spec file and the key.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsim/policy/registry.hpp"
#include "hetsim/run.hpp"

namespace hetsim {

/// One policy of the experiment with fixed parameter values.
struct PolicyVariant {
  std::string label;   ///< unique name in results ("fifo", or "srtf(alpha=2)" for a parameter sweep)
  std::string name;    ///< registered policy name
  PolicyParams params;
};

/// One sweep axis: a run key (or "param.<name>") and the values it takes, in spec order.
struct SweepAxis {
  std::string key;
  std::vector<nlohmann::ordered_json> values;
  /// How each value appears in point ids and results tables: the value itself, or for a file or
  /// folder the fewest trailing path components that tell the axis's values apart (never an
  /// absolute path).
  std::vector<std::string> labels;
};

/// A parsed, validated experiment spec.
struct ExperimentSpec {
  std::string path;         ///< the spec file (errors name it)
  std::string name;         ///< "name" key, else the file stem
  std::string description;
  /// Fixed run keys (nested objects flattened to dotted keys, paths resolved), in file order.
  std::vector<std::pair<std::string, nlohmann::ordered_json>> settings;
  std::vector<PolicyVariant> policies;
  std::vector<SweepAxis> axes;
  std::vector<std::string> metrics;  ///< summary metrics to report; empty = every numeric one
};

/// One run of an experiment.
struct ExperimentPoint {
  std::size_t index = 0;  ///< position in expansion order (axes nested in spec order, policies innermost)
  std::string id;         ///< unique folder name, e.g. "fifo__generator.jobs_per_hour=4__seed=0"
  std::string policy;     ///< the PolicyVariant label
  std::vector<std::pair<std::string, std::string>> axis_values;  ///< axis key -> its label (SweepAxis::labels)
  RunSpec run;
  /// Canonical JSON of everything that defines the run (written as point.json; resume compares it),
  /// with paths relative to the spec file's folder.
  std::string fingerprint;
};

/// The spec's "policy_files" key: Python policy files (FILE or FILE:ClassName) whose classes the
/// spec's "policies" may name, resolved against the spec's folder and checked to exist. Empty when
/// the key is absent. Loading them needs Python: the CLI (--policy-file) and the `hetsim` module do
/// it before parsing the spec. Throws InputError naming the spec and the key.
std::vector<std::string> spec_policy_files(const nlohmann::ordered_json& doc, const std::string& path);

/// Reads and validates a spec file. Throws InputError naming the file and the key.
ExperimentSpec load_experiment_spec(const std::string& path, const PolicyRegistry& registry);
/// The same over JSON text already in memory (the file version calls it); `path` names the spec
/// in errors and anchors relative paths, as for a file.
ExperimentSpec load_experiment_spec(const std::string& path, std::string_view text, const PolicyRegistry& registry);

/// Validates a parsed spec document; `path` names it in errors and anchors relative paths.
ExperimentSpec parse_experiment_spec(const nlohmann::ordered_json& doc, const std::string& path,
                                     const PolicyRegistry& registry);

/// Expands the cross product of axes and policies into points, and checks each one (policy
/// parameters, generator settings) before anything runs. Throws InputError naming the spec.
std::vector<ExperimentPoint> expand_points(const ExperimentSpec& spec, const PolicyRegistry& registry);

/// Reads every distinct input of the points (cluster, trace or generator, throughput table, model
/// and its parameters) once, as `run` would, so a malformed trace or an undeclared model parameter
/// is one InputError naming the spec and the point before anything runs, not a failed point.
void check_point_inputs(const ExperimentSpec& spec, const std::vector<ExperimentPoint>& points);

/// The text a value takes in results and folder names: strings as they are, numbers as JSON.
std::string value_text(const nlohmann::ordered_json& value);

}  // namespace hetsim
