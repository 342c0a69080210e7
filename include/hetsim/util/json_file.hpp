#pragma once
/// Reading JSON inputs (cluster specs, throughput tables, experiment specs) with errors a user can
/// act on: nlohmann reports a byte offset, hetsim reports the line.
#include <nlohmann/json.hpp>
#include <string>

namespace hetsim {

/// Reads and parses a JSON file. Throws InputError naming the file when it cannot be opened, the
/// file and line (with nlohmann's message) on a syntax error, and the file, line and key when an
/// object repeats a key (nlohmann would keep the last value silently; the loaders are strict).
nlohmann::json parse_json_file(const std::string& path);

/// The same, keeping object keys in file order (experiment specs, whose key order is the order of
/// sweep axes and settings).
nlohmann::ordered_json read_json_file(const std::string& path);

}  // namespace hetsim
