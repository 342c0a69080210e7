#include "hetsim/util/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& field, int err) {
  // errno is what the failing open/write/close left behind; 0 when the library failed without a
  // system error (then there is no better reason to give).
  const std::string reason = err != 0 ? std::strerror(err) : "write error";
  throw InputError(file.string(), 0, field, "cannot write file: " + reason);
}

}  // namespace

void write_file_checked(const std::filesystem::path& file, const std::string& field,
                        const std::function<void(std::ostream&)>& write) {
  errno = 0;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) fail(file, field, errno);
  write(out);
  // Take errno as soon as the stream goes bad: later calls may overwrite it.
  if (!out) fail(file, field, errno);
  errno = 0;
  out.flush();
  if (!out) fail(file, field, errno);
  errno = 0;
  out.close();
  if (out.fail()) fail(file, field, errno);
}

void write_text_checked(const std::filesystem::path& file, const std::string& field, const std::string& text) {
  write_file_checked(file, field, [&](std::ostream& out) { out << text; });
}

std::string safe_folder_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_' || c == '=' || c == '(' || c == ')' || c == ',';
    out += ok ? c : '_';
  }
  return out.empty() || out == "." || out == ".." ? "_" + out : out;
}

}  // namespace hetsim
