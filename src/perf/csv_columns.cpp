#include "csv_columns.hpp"

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
    std::vector<std::string_view> cells = split(line, ',');
    if (csv.header.empty()) {
      for (std::string_view c : cells) csv.header.emplace_back(trim(c));
      continue;
    }
    if (cells.size() != csv.header.size())
      throw InputError(path, line_no, "", fmt::format("expected {} fields, got {}", csv.header.size(), cells.size()));
    std::vector<double> row;
    row.reserve(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c)
      row.push_back(parse_double(cells[c], SourcePos{path, line_no, csv.header[c]}));
    csv.rows.push_back(std::move(row));
    csv.lines.push_back(line_no);
    if (end == text.size()) break;
  }
  if (csv.header.empty()) throw InputError(path, 0, "", "empty file (no header)");
  return csv;
}

}  // namespace hetsim::perf_detail
