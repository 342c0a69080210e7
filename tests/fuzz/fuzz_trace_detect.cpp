// Fuzz target: format detection from the first line, then the detected format's reader through the
// registry (what `--format auto` does with a file).
#include "fuzz_support.hpp"
#include "hetsim/trace/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsim::FormatRegistry formats = hetsim::make_default_format_registry();
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] {
    const hetsim::TraceFormat format = hetsim::detect_trace_format("fuzz.trace", text);
    for (const hetsim::FormatInfo& info : formats.all())
      if (info.format == format) info.read("fuzz.trace", text, hetsim::TraceOptions{});
  });
  return 0;
}
