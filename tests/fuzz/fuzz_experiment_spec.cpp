// Fuzz target: an experiment spec (docs/experiment-spec.md), in memory, validated against the
// default policy registry; a spec of at most 64 points is also expanded (each point is checked
// then, as `sweep` does before running anything).
#include "fuzz_support.hpp"
#include "hetsim/experiment/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsim::PolicyRegistry registry = hetsim::make_default_registry();
  const std::string_view text = hetsim::fuzz::text_of(data, size);
  hetsim::fuzz::expect_input_error([&] {
    const hetsim::ExperimentSpec spec = hetsim::load_experiment_spec("fuzz.json", text, registry);
    std::size_t points = spec.policies.size();
    for (const hetsim::SweepAxis& axis : spec.axes) points *= std::max<std::size_t>(axis.values.size(), 1);
    if (points <= 64 && spec.axes.size() <= 8) hetsim::expand_points(spec, registry);
  });
  return 0;
}
