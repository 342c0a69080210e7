#pragma once
/// Errors raised on bad input. Every message names the file, the line and the field, so a user can
/// fix the input without reading hetsim's source.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace hetsim {

/// Bad user input (trace row, cluster spec, throughput table, CLI value). The CLI maps it to exit
/// code 2. `line` is 1-based; 0 means "the whole file" (a missing file, a JSON document error).
class InputError : public std::runtime_error {
 public:
  /// Builds "file:line: field 'field': message" (parts that are empty are left out).
  InputError(std::string file, std::size_t line, std::string field, const std::string& message);

  /// The file the error is in (may be empty for CLI values).
  const std::string& file() const { return file_; }
  /// 1-based line, or 0 for the whole file.
  std::size_t line() const { return line_; }
  /// The offending field or column name (may be empty).
  const std::string& field() const { return field_; }
  /// The message alone, without the file, line and field (to rethrow with a better location).
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string field_;
  std::string message_;
};

}  // namespace hetsim
