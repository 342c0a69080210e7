#include "hetsim/experiment/run_keys.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "hetsim/perf/model_factory.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/trace/trace_reader.hpp"

namespace hetsim {
namespace {

// The generator block, created with its defaults on first use: setting any generator.* key
// switches a run from the trace to the generator.
GavelWorkloadConfig& generator(RunSpec& s) {
  if (!s.generator) s.generator.emplace();
  return *s.generator;
}

// Converts a JSON value already checked against the key's kind into the field's C++ type.
template <class T>
T convert(const nlohmann::ordered_json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, double>) {
    return v.get<double>();
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    return v.get<double>();
  } else {
    static_assert(std::is_integral_v<T>);
    if (v.is_number_unsigned()) {
      auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        throw std::invalid_argument(fmt::format("{} is too large (at most {})", u, std::numeric_limits<T>::max()));
      return static_cast<T>(u);
    }
    auto i = v.get<std::int64_t>();
    if (std::is_unsigned_v<T> && i < 0) throw std::invalid_argument(fmt::format("must not be negative, got {}", i));
    if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
      throw std::invalid_argument(fmt::format("{} is out of range [{}, {}]", i, std::numeric_limits<T>::min(),
                                              std::numeric_limits<T>::max()));
    return static_cast<T>(i);
  }
}

// One table row: `field` returns a reference to the RunSpec member the key sets.
template <class Field>
RunKey key(std::string name, std::string flag, RunKeyKind kind, std::string help, Field field) {
  return RunKey{std::move(name), std::move(flag), kind, std::move(help), [field](RunSpec& s, const nlohmann::ordered_json& v) {
                  auto& target = field(s);
                  target = convert<std::remove_reference_t<decltype(target)>>(v);
                }};
}

}  // namespace

const char* describe(RunKeyKind kind) {
  switch (kind) {
    case RunKeyKind::Text: return "a string";
    case RunKeyKind::Path: return "a file path (string, relative to the spec file)";
    case RunKeyKind::Folder: return "a folder path (string, relative to the spec file)";
    case RunKeyKind::Cluster:
      return "a preset name, a cluster JSON path, or a node inventory (alibaba-openb:PATH, alibaba-pai:PATH, "
             "alibaba-spot:PATH or an inventory CSV path) (string, paths relative to the spec file)";
    case RunKeyKind::Table:
      return "a throughput table: a JSON file or an ElasticFlow profile folder (string, relative to the spec file)";
    case RunKeyKind::Number: return "a number";
    case RunKeyKind::Integer: return "an integer";
    case RunKeyKind::Boolean: return "true or false";
  }
  return "a value";
}

std::vector<RunKey> run_keys() {
  using K = RunKeyKind;
  std::vector<RunKey> keys;
  // clang-format off
  keys.push_back(key("cluster", "--cluster", K::Cluster, "cluster preset, cluster JSON file or node inventory (alibaba-openb:, alibaba-pai:, alibaba-spot:)", [](RunSpec& s) -> auto& { return s.cluster; }));
  keys.push_back(key("cluster_scale", "--cluster-scale", K::Integer, "copies of every node of the cluster (cluster-scale axis)", [](RunSpec& s) -> auto& { return s.cluster_scale; }));
  keys.push_back(key("trace", "--trace", K::Path, "trace file (omit for the generator or the built-in workload)", [](RunSpec& s) -> auto& { return s.trace; }));
  keys.push_back(RunKey{"format", "--format", K::Text, "trace format: " + fmt::format("{}", fmt::join(trace_format_names(), ", ")), [](RunSpec& s, const nlohmann::ordered_json& v) {
    auto f = parse_trace_format(v.get<std::string>());
    if (!f) throw std::invalid_argument(fmt::format("unknown trace format '{}' ({})", v.get<std::string>(), fmt::join(trace_format_names(), ", ")));
    s.format = *f; }});
  keys.push_back(key("heet_round_s", "--heet-round", K::Number, "seconds per arrival round of Heet prototype traces", [](RunSpec& s) -> auto& { return s.trace_options.heet_round_s; }));
  keys.push_back(key("model", "--model", K::Text, "throughput model: " + fmt::format("{}", fmt::join(throughput_model_names(), ", ")), [](RunSpec& s) -> auto& { return s.model; }));
  keys.push_back(key("profiling", "--profiling", K::Text, "what policies plan with: oracle or cf", [](RunSpec& s) -> auto& { return s.profiling; }));
  keys.push_back(key("profiled_fraction", "--profiled-fraction", K::Number, "with profiling cf: share of profile cells measured", [](RunSpec& s) -> auto& { return s.profiled_fraction; }));
  keys.push_back(key("profiling_run_s", "--profiling-run-s", K::Number, "with profiling cf: seconds per profiling run", [](RunSpec& s) -> auto& { return s.profiling_run_s; }));
  keys.push_back(key("profiling_runs", "--profiling-runs", K::Integer, "with profiling cf: runs per job (-1 = one per profiled cell)", [](RunSpec& s) -> auto& { return s.profiling_runs; }));
  keys.push_back(key("workload", "--workload", K::Path, "Pollux/Sia workload CSV (goodput model; restart_overhead_s defaults to 30)", [](RunSpec& s) -> auto& { return s.workload; }));
  keys.push_back(RunKey{"profiles", "--profiles", K::Folder, "folder of Pollux/Sia application profiles", [](RunSpec& s, const nlohmann::ordered_json& v) { s.profiles = {v.get<std::string>()}; }});
  keys.push_back(key("step_model", "--step-model", K::Text, "step-time model of the goodput model: pollux-table, pollux-fit", [](RunSpec& s) -> auto& { return s.step_model; }));
  keys.push_back(key("exact_epochs", "--exact-epochs", K::Boolean, "goodput model: exact progress instead of whole-second epochs", [](RunSpec& s) -> auto& { return s.exact_epochs; }));
  keys.push_back(key("sia_restart_costs", "--sia-restart-costs", K::Boolean, "per-application restart costs of Sia's simulator", [](RunSpec& s) -> auto& { return s.sia_restart_costs; }));
  keys.push_back(key("throughputs", "--throughputs", K::Table, "throughput table: Gavel JSON, Heet profiles.json, job-types JSON or ElasticFlow throughputs_<GPU>/ folder", [](RunSpec& s) -> auto& { return s.throughputs; }));
  keys.push_back(key("policy", "--policy", K::Text, "scheduling policy (normally given by \"policies\")", [](RunSpec& s) -> auto& { return s.policy; }));
  keys.push_back(key("mechanism", "--mechanism", K::Text, "auto, event or gavel (round-based time sharing)", [](RunSpec& s) -> auto& { return s.mechanism_kind; }));
  keys.push_back(key("placement", "--placement", K::Text, "placement policy (event mechanism): " + fmt::format("{}", fmt::join(placement_names(), ", ")), [](RunSpec& s) -> auto& { return s.placement; }));
  keys.push_back(key("network", "--network", K::Text, "alone or shared (jobs share NICs and uplinks; analytic model)", [](RunSpec& s) -> auto& { return s.network; }));
  keys.push_back(key("restart_overhead_s", "--restart-overhead", K::Number, "seconds without progress at every (re)start", [](RunSpec& s) -> auto& { return s.mechanism.restart_overhead_s; }));
  keys.push_back(key("interval_s", "--interval", K::Number, "round length (s); 0 = event-driven", [](RunSpec& s) -> auto& { return s.mechanism.interval_s; }));
  keys.push_back(key("schedule_on_arrival", "--schedule-on-arrival", K::Boolean, "in round mode, also schedule at arrivals", [](RunSpec& s) -> auto& { return s.mechanism.schedule_on_arrival; }));
  keys.push_back(key("share_slowdown", "--share-slowdown", K::Number, "rate lost, in [0, 1), by a job while it shares its GPU with others (fractional GPUs)", [](RunSpec& s) -> auto& { return s.mechanism.share_slowdown; }));
  keys.push_back(key("until_s", "--until", K::Number, "stop at this simulated time (s)", [](RunSpec& s) -> auto& { return s.mechanism.until_s; }));
  keys.push_back(key("seed", "--seed", K::Integer, "random seed (generator, randomised policies)", [](RunSpec& s) -> auto& { return s.seed; }));
  keys.push_back(RunKey{"generator.kind", "--generate", K::Text, "\"gavel\": use the Gavel-style generator", [](RunSpec& s, const nlohmann::ordered_json& v) {
    if (v.get<std::string>() != "gavel") throw std::invalid_argument("the only generator is \"gavel\"");
    generator(s); }});
  keys.push_back(key("generator.jobs", "--generate", K::Integer, "number of generated jobs", [](RunSpec& s) -> auto& { return generator(s).jobs; }));
  keys.push_back(key("generator.jobs_per_hour", "--jobs-per-hour", K::Number, "arrival rate in jobs/hour (the load axis)", [](RunSpec& s) -> auto& { return generator(s).jobs_per_hour; }));
  keys.push_back(key("generator.multi_gpu", "--single-gpu", K::Boolean, "draw GPU counts from the Philly mix (false: all 1 GPU)", [](RunSpec& s) -> auto& { return generator(s).multi_gpu; }));
  keys.push_back(key("generator.reference_gpu", "--reference-gpu", K::Text, "GPU type whose rate turns durations into steps", [](RunSpec& s) -> auto& { return generator(s).reference_gpu; }));
  // clang-format on
  return keys;
}

std::string cli_flag_of(const std::string& key) {
  const std::vector<RunKey> keys = run_keys();
  for (const RunKey& k : keys)
    if (k.name == key) return k.flag;
  // A group ("generator") is switched on by the flag of its first key.
  for (const RunKey& k : keys)
    if (k.name.starts_with(key + ".")) return k.flag;
  // "model_param.comm" -> "--model-param comm", as the model factory names it.
  if (key.starts_with(kParamKeyPrefix)) return "--param " + key.substr(kParamKeyPrefix.size());
  if (key.starts_with(kModelParamKeyPrefix)) return "--model-param " + key.substr(kModelParamKeyPrefix.size());
  return key;
}

}  // namespace hetsim
