#pragma once
// Progress of sweep and check: one line per finished point with its wall time, and the bar.
#include <fmt/core.h>
#include <memory>

#include "hetsim/experiment/sweep.hpp"
#include "progress.hpp"

namespace hetsim::app {

/// Hooks `bar` into `so` (nothing under -q). `bar` must outlive the sweep.
inline void attach_sweep_progress(SweepOptions& so, ProgressBar& bar) {
  if (!bar.printer().settings().enabled) return;
  auto last_wall_s = std::make_shared<double>(-1.0);
  so.point_done = [&bar, last_wall_s](const ExperimentPoint& p, double wall_s, bool ok) {
    *last_wall_s = wall_s;
    bar.printer().note(fmt::format("hetsim: point {} {} in {:.1f} s", p.id, ok ? "done" : "failed", wall_s));
  };
  so.progress = [&bar, last_wall_s](std::size_t done, std::size_t total, std::size_t failed) {
    bar.update(done, total, failed, *last_wall_s);
  };
}

}  // namespace hetsim::app
