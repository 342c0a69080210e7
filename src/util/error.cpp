#include "hetsim/util/error.hpp"

#include <fmt/format.h>

namespace hetsim {
namespace {
std::string compose(const std::string& file, std::size_t line, const std::string& field,
                    const std::string& message) {
  std::string where = file;
  if (line > 0) where += fmt::format(":{}", line);
  std::string out;
  if (!where.empty()) out += where + ": ";
  if (!field.empty()) out += fmt::format("field '{}': ", field);
  out += message;
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
