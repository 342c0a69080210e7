#include "hetsim/util/json_file.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

template <class Json>
Json parse_file(const std::string& path) {
  const std::string text = read_file(path);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t end = std::min<std::size_t>(e.byte, text.size());
    const auto line =
        1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    throw InputError(path, line, "", fmt::format("invalid JSON: {}", e.what()));
  }
}

}  // namespace

nlohmann::json parse_json_file(const std::string& path) { return parse_file<nlohmann::json>(path); }

nlohmann::ordered_json read_json_file(const std::string& path) { return parse_file<nlohmann::ordered_json>(path); }

}  // namespace hetsim
