#pragma once
/// Reading JSON inputs (cluster specs, throughput tables, experiment specs) with errors a user can
/// act on: nlohmann reports a byte offset, hetsim reports the line.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hetsim {

/// Reads and parses a JSON file. Throws InputError naming the file when it cannot be opened, the
/// file and line (with nlohmann's message) on a syntax error, and the file, line and key when an
/// object repeats a key (nlohmann would keep the last value silently; the loaders are strict).
nlohmann::json parse_json_file(const std::string& path);

/// The same, keeping object keys in file order (experiment specs, whose key order is the order of
/// sweep axes and settings).
nlohmann::ordered_json read_json_file(const std::string& path);

/// The same over text already in memory (the file versions read the file and call these, so the
/// messages are identical); `name` is used in error messages only. Fuzzing enters here.
nlohmann::json parse_json_text(const std::string& name, std::string_view text);
nlohmann::ordered_json read_json_text(const std::string& name, std::string_view text);

}  // namespace hetsim
