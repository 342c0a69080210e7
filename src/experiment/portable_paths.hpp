#pragma once
// How path values of an experiment spec appear in what a sweep writes (point ids, results.csv,
// point.json): never as the machine's absolute paths, so results move between machines and a
// resume from another working directory finds its points (docs/EXPERIMENTS.md, "Point ids").
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetsim/experiment/run_keys.hpp"

namespace hetsim::portable {

/// True for the key kinds whose values name files or folders.
bool is_path_kind(RunKeyKind kind);

/// A resolved path value (as stored in the spec) relative to the spec file's folder, '/'-separated;
/// a preset cluster name stays as it is, an inventory prefix ("alibaba-openb:") is kept in front.
std::string spec_relative(const std::string& resolved, const std::string& spec_path);

/// Labels for one axis's path values: the fewest trailing path components that still tell every
/// value of the axis apart (usually the file name), each from spec_relative().
std::vector<std::string> axis_labels(const std::vector<std::string>& spec_relative_values);

}  // namespace hetsim::portable
