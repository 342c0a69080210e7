// Fuzz target: a Gavel or Heet throughput JSON read as a profile tensor (the collaborative
// filter's input, `--profiling cf`), in memory.
#include "fuzz_support.hpp"
#include "hetsim/perf/profile_tensor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] { hetsim::load_profile_tensor("fuzz.json", text); });
  return 0;
}
