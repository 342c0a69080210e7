#include "portable_paths.hpp"

#include <filesystem>
#include <set>

#include "hetsim/cluster/cluster_spec.hpp"

namespace hetsim::portable {
namespace {

namespace fs = std::filesystem;

// Splits "alibaba-openb:/x/nodes.csv" into the prefix (with its colon) and the path. A value
// without a prefix (or a Windows-style drive, which has no slash before the colon) is all path.
std::pair<std::string, std::string> split_prefix(const std::string& value) {
  const auto colon = value.find(':');
  if (colon == std::string::npos || colon == 0 || value.find('/') < colon) return {"", value};
  return {value.substr(0, colon + 1), value.substr(colon + 1)};
}

// The last `n` components of a '/'-separated relative path (all of them when it has fewer).
std::string tail(const std::string& path, std::size_t n) {
  std::size_t cut = path.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (cut == 0) return path;
    const auto slash = path.rfind('/', cut - 1);
    if (slash == std::string::npos) return path;
    cut = slash;
  }
  return path.substr(cut + 1);
}

}  // namespace

bool is_path_kind(RunKeyKind kind) {
  return kind == RunKeyKind::Path || kind == RunKeyKind::Folder || kind == RunKeyKind::Cluster ||
         kind == RunKeyKind::Table;
}

std::string spec_relative(const std::string& resolved, const std::string& spec_path) {
  if (resolved.empty() || make_preset(resolved)) return resolved;
  const auto [prefix, path] = split_prefix(resolved);
  if (path.empty()) return resolved;
  std::error_code ec;
  const fs::path base = fs::absolute(fs::path(spec_path).parent_path(), ec).lexically_normal();
  const fs::path file = fs::absolute(path, ec).lexically_normal();
  fs::path rel = file.lexically_relative(base);
  // Different roots (another drive) have no relative path: the file name is all that is portable.
  if (rel.empty()) rel = file.filename();
  return prefix + rel.generic_string();
}

std::vector<std::string> axis_labels(const std::vector<std::string>& values) {
  for (std::size_t n = 1;; ++n) {
    std::vector<std::string> labels;
    std::set<std::string> seen;
    bool whole = true;  // every label is already its whole value: more components cannot help
    for (const std::string& v : values) {
      const auto [prefix, path] = split_prefix(v);
      labels.push_back(prefix + tail(path, n));
      seen.insert(labels.back());
      whole = whole && labels.back() == v;
    }
    if (seen.size() == values.size() || whole) return labels;
  }
}

}  // namespace hetsim::portable
