// Fuzz target: the Alibaba PAI 2020 machine list and its companion .header file, in memory. The
// input is the header file's text, a line `----`, then the headerless machine list.
#include "fuzz_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Named views, not a structured binding: clang 14 cannot capture those in a lambda.
  const auto parts = hetsim::fuzz::split_at(hetsim::fuzz::text_of(data, size), "----");
  const std::string_view header = parts.first, list = parts.second;
  hetsim::fuzz::expect_input_error(
      [&] { hetsim::import_node_inventory(hetsim::InventoryFormat::AlibabaPai, "fuzz.csv", list, header); });
  return 0;
}
