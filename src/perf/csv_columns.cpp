#include "csv_columns.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim::perf_detail {

std::size_t NumericCsv::column(const std::string& name) const {
  for (std::size_t c = 0; c < header.size(); ++c)
    if (header[c] == name) return c;
  throw InputError(path, 1, name, "missing column");
}

bool NumericCsv::has(const std::string& name) const {
  for (const std::string& h : header)
    if (h == name) return true;
  return false;
}

NumericCsv read_numeric_csv(const std::string& path) { return read_numeric_csv(path, read_file(path)); }

NumericCsv read_numeric_csv(const std::string& path, std::string_view text) {
  NumericCsv csv;
  csv.path = path;
  // About one row per 40 bytes in the published profiles: one allocation for most files.
  csv.values.reserve(text.size() / 8);
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (trim(line).empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (csv.header.empty()) {
      for (std::string_view c : split(line, ',')) csv.header.emplace_back(trim(c));
      continue;
    }
    // The cells are walked in place (no vector of views per line); the count is checked first so
    // that a ragged row is reported as before, before any of its cells is parsed.
    const std::size_t cells = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    if (cells != csv.header.size())
      throw InputError(path, line_no, "", fmt::format("expected {} fields, got {}", csv.header.size(), cells));
    std::size_t start = 0;
    for (std::size_t c = 0; c < cells; ++c) {
      std::size_t comma = c + 1 < cells ? line.find(',', start) : line.size();
      csv.values.push_back(parse_double(line.substr(start, comma - start), SourcePos{path, line_no, csv.header[c]}));
      start = comma + 1;
    }
    csv.lines.push_back(line_no);
    if (end == text.size()) break;
  }
  if (csv.header.empty()) throw InputError(path, 0, "", "empty file (no header)");
  return csv;
}

}  // namespace hetsim::perf_detail
