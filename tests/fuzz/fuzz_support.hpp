#pragma once
// What every harness shares: the fuzzer's bytes as text, and the rule for what may escape a parser.
//
// Bad input may only fail as the CLI's exit 2 does (src/app/main.cpp): an InputError, or a
// nlohmann::json exception from a JSON input. Anything else escaping (std::out_of_range,
// std::logic_error, ...) is a bug, and so is an InputError that names no file: the harness lets
// the first escape (libFuzzer reports the uncaught exception as a crash) and traps on the second.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "hetsim/util/error.hpp"

namespace hetsim::fuzz {

/// The input as text (bytes as they are: readers must cope with NULs and invalid UTF-8).
inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// HETSIM_FUZZ_VERBOSE=1 prints every expected error (to see what the seeds reach).
inline bool verbose() {
  static const bool on = std::getenv("HETSIM_FUZZ_VERBOSE") != nullptr;
  return on;
}

/// HETSIM_FUZZ_STRICT=1 makes a nlohmann::json exception a failure too: the loaders aim to turn
/// every bad value into an InputError with its key path, and this finds the ones that do not.
inline bool strict() {
  static const bool on = std::getenv("HETSIM_FUZZ_STRICT") != nullptr;
  return on;
}

/// Runs `parse`; returns true when it succeeded, false on an expected input error.
/// `needs_file`: an InputError must name the file (false for errors about a whole set of inputs).
template <class F>
bool expect_input_error(F&& parse, bool needs_file = true) {
  try {
    parse();
    return true;
  } catch (const InputError& e) {
    if (verbose()) std::fprintf(stderr, "InputError: %s\n", e.what());
    if (needs_file && e.file().empty()) __builtin_trap();  // a message a user cannot place
    return false;
  } catch (const nlohmann::json::exception& e) {
    if (verbose() || strict()) std::fprintf(stderr, "json exception: %s\n", e.what());
    if (strict()) __builtin_trap();
    return false;
  }
}

/// Splits `text` at the first line that is exactly `separator`: (before, after). Harnesses that
/// need two files (a PAI list and its header, a validation curve and a step profile) take both
/// from one input this way; without the separator, `after` is empty.
inline std::pair<std::string_view, std::string_view> split_at(std::string_view text, std::string_view separator) {
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    if (text.substr(from, end - from) == separator)
      return {text.substr(0, from), end < text.size() ? text.substr(end + 1) : std::string_view{}};
    from = end + 1;
  }
  return {text, {}};
}

}  // namespace hetsim::fuzz
