// Fuzz target: a Pollux/Sia application profile, in memory: a validation curve (read for batch
// sizes 64 and 256), a line `----`, a placements CSV, a line `----`, a scalability CSV (may be
// absent). A profile that loads becomes an application whose batch arithmetic the goodput model
// uses on every pass (split_batch, grad_stats, iteration, epoch_of) is then exercised.
#include <map>

#include "fuzz_support.hpp"
#include "hetsim/perf/pollux_app.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Named views, not structured bindings: clang 14 cannot capture those in a lambda.
  const auto first = hetsim::fuzz::split_at(hetsim::fuzz::text_of(data, size), "----");
  const auto second = hetsim::fuzz::split_at(first.second, "----");
  const std::string_view validation_text = first.first, placements_text = second.first,
                         scalability_text = second.second;
  std::map<int, hetsim::ValidationCurve> validation;
  std::map<std::string, hetsim::StepProfile> profiles;
  const bool read = hetsim::fuzz::expect_input_error([&] {
    validation[64] = hetsim::read_validation_curve("validation-64.csv", validation_text, 64);
    validation[256] = hetsim::read_validation_curve("validation-256.csv", validation_text, 256);
    hetsim::StepProfile& t4 = profiles["t4"];
    t4.gpu_type = "t4";
    t4.placements = hetsim::read_step_samples("placements.csv", placements_text, false);
    if (!scalability_text.empty()) t4.scalability = hetsim::read_step_samples("scalability.csv", scalability_text, true);
  });
  if (!read) return 0;
  // Errors about the whole application name no single file.
  hetsim::fuzz::expect_input_error(
      [&] {
        const hetsim::PolluxApplication app =
            hetsim::PolluxApplication::from_profiles("app", std::move(validation), std::move(profiles), "fuzz");
        for (int batch : {64, 100, 256})
          for (int replicas = 1; replicas <= 8; ++replicas) hetsim::split_batch(app, batch, replicas);
        for (int epoch = 0; epoch <= app.max_epochs(); ++epoch) {
          app.grad_stats(100.0, epoch);
          app.iteration(100.0, epoch);
        }
        app.epoch_of(app.total_progress() / 2);
      },
      false);
  return 0;
}
