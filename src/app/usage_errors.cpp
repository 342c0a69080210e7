#include "usage_errors.hpp"

#include <fmt/core.h>
#include <string_view>

namespace hetsim::app {
namespace {

// "PREFIX<name> = <value>" or "PREFIX<name>: <rest>" -> the parts, when `text` has that shape.
bool split_after(std::string_view text, std::string_view prefix, std::string_view sep, std::string& name,
                 std::string& rest) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  const std::size_t at = text.find(sep);
  if (at == std::string_view::npos || at == 0) return false;
  name = std::string(text.substr(0, at));
  rest = std::string(text.substr(at + sep.size()));
  return true;
}

}  // namespace

std::string usage_error_text(const CLI::ParseError& e) {
  const std::string what = e.what();
  std::string name, rest;
  // CLI11 2.x texts: "Could not convert: --interval = 60abc", "--policy: At Most 1 required but
  // received 2", "--seed: 1 required UINT:UINT missing", "--log-level: <our validator's text>".
  if (dynamic_cast<const CLI::ConversionError*>(&e) && split_after(what, "Could not convert: ", " = ", name, rest))
    return fmt::format("field '{}': expected a number, got '{}'", name, rest);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && split_after(what, "", ": ", name, rest)) {
    if (rest.find("At Most") != std::string::npos) return fmt::format("field '{}': give it once", name);
    if (rest.find("missing") != std::string::npos) return fmt::format("field '{}': a value is missing", name);
  }
  if (split_after(what, "", ": ", name, rest) && name.starts_with("-") && name.find(' ') == std::string::npos)
    return fmt::format("field '{}': {}", name, rest);
  return what;  // extras, a missing subcommand, ...: CLI11's sentence names the argument already
}

}  // namespace hetsim::app
