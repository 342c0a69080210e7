#pragma once
// What a finished run has to say on stderr besides its table (model notes, policy warnings, the
// solver safety net, unfinished jobs), shared by run and compare so both honour --log-level.
#include <string>

#include "hetsim/run.hpp"
#include "log.hpp"

namespace hetsim::app {

/// Logs the run's notes about its inputs (the throughput model's), then its warnings; `prefix` (""
/// or "srtf: ") says which run they belong to in a command that runs several.
void log_run_warnings(const Logger& log, const RunOutput& out, bool has_horizon, const std::string& prefix = "");
/// The warnings alone (compare shows the shared inputs' notes once, not once per policy).
void log_run_warnings_only(const Logger& log, const RunOutput& out, bool has_horizon, const std::string& prefix);

}  // namespace hetsim::app
