// Job ids from trace files (native, itp, pollux, alibaba-openb) are copied into every output: a
// NUL, a newline or bytes that are not UTF-8 would corrupt jobs.csv or make summary.json invalid
// JSON, so they are refused where they are read, naming the byte.
#include <fmt/format.h>

#include "hetsim/util/error.hpp"
#include "reader_common.hpp"

namespace hetsim::trace_detail {
namespace {

// Length of the UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) n = 2;
  else if (b == 0xE0) n = 3, lo = 0xA0;
  else if (b >= 0xE1 && b <= 0xEC) n = 3;
  else if (b == 0xED) n = 3, hi = 0x9F;
  else if (b >= 0xEE && b <= 0xEF) n = 3;
  else if (b == 0xF0) n = 4, lo = 0x90;
  else if (b >= 0xF1 && b <= 0xF3) n = 4;
  else if (b == 0xF4) n = 4, hi = 0x8F;
  else return 0;
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

void check_job_id(std::string_view id, const SourcePos& pos) {
  if (id.empty()) throw InputError(std::string(pos.file), pos.line, std::string(pos.field), "empty job id");
  for (std::size_t i = 0; i < id.size();) {
    const auto b = static_cast<unsigned char>(id[i]);
    if (b < 0x20 || b == 0x7F)
      throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                       fmt::format("job id has a control character (byte 0x{:02X} at position {})", b, i + 1));
    const std::size_t n = utf8_length(id, i);
    if (n == 0)
      throw InputError(std::string(pos.file), pos.line, std::string(pos.field),
                       fmt::format("job id is not valid UTF-8 (byte 0x{:02X} at position {})", b, i + 1));
    i += n;
  }
}

}  // namespace hetsim::trace_detail
