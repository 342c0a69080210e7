#pragma once
/// The policy-quality regression gate (`hetsim check`): compares a sweep's results with a committed
/// baseline results table and says what moved, in which direction, by how much.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hetsim/experiment/results.hpp"

namespace hetsim {

/// Which way a metric improves: -1 lower is better (JCT, makespan, queueing, restarts, rejected,
/// FTF), +1 higher is better (utilisation, completed), 0 unknown (any move beyond the tolerance
/// fails the gate).
int metric_direction(const std::string& metric);

/// What happened to one (point, metric).
enum class GateVerdict { Same, Within, Better, Worse, Changed, Missing, New };

/// Name of a verdict as printed ("same", "within", "better", "WORSE", "CHANGED", "MISSING", "new").
const char* to_string(GateVerdict verdict);

/// One compared value.
struct GateRow {
  std::string point;
  std::string metric;
  std::optional<double> baseline;
  std::optional<double> current;
  double change = 0.0;  ///< (current - baseline) / |baseline|; +-inf when the baseline is 0
  GateVerdict verdict = GateVerdict::Same;
};

/// The whole comparison, in baseline order (new values last).
struct GateReport {
  std::vector<GateRow> rows;
  /// Count of rows with this verdict.
  std::size_t count(GateVerdict v) const;
  /// True when nothing got worse, changed without a known direction, or went missing.
  bool passed() const;
};

/// Parses a relative tolerance: "2%" or "0.02". Throws InputError (field "--tolerance").
double parse_tolerance(const std::string& text);

/// Compares results with the baseline: a value moves when |change| > tolerance.
GateReport check_against_baseline(const std::vector<ResultRow>& baseline, const std::vector<ResultRow>& current,
                                  double tolerance);

/// Prints the rows that moved (all rows when `all`), then one summary line.
void print_gate_report(std::ostream& out, const GateReport& report, double tolerance, bool all = false);

}  // namespace hetsim
