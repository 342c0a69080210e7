#pragma once
// Helpers shared by the tests: where the real data is, and a skip message when it is absent.
#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
#include <string>

namespace hetsim::test {

/// Path of a file under ../shared/data, or nullopt (with a WARN naming it) when it is absent, so
/// a test that needs real data skips with a clear message on machines that do not have it.
inline std::optional<std::string> shared_data(const std::string& relative) {
  std::filesystem::path p = std::filesystem::path(HETSIM_SHARED_DATA) / relative;
  if (!std::filesystem::exists(p)) {
    WARN("SKIPPED: shared data file absent: " << p.string());
    return std::nullopt;
  }
  return p.string();
}

/// Path of a file in the source tree (traces/, experiments/ ...).
inline std::string source_path(const std::string& relative) {
  return (std::filesystem::path(HETSIM_SOURCE_DIR) / relative).string();
}

}  // namespace hetsim::test
