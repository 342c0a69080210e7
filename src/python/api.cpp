// hetsim._hetsim: the entry points behind hetsim.run/compare/sweep. Settings arrive as an
// experiment-spec document and go through parse_experiment_spec() and expand_points(), so the
// Python API takes exactly the spec keys of run_keys() (src/experiment/run_keys.cpp) with their
// checks and messages; no option list is written here. Simulations run with the GIL released.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "hetsim/experiment/compare.hpp"
#include "hetsim/experiment/spec.hpp"
#include "hetsim/experiment/sweep.hpp"
#include "hetsim/python/bridge.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "views.hpp"

namespace hetsim::python {
namespace {

// What errors name as the "file" of settings given to hetsim.run()/compare(): relative paths in
// them are relative to the current folder (the parent of a bare name is "").
constexpr const char* kRunOrigin = "hetsim.run()";
constexpr const char* kCompareOrigin = "hetsim.compare()";

PolicyRegistry registry_with(const py::list& entries) {
  PolicyRegistry registry = make_default_registry();
  for (py::handle e : entries) add_python_policy(registry, e.cast<py::dict>());
  return registry;
}

std::string jobs_csv(const RunOutput& out) {
  std::ostringstream s;
  write_jobs_csv(s, out.records);
  return s.str();
}

std::string summary_json(const RunOutput& out) {
  std::ostringstream s;
  write_summary_json(s, out.summary, out.info);
  return s.str();
}

// The settings document Python built; a value JSON cannot hold (NaN, infinity) is the caller's
// input, named as such, not an internal error.
nlohmann::ordered_json settings_document(const std::string& doc, const char* origin) {
  try {
    return nlohmann::ordered_json::parse(doc);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin, 0, "", fmt::format("a setting is not a finite number, string or boolean (NaN or "
                                                "infinity?): {}", e.what()));
  }
}

// The points of a settings document (one per listed policy: no sweep axes are passed).
std::vector<ExperimentPoint> points_of(const std::string& doc, const char* origin, const PolicyRegistry& registry) {
  const ExperimentSpec spec = parse_experiment_spec(settings_document(doc, origin), origin, registry);
  return expand_points(spec, registry);
}

py::tuple run_entry(const std::string& doc, const py::list& entries, const std::string& out_dir,
                    bool check_invariants) {
  const PolicyRegistry registry = registry_with(entries);
  const std::vector<ExperimentPoint> points = points_of(doc, kRunOrigin, registry);
  RunSpec spec = points.at(0).run;
  spec.mechanism.check_invariants = spec.mechanism.check_invariants || check_invariants;
  RunOutput out;
  {
    py::gil_scoped_release release;
    out = run_simulation(spec, registry);
    if (!out_dir.empty()) write_run_outputs(out_dir, out);
  }
  std::vector<std::string> notes = out.model_notes;
  return py::make_tuple(jobs_csv(out), summary_json(out), out.stats.warnings, notes);
}

py::tuple compare_entry(const std::string& doc, const py::list& entries, int threads, const std::string& out_dir,
                        bool check_invariants) {
  const PolicyRegistry registry = registry_with(entries);
  const ExperimentSpec spec = parse_experiment_spec(settings_document(doc, kCompareOrigin), kCompareOrigin, registry);
  const std::vector<ExperimentPoint> points = expand_points(spec, registry);
  RunSpec base = points.at(0).run;
  base.params.clear();
  base.mechanism.check_invariants = base.mechanism.check_invariants || check_invariants;
  std::vector<CompareEntry> results;
  {
    py::gil_scoped_release release;
    check_run_inputs(base);  // as `hetsim compare`: one input error, not one failure per policy
    results = compare_policies(base, spec.policies, registry, std::max(1, threads), !out_dir.empty());
    if (!out_dir.empty()) write_compare_outputs(out_dir, results);
  }
  std::ostringstream table;
  write_compare_csv(table, results);
  py::list runs;
  for (const CompareEntry& e : results)
    runs.append(py::make_tuple(e.policy, e.error, e.output ? jobs_csv(*e.output) : "",
                               e.output ? summary_json(*e.output) : "",
                               e.output ? e.output->stats.warnings : std::vector<std::string>{}));
  return py::make_tuple(table.str(), runs);
}

nlohmann::ordered_json spec_document(const std::string& text, const std::string& path) {
  return text.empty() ? read_json_file(path) : settings_document(text, path.c_str());
}

py::tuple sweep_entry(const std::string& text, const std::string& path, const py::list& entries,
                      const std::string& out_dir, int threads, bool fresh, bool check_invariants) {
  const PolicyRegistry registry = registry_with(entries);
  const ExperimentSpec spec = parse_experiment_spec(spec_document(text, path), path, registry);
  const std::vector<ExperimentPoint> points = expand_points(spec, registry);
  SweepOptions options;
  options.out_dir = out_dir.empty() ? "out/" + spec.name : out_dir;
  options.threads = std::max(1, threads);
  options.resume = !fresh;
  options.check_invariants = check_invariants;
  SweepCounts c;
  {
    py::gil_scoped_release release;
    c = run_sweep(spec, points, registry, options);
  }
  py::dict counts;
  counts["in_shard"] = c.in_shard;
  counts["skipped"] = c.skipped;
  counts["ran"] = c.ran;
  counts["done"] = c.done;
  counts["failed"] = c.failed;
  return py::make_tuple(counts, options.out_dir);
}

}  // namespace

void define_module(py::module_& m) {
  m.doc() = "hetsim's C++ engine; use it through the `hetsim` package (docs/python.md)";
  // The CLI's exit-2 errors: the message names the file, line and field (or the key or flag).
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  // The CLI's exit-1 error for a broken run invariant (a bug in hetsim, never the caller's input).
  py::register_exception<InvariantViolation>(m, "InvariantViolation", PyExc_RuntimeError);
  define_views(m);
  m.def("_run", &run_entry, py::arg("doc"), py::arg("entries"), py::arg("out"), py::arg("check_invariants"));
  m.def("_compare", &compare_entry, py::arg("doc"), py::arg("entries"), py::arg("threads"), py::arg("out"),
        py::arg("check_invariants"));
  m.def("_sweep", &sweep_entry, py::arg("text"), py::arg("path"), py::arg("entries"), py::arg("out"),
        py::arg("threads"), py::arg("fresh"), py::arg("check_invariants"));
  m.def("_spec_policy_files", [](const std::string& text, const std::string& path) {
    return spec_policy_files(spec_document(text, path), path);
  }, py::arg("text"), py::arg("path"));
  m.def("policy_names", [](const py::list& entries) { return registry_with(entries).entries().names(); },
        py::arg("entries") = py::list(), "registered policy names (built-in, then the given Python ones)");
}

}  // namespace hetsim::python
