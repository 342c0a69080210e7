#include "hetsim/util/error.hpp"

#include <fmt/format.h>

namespace hetsim {
namespace {
// A field or message can echo user input (a JSON value, a trace cell); a megabyte value would bury the
// message, so each part is cut to a readable length, on a UTF-8 character boundary.
constexpr std::size_t kMaxFieldChars = 300;
constexpr std::size_t kMaxMessageChars = 4000;

std::string shorten(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return fmt::format("{}... ({} more bytes)", text.substr(0, cut), text.size() - cut);
}

std::string compose(const std::string& file, std::size_t line, const std::string& field,
                    const std::string& message) {
  std::string where = file;
  if (line > 0) where += fmt::format(":{}", line);
  std::string out;
  if (!where.empty()) out += where + ": ";
  if (!field.empty()) out += fmt::format("field '{}': ", shorten(field, kMaxFieldChars));
  out += shorten(message, kMaxMessageChars);
  return out;
}
}  // namespace

InputError::InputError(std::string file, std::size_t line, std::string field,
                       const std::string& message)
    : std::runtime_error(compose(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      message_(message) {}

}  // namespace hetsim
