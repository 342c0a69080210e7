#pragma once
// Command-line usage errors (CLI11's ParseError) in the words of every other input error:
// "field '--opt': what is wrong, got VALUE".
#include <CLI/CLI.hpp>
#include <string>

namespace hetsim::app {

/// The message printed after "hetsim: error: " for a usage error (not for --help or --version).
std::string usage_error_text(const CLI::ParseError& e);

}  // namespace hetsim::app
