// Fuzz target: the ITP trace reader (format itp: work = duration), in memory.
#include "fuzz_support.hpp"
#include "hetsim/trace/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] { hetsim::read_itp_trace("fuzz.csv", text, false); });
  return 0;
}
