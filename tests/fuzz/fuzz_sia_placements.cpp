// Fuzz target: one Sia placements CSV (sia-simulator/traces/<app>/placements-dgx-ext.csv), in
// memory, as a profile tensor.
#include "fuzz_support.hpp"
#include "hetsim/perf/profile_tensor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] { hetsim::load_sia_placements("placements-dgx-ext.csv", text, "app", "a100"); });
  return 0;
}
