// Fuzz target: a JSON cluster spec (docs/cluster-format.md), in memory; a cluster that loads is
// also turned into its topology, which every run builds next.
#include "fuzz_support.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/cluster/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] {
    const hetsim::Cluster cluster = hetsim::load_cluster_spec("fuzz.json", text);
    if (cluster.total_gpus() <= 4096) hetsim::Topology topology(cluster);  // bounded: a spec may ask for millions
  });
  return 0;
}
