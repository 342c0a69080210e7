#pragma once
/// Small strict parsers shared by every reader: a value either parses completely or the reader
/// throws an InputError that names where it came from.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hetsim {

/// Where a value came from, for error messages.
struct SourcePos {
  std::string_view file;
  std::size_t line = 0;
  std::string_view field;
};

/// Parses a finite double; the whole (trimmed) text must be consumed. Throws InputError.
double parse_double(std::string_view text, const SourcePos& pos);
/// Largest magnitude parse_int accepts for a count written as a float ("1e30" is out of range):
/// below 2^53, where doubles still hold every whole number.
inline constexpr double kMaxParsedWholeNumber = 9.0e15;

/// Parses a base-10 integer; the whole (trimmed) text must be consumed. Accepts "4.0" only when the
/// fraction is zero (some traces write counts as floats), and floats only within
/// +-kMaxParsedWholeNumber. Throws InputError ("out of range" naming the limit, or "expected a
/// whole number").
long long parse_int(std::string_view text, const SourcePos& pos);
/// Removes leading and trailing blanks (spaces, tabs, CR).
std::string_view trim(std::string_view text);
/// Splits one line on `sep` without quoting rules (the formats hetsim reads do not quote).
std::vector<std::string_view> split(std::string_view line, char sep);
/// `text` without a leading UTF-8 byte-order mark (EF BB BF), which spreadsheet tools put in front
/// of CSV files they save; unchanged when there is none.
std::string_view strip_utf8_bom(std::string_view text);
/// Lower-cases ASCII.
std::string to_lower(std::string_view text);
/// Most bytes read from one input file (1 GiB; the largest public traces are a few hundred MB).
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;
/// Reads a whole file; throws InputError naming the file when it cannot be opened, is a folder or
/// a device (/dev/zero would be read without end), is larger than kMaxInputBytes, or was not read
/// completely (an I/O error, out of memory, a size that changed while reading).
std::string read_file(const std::string& path);

}  // namespace hetsim
