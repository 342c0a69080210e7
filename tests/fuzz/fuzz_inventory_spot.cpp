// Fuzz target: the Alibaba spot GPU (gpu_model,gpu_capacity_num,cpu_num,node_name) node inventory (docs/cluster-format.md "Node inventories"), in memory.
#include "fuzz_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error(
      [&] { hetsim::import_node_inventory(hetsim::InventoryFormat::AlibabaSpot, "fuzz.csv", text); });
  return 0;
}
