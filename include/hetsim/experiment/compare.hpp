#pragma once
/// Several policies on the same inputs, run in parallel threads, as one table (`hetsim compare`).
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hetsim/experiment/spec.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/run.hpp"

namespace hetsim {

/// The result of one policy: its run, or the error that stopped it.
struct CompareEntry {
  std::string policy;  ///< the variant's label
  std::optional<RunOutput> output;
  std::string error;   ///< non-empty when the run failed
  std::vector<std::pair<std::string, double>> metrics;  ///< summary_metrics(*output)
  /// Busy GPUs over time (UtilizationRecorder), written as <policy>/utilization.csv; recorded only
  /// when compare_policies is asked to (the outputs will be written), empty otherwise.
  std::string utilization_csv;
};

/// Runs `base` once per policy variant (policy and parameters replaced) on `threads` threads.
/// Entries come back in the order of `policies` whatever the thread timing. A failing run is
/// reported in its entry; the others still run. `on_done` (optional) hears of each finished run
/// with its wall time, serialised, in finishing order (progress on stderr; no output records it).
/// `record_utilization`: keep each run's utilisation CSV for write_compare_outputs (costs a third
/// more CPU on a large event-driven run, so only when the outputs are written).
std::vector<CompareEntry> compare_policies(const RunSpec& base, const std::vector<PolicyVariant>& policies,
                                           const PolicyRegistry& registry, int threads, bool record_utilization = false,
                                           const std::function<void(const CompareEntry&, double wall_s)>& on_done = {});

/// A column of the comparison table.
struct CompareColumn {
  std::string metric;  ///< summary metric name
  std::string title;   ///< header with unit
};

/// The table's columns: JCT mean/p50/p95/p99, makespan, queueing delay, utilisation, restarts,
/// preemptions, rejected jobs, and any FTF maximum ("*ftf*max*" metric) when some entry has one.
std::vector<CompareColumn> compare_columns(const std::vector<CompareEntry>& entries);

/// Fixed-width table for a terminal: one row per policy.
void print_compare_table(std::ostream& out, const std::vector<CompareEntry>& entries);
/// CSV: policy, status, error, then every metric any entry has (in first-seen order).
void write_compare_csv(std::ostream& out, const std::vector<CompareEntry>& entries);
/// JSON array of {policy, status, error, metrics{...}}.
void write_compare_json(std::ostream& out, const std::vector<CompareEntry>& entries);
/// What `hetsim compare --out DIR` writes: DIR/compare.csv, DIR/compare.json and each completed
/// policy's jobs.csv and summary.json in DIR/<policy>/. Throws InputError if DIR cannot be written.
void write_compare_outputs(const std::string& dir, const std::vector<CompareEntry>& entries);

}  // namespace hetsim
