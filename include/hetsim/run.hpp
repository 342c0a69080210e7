#pragma once
/// One simulation run from its inputs: the API the CLI, `compare` and the tests share.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hetsim/metrics/summary.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/policy/registry.hpp"
#include "hetsim/sched/gavel_mechanism.hpp"
#include "hetsim/sched/mechanism.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/workload/gavel_generator.hpp"

namespace hetsim {

/// Everything that defines a run (what `hetsim run` parses its flags into). Experiment specs set
/// these fields by name through the table in include/hetsim/experiment/run_keys.hpp: a new field
/// here needs one line there to become a spec key and a sweep axis.
struct RunSpec {
  std::string cluster = "default";      ///< preset name or cluster JSON file
  int cluster_scale = 1;                ///< copies of every node (the "cluster scale" sweep axis)
  std::string trace;                    ///< trace file; empty = `generator`, else the built-in synthetic workload
  /// Set = a Gavel-style generated workload (needs a Gavel throughput table in `throughputs`, and no
  /// trace); its seed is `seed`.
  std::optional<GavelWorkloadConfig> generator;
  TraceFormat format = TraceFormat::Auto;
  TraceOptions trace_options;
  std::string throughputs;              ///< throughput table file; empty = duration model
  std::string model = "auto";           ///< throughput model name (make_throughput_model)
  ModelParams model_params;             ///< --model-param key=value
  /// Pollux/Sia workload CSV (`--workload`): read with the pollux reader and run on the goodput
  /// model; rounds then sit on the simulator's grid (k * interval from 0).
  std::string workload;
  std::vector<std::string> profiles;    ///< profile folders (`--profiles`); empty = next to the workload
  std::string step_model = "pollux-table";  ///< step-time model of the goodput model
  bool sia_restart_costs = false;       ///< per-application restart costs of Sia's simulator
  bool exact_epochs = false;            ///< exact progress instead of the simulator's whole-second epochs
  std::string policy = "fifo";
  PolicyParams params;
  std::string placement = "consolidate";
  /// "alone" (each job prices its communication as if alone on the network) or "shared" (jobs on
  /// several nodes share NICs and uplinks max-min fairly; event mechanism, analytic model).
  std::string network = "alone";
  MechanismConfig mechanism;
  /// "event" (Mechanism: event-driven, or rounds with --interval), "gavel" (GavelMechanism:
  /// round-based time sharing of an allocation policy, rounds of --interval s, default 360), or
  /// "auto" (gavel for allocation-only policies, event otherwise).
  std::string mechanism_kind = "auto";
  std::uint64_t seed = 0;
  /// How policies learn throughputs: "oracle" (the measured table, no profiling cost) or "cf"
  /// (Heet's collaborative filtering from a profiled share of each job type's cells; every job
  /// then pays its profiling runs once, at its first start). "cf" needs a --throughputs table.
  std::string profiling = "oracle";
  double profiled_fraction = 0.25;   ///< with "cf": share of each job type's cells profiled
  double profiling_run_s = 30.0;     ///< with "cf": seconds per profiling run
  int profiling_runs = -1;           ///< with "cf": runs per job; -1 = one per profiled cell
};

/// Restart overhead of Pollux/Sia workload runs (`workload`) when none is given: the Pollux
/// simulator charges 30 s per (re)allocation. Applied by the CLI and by experiment specs.
inline constexpr double kPolluxRestartOverheadS = 30.0;

/// What a run produces.
struct RunOutput {
  RunInfo info;
  RunSummary summary;
  std::vector<JobRecord> records;
  MechanismStats stats;
  SolverStats solver;  ///< zero unless the gavel mechanism ran
  /// Notes on the planning model (profiling "cf": cells predicted, median error, warnings).
  std::vector<std::string> model_notes;
};

/// Loads the inputs of `spec` and runs it. Throws InputError for bad input (before anything runs).
/// `extra_sinks` (timelines, utilisation series) receive on_run_start and every job event besides
/// the standard recorder; they must outlive the call. Thread-safe: concurrent calls share nothing
/// but the const registry.
RunOutput run_simulation(const RunSpec& spec, const PolicyRegistry& registry,
                         std::span<JobEventSink* const> extra_sinks = {});

/// Runs already-loaded inputs (tests use this to build tiny clusters and traces in code).
RunOutput simulate(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                   SchedulingPolicy& policy, const PlacementPolicy& placement, const MechanismConfig& config,
                   RunInfo info, std::span<JobEventSink* const> extra_sinks = {});

/// Runs already-loaded inputs under the round-based time-sharing mechanism.
RunOutput simulate_gavel(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                         AllocationPolicy& policy, const GavelConfig& config, RunInfo info,
                         std::span<JobEventSink* const> extra_sinks = {});

/// Builds the spec's policy once (in the form its mechanism needs) to check the name and the
/// parameters without loading any input. Throws InputError as run_simulation would.
void check_run_policy(const RunSpec& spec, const PolicyRegistry& registry);

/// The first thing wrong with a RunSpec's own values, found without reading any file.
struct RunSpecProblem {
  std::string key;      ///< the experiment-spec key (run_keys.hpp), e.g. "interval_s", "generator.jobs"
  std::string message;  ///< what is wrong, with the value and the accepted range
  bool combination = false;  ///< true when two keys conflict (no single value is wrong by itself)
};

/// Checks every value of `spec` that needs no file and no registry: ranges of the durations
/// (finite, non-negative, rounds of at least 1 ms), counts, names (mechanism, placement, profiling,
/// step model, throughput model) and combinations (trace vs generator vs workload). Returns the
/// first problem, or nullopt. The one place these rules live: the CLI, experiment specs and
/// run_simulation all call it.
std::optional<RunSpecProblem> find_run_spec_problem(const RunSpec& spec);

/// The command-line flag that sets an experiment-spec key ("interval_s" -> "--interval"), read
/// from the flag column of run_keys() (defined in src/experiment/run_keys.cpp); "param.x" and
/// "model_param.x" give "--param x" and "--model-param x", a group ("generator") its first key's flag, and
/// a key outside the table itself.
std::string cli_flag_of(const std::string& key);

/// find_run_spec_problem plus the checks that need the registry (the policy and its parameters,
/// policy/mechanism combinations). Throws InputError naming the command-line flag.
void check_run_spec(const RunSpec& spec, const PolicyRegistry& registry);

/// Loads every input of `spec` (cluster, trace or workload or generator, throughput or goodput
/// model, the cf profile) without simulating, so a bad file fails once, before any run starts
/// (compare uses it before running its policies). Throws InputError naming file, line and field.
void check_run_inputs(const RunSpec& spec);

/// The files a run of `spec` reads that an output could replace, as (command-line option, path):
/// trace, workload, throughput table, cluster JSON (or node list), a policy's input file
/// (--param samples_csv). run, compare and sweep refuse outputs on them before running.
std::vector<std::pair<std::string, std::string>> run_input_files(const RunSpec& spec);

/// Writes DIR/jobs.csv and DIR/summary.json (creating DIR). Throws InputError if DIR cannot be
/// written.
void write_run_outputs(const std::string& dir, const RunOutput& output);

}  // namespace hetsim
