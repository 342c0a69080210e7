#include "hetsim/util/parse.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "hetsim/util/error.hpp"

namespace hetsim {

std::string_view trim(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = line.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

double parse_double(std::string_view text, const SourcePos& pos) {
  std::string_view t = trim(text);
  double value = 0.0;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (!t.empty() && ec == std::errc::result_out_of_range && ptr == t.data() + t.size()) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     "'" + std::string(t) + "' is out of the range of a double (magnitudes 2.2e-308 to 1.8e308, or 0)");
  }
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     "expected a number, got '" + std::string(trim(text)) + "'");
  }
  if (!std::isfinite(value)) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     "expected a finite number, got '" + std::string(trim(text)) + "'");
  }
  return value;
}

long long parse_int(std::string_view text, const SourcePos& pos) {
  std::string_view t = trim(text);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (!t.empty() && ec == std::errc() && ptr == t.data() + t.size()) return value;
  // Counts written as floats ("4.0") are accepted when they are whole numbers. Beyond 2^53 a
  // double no longer holds every whole number, so larger values are out of range, not rounded.
  double d = parse_double(text, pos);
  if (std::fabs(d) > kMaxParsedWholeNumber) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     fmt::format("'{}' is out of range: whole numbers must lie within +-{:.0e}", t, kMaxParsedWholeNumber));
  }
  if (std::floor(d) != d) {
    throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                     "expected a whole number, got '" + std::string(t) + "'");
  }
  return static_cast<long long>(d);
}

std::string_view strip_utf8_bom(std::string_view text) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.starts_with(bom)) text.remove_prefix(bom.size());
  return text;
}

std::string read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError(path, 0, "", "is a directory, not a file");
  // /dev/zero or a terminal would be read without end; a pipe (FIFO, /dev/stdin) is read up to the bound.
  if (fs::is_character_file(st) || fs::is_block_file(st) || fs::is_socket(st))
    throw InputError(path, 0, "", "is a device, not a file (pass a file, or a pipe)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  const bool regular = fs::is_regular_file(st);
  const std::uintmax_t size = regular ? fs::file_size(path, ec) : 0;
  if (regular && !ec && size > kMaxInputBytes)
    throw InputError(path, 0, "", fmt::format("is {} bytes, more than the {} bytes hetsim reads from one input", size,
                                              kMaxInputBytes));
  std::string text;
  try {
    if (regular && !ec) text.reserve(static_cast<std::size_t>(size));
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      text.append(buf, static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxInputBytes)
        throw InputError(path, 0, "", fmt::format("more than {} bytes: hetsim reads at most that from one input", kMaxInputBytes));
    }
  } catch (const std::bad_alloc&) {
    throw InputError(path, 0, "", fmt::format("out of memory after reading {} bytes", text.size()));
  }
  // A read that stopped early (an I/O error, a file cut while read) must not pass for the whole
  // file: the parser would report a misleading error, or none.
  if (in.bad()) throw InputError(path, 0, "", fmt::format("read error after {} bytes", text.size()));
  if (regular && !ec && text.size() != size)
    throw InputError(path, 0, "", fmt::format("read {} of its {} bytes (changed while read?)", text.size(), size));
  return text;
}

}  // namespace hetsim
