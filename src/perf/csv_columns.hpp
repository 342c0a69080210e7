#pragma once
// A header-addressed numeric CSV (private to src/perf/): the Pollux/Sia profile files put their
// columns in different orders, so every column is looked up by name.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hetsim::perf_detail {

/// A CSV whose first line is a header and whose cells are all numbers.
struct NumericCsv {
  std::string path;
  std::vector<std::string> header;
  /// Every row's cells one after another (row i is values[i * header.size() ...], in header
  /// order): one buffer instead of a vector per row, whose allocations and first-touch page
  /// faults were a large part of a short Pollux run (issue 19).
  std::vector<double> values;
  std::vector<std::size_t> lines;  ///< 1-based file line of each row
  std::size_t size() const { return lines.size(); }
  /// Row `i`'s first cell (header.size() cells follow).
  const double* row(std::size_t i) const { return values.data() + i * header.size(); }
  /// Column index of `name`; throws InputError naming the file when absent.
  std::size_t column(const std::string& name) const;
  /// True when the header has `name`.
  bool has(const std::string& name) const;
};

/// Reads `path`; throws InputError (file:line:field) on a missing file, a ragged row or a cell that
/// is not a finite number. Blank lines are skipped.
NumericCsv read_numeric_csv(const std::string& path);
/// The same over text already in memory; `path` is used in errors only.
NumericCsv read_numeric_csv(const std::string& path, std::string_view text);

}  // namespace hetsim::perf_detail
