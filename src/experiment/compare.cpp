#include "hetsim/experiment/compare.hpp"
#include "hetsim/metrics/timeline.hpp"

#include <chrono>
#include <mutex>
#include <sstream>
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "hetsim/experiment/results.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/util/parallel.hpp"

namespace hetsim {
namespace {

const double* find_metric(const CompareEntry& e, const std::string& name) {
  for (const auto& [k, v] : e.metrics)
    if (k == name) return &v;
  return nullptr;
}

std::vector<std::string> all_metric_names(const std::vector<CompareEntry>& entries) {
  std::vector<std::string> names;
  for (const CompareEntry& e : entries)
    for (const auto& [k, v] : e.metrics)
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  return names;
}

}  // namespace

std::vector<CompareEntry> compare_policies(const RunSpec& base, const std::vector<PolicyVariant>& policies,
                                           const PolicyRegistry& registry, int threads, bool record_utilization,
                                           const std::function<void(const CompareEntry&, double wall_s)>& on_done) {
  std::vector<CompareEntry> entries(policies.size());
  std::mutex lock;  // serialises on_done
  parallel_for(policies.size(), threads, [&](std::size_t i) {
    CompareEntry& e = entries[i];
    e.policy = policies[i].label;
    RunSpec spec = base;
    spec.policy = policies[i].name;
    spec.params = policies[i].params;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      // Busy GPUs over time as sweep points keep it (small: one row per change), for plots.
      std::ostringstream utilization_csv;
      UtilizationRecorder utilization(utilization_csv);
      std::vector<JobEventSink*> sinks;
      if (record_utilization) sinks.push_back(&utilization);
      e.output = run_simulation(spec, registry, sinks);
      e.utilization_csv = std::move(utilization_csv).str();
      e.metrics = summary_metrics(*e.output);
    } catch (const InvariantViolation&) {
      throw;  // an internal error, not a failed policy: parallel_for rethrows it after every run
    } catch (const std::exception& ex) {
      e.error = ex.what();
    }
    if (on_done) {
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard<std::mutex> guard(lock);
      on_done(e, wall_s);
    }
  });
  return entries;
}

std::vector<CompareColumn> compare_columns(const std::vector<CompareEntry>& entries) {
  std::vector<CompareColumn> cols{{"jct_mean_s", "JCT mean (s)"},   {"jct_p50_s", "JCT p50 (s)"},
                                  {"jct_p95_s", "JCT p95 (s)"},     {"jct_p99_s", "JCT p99 (s)"},
                                  {"makespan_s", "makespan (s)"},   {"queueing_mean_s", "queueing (s)"},
                                  {"utilization", "util"},          {"restarts", "restarts"},
                                  {"preemptions", "preempt"},       {"rejected", "rejected"}};
  // Finish-time fairness arrives with the heterogeneity-aware policies; show it when a run has it.
  for (const std::string& name : all_metric_names(entries))
    if (name.find("ftf") != std::string::npos && name.find("max") != std::string::npos) {
      cols.push_back({name, "FTF max"});
      break;
    }
  return cols;
}

void print_compare_table(std::ostream& out, const std::vector<CompareEntry>& entries) {
  const auto cols = compare_columns(entries);
  std::size_t policy_width = 6;
  for (const CompareEntry& e : entries) policy_width = std::max(policy_width, e.policy.size());
  fmt::print(out, "{:<{}}", "policy", policy_width);
  for (const CompareColumn& c : cols) fmt::print(out, " {:>14}", c.title);
  fmt::print(out, "\n");
  for (const CompareEntry& e : entries) {
    fmt::print(out, "{:<{}}", e.policy, policy_width);
    if (!e.error.empty()) {
      fmt::print(out, " failed: {}\n", e.error);
      continue;
    }
    for (const CompareColumn& c : cols) {
      const double* v = find_metric(e, c.metric);
      if (!v) fmt::print(out, " {:>14}", "-");
      else if (c.metric == "utilization" || c.title == "FTF max") fmt::print(out, " {:>14.4f}", *v);
      else if (c.metric == "restarts" || c.metric == "preemptions" || c.metric == "rejected") fmt::print(out, " {:>14.0f}", *v);
      else fmt::print(out, " {:>14.1f}", *v);
    }
    fmt::print(out, "\n");
  }
}

void write_compare_csv(std::ostream& out, const std::vector<CompareEntry>& entries) {
  const auto names = all_metric_names(entries);
  out << "policy,status,error";
  for (const std::string& n : names) out << ',' << csv_cell(n);
  out << '\n';
  for (const CompareEntry& e : entries) {
    out << csv_cell(e.policy) << ',' << (e.error.empty() ? "ok" : "failed") << ',' << csv_cell(e.error);
    for (const std::string& n : names) {
      const double* v = find_metric(e, n);
      out << ',' << (v ? metric_text(*v) : "");
    }
    out << '\n';
  }
}

void write_compare_json(std::ostream& out, const std::vector<CompareEntry>& entries) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const CompareEntry& e : entries) {
    nlohmann::ordered_json j;
    j["policy"] = e.policy;
    j["status"] = e.error.empty() ? "ok" : "failed";
    j["error"] = e.error;
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [k, v] : e.metrics) {
      // Counts stay integers in JSON (2000, not 2000.0).
      if (v == std::floor(v) && std::fabs(v) < 9.0e15) m[k] = static_cast<long long>(v);
      else m[k] = v;
    }
    j["metrics"] = std::move(m);
    all.push_back(std::move(j));
  }
  out << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void write_compare_outputs(const std::string& dir, const std::vector<CompareEntry>& entries) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path root(dir);
  write_file_checked(root / "compare.csv", "--out", [&](std::ostream& out) { write_compare_csv(out, entries); });
  write_file_checked(root / "compare.json", "--out", [&](std::ostream& out) { write_compare_json(out, entries); });
  for (const CompareEntry& e : entries)
    if (e.output) {
      const std::filesystem::path folder = root / safe_folder_name(e.policy);
      write_run_outputs(folder.string(), *e.output);
      if (!e.utilization_csv.empty()) write_text_checked(folder / "utilization.csv", "--out", e.utilization_csv);
    }
}

}  // namespace hetsim
