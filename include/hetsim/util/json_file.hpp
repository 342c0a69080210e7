#pragma once
/// Reading JSON input files with errors that name the file and line.
#include <nlohmann/json.hpp>
#include <string>

namespace hetsim {

/// Reads and parses a JSON file, keeping object keys in file order. Throws InputError naming the
/// file (missing or unreadable) or the file and line (a syntax error; nlohmann reports only a byte
/// offset, converted here).
nlohmann::ordered_json read_json_file(const std::string& path);

}  // namespace hetsim
