#include "hetsim/util/json_file.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <vector>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

// Calls on_key(line) for each object key of `text` in document order (the line, 1-based, of its
// opening quote) until on_key returns false. Keys are string literals followed by a colon: exact
// for JSON text that parses.
template <class OnKey>
void scan_keys(std::string_view text, OnKey on_key) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
    if (text[i] != '"') continue;
    const std::size_t start_line = line;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') ++i;
      else if (text[i] == '\n') ++line;
    }
    std::size_t j = i + 1;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n')) ++j;
    if (j < text.size() && text[j] == ':' && !on_key(start_line)) return;
  }
}

// Line of the `index`-th (0-based) object key, 0 when there is none: the parser callback reports
// keys in document order but not where they are.
std::size_t key_line(std::string_view text, std::size_t index) {
  std::size_t keys = 0, found = 0;
  scan_keys(text, [&](std::size_t line) {
    if (keys++ != index) return true;
    found = line;
    return false;
  });
  return found;
}

std::size_t count_keys(std::string_view text) {
  std::size_t keys = 0;
  scan_keys(text, [&](std::size_t) { return ++keys > 0; });
  return keys;
}

// Keys held by the objects of a parsed document: fewer than count_keys() when one was repeated.
// A stack, not recursion: a document may nest 100,000 deep.
template <class Json>
std::size_t keys_held(const Json& document) {
  std::size_t keys = 0;
  std::vector<const Json*> open{&document};
  while (!open.empty()) {
    const Json* value = open.back();
    open.pop_back();
    if (value->is_object()) keys += value->size();
    if (value->is_structured())
      for (const Json& child : *value) open.push_back(&child);
  }
  return keys;
}

// The checking parse below, which names a repeated key and its lines, costs a map node and a key
// copy per key: a 1.2 MB throughput table spent a third of its parse there. Parse plainly first
// and take the result when every key of the text is in it (none repeated); on any doubt or error,
// the checking parse runs and gives its exact message.
template <class Json>
std::optional<Json> parse_if_no_repeated_key(std::string_view text) {
  try {
    Json parsed = Json::parse(text);
    if (keys_held(parsed) == count_keys(text)) return parsed;
  } catch (const nlohmann::json::exception&) {
  }
  return std::nullopt;
}

template <class Json>
Json parse_text(const std::string& path, std::string_view text) {
  if (std::optional<Json> parsed = parse_if_no_repeated_key<Json>(text)) return std::move(*parsed);
  // Keys seen in each open object (key -> its index among all keys of the file), innermost last.
  std::vector<std::map<std::string, std::size_t>> open_objects;
  std::size_t keys_seen = 0;
  std::string last_key;  // the key whose value is being parsed (for errors nlohmann gives no place for)
  auto check_keys = [&](int /*depth*/, nlohmann::json::parse_event_t event, Json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) {
      open_objects.emplace_back();
    } else if (event == E::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == E::key && !open_objects.empty()) {
      const std::string key = parsed.template get<std::string>();
      const std::size_t index = keys_seen++;
      last_key = key;
      if (auto [it, fresh] = open_objects.back().emplace(key, index); !fresh) {
        const std::size_t first = key_line(text, it->second);
        throw InputError(path, key_line(text, index), key,
                         first > 0 ? fmt::format("duplicate key (first given on line {}); give each key once", first)
                                   : std::string("duplicate key; give each key once"));
      }
    }
    return true;
  };
  try {
    return Json::parse(text, check_keys);
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t end = std::min<std::size_t>(e.byte, text.size());
    const auto line =
        1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    throw InputError(path, line, "", fmt::format("invalid JSON: {}", e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double's range (1e400): nlohmann throws without a position; the key being
    // parsed names the place (its line is the key's, as values follow their key on that line).
    const std::size_t line = keys_seen > 0 ? key_line(text, keys_seen - 1) : 0;
    throw InputError(path, line, last_key,
                     fmt::format("number out of range (beyond +-1.8e308): {}", e.what()));
  }
}

}  // namespace

nlohmann::json parse_json_file(const std::string& path) { return parse_text<nlohmann::json>(path, read_file(path)); }

nlohmann::ordered_json read_json_file(const std::string& path) {
  return parse_text<nlohmann::ordered_json>(path, read_file(path));
}

nlohmann::json parse_json_text(const std::string& name, std::string_view text) {
  return parse_text<nlohmann::json>(name, text);
}

nlohmann::ordered_json read_json_text(const std::string& name, std::string_view text) {
  return parse_text<nlohmann::ordered_json>(name, text);
}

}  // namespace hetsim
