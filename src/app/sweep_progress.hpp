#pragma once
// Progress of sweep and check: one line per finished point with its wall time, the bar, and the
// points' warnings (each distinct text once at --log-level warning, every one at info).
#include <fmt/core.h>
#include <memory>
#include <set>
#include <string>

#include "hetsim/experiment/sweep.hpp"
#include "log.hpp"
#include "progress.hpp"

namespace hetsim::app {

/// Warnings the sweep did not repeat; reported once after the sweep.
struct SweepWarnings {
  std::set<std::string> seen;
  std::size_t repeated = 0;
  /// "hetsim: N repeated warnings not shown ..." when some were held back.
  void report(const Logger& log) const {
    if (repeated > 0)
      log.note(fmt::format("{} repeated warnings of other points not shown (--log-level info shows them)", repeated));
  }
};

/// Hooks `bar` (nothing under -q) and `log` (warnings, also under -q) into `so`. `bar`, `log` and
/// `warnings` must outlive the sweep.
inline void attach_sweep_progress(SweepOptions& so, ProgressBar& bar, const Logger& log, SweepWarnings& warnings) {
  const bool show = bar.printer().settings().enabled;
  auto last_wall_s = std::make_shared<double>(-1.0);
  so.point_done = [&bar, &log, &warnings, show, last_wall_s](const ExperimentPoint& p, double wall_s, bool ok,
                                                            const std::vector<std::string>& texts) {
    *last_wall_s = wall_s;
    if (show) bar.printer().note(fmt::format("hetsim: point {} {} in {:.1f} s", p.id, ok ? "done" : "failed", wall_s));
    for (const std::string& w : texts) {
      const bool first = warnings.seen.insert(w).second;
      if (first || log.shows_info()) log.warning(fmt::format("point {}: {}", p.id, w));
      else ++warnings.repeated;
    }
  };
  if (!show) return;
  so.progress = [&bar, last_wall_s](std::size_t done, std::size_t total, std::size_t failed) {
    bar.update(done, total, failed, *last_wall_s);
  };
}

}  // namespace hetsim::app
