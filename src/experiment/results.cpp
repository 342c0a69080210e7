#include "hetsim/experiment/results.hpp"

#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Summary keys that describe the run rather than measure it (`settings` holds numbers too).
bool is_metadata(const std::string& key) { return key == "seed" || key == "settings"; }

void flatten_numbers(const Json& j, std::vector<std::pair<std::string, double>>& out) {
  for (const auto& [key, value] : j.items()) {
    if (is_metadata(key)) continue;
    if (value.is_number()) {
      out.emplace_back(key, value.get<double>());
    } else if (value.is_object()) {
      for (const auto& [sub, v] : value.items())
        if (v.is_number()) out.emplace_back(key + "." + sub, v.get<double>());
    }
  }
}

// Keys of an empty run's summary.json: the numeric ones are metrics, the objects are per-type groups.
struct MetricNames {
  std::vector<std::string> plain;
  std::vector<std::string> groups;
  MetricNames() {
    std::ostringstream s;
    RunSummary probe;
    probe.deadline_jobs = 1;  // the deadline metrics are written only when some job has a deadline
    write_summary_json(s, probe, RunInfo{});
    const Json parsed = Json::parse(s.str());  // kept alive: items() is a view into it
    for (const auto& [key, value] : parsed.items()) {
      if (is_metadata(key)) continue;
      // An empty run's statistics are null (RunSummary): metrics all the same.
      if (value.is_number() || value.is_null()) plain.push_back(key);
      if (value.is_object()) groups.push_back(key);
    }
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Splits one CSV line honouring double quotes ("" inside quotes is a quote).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::vector<std::pair<std::string, double>> summary_metrics(const std::string& summary_json, const std::string& source) {
  Json j;
  try {
    j = Json::parse(summary_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source, 0, "", fmt::format("invalid JSON: {}", e.what()));
  }
  std::vector<std::pair<std::string, double>> out;
  flatten_numbers(j, out);
  return out;
}

std::vector<std::pair<std::string, double>> summary_metrics(const RunOutput& output) {
  std::ostringstream s;
  write_summary_json(s, output.summary, output.info);
  return summary_metrics(s.str(), "summary.json");
}

bool is_known_metric(const std::string& name) {
  const MetricNames names;
  for (const std::string& n : names.plain)
    if (n == name) return true;
  for (const std::string& g : names.groups)
    if (name.size() > g.size() + 1 && name.compare(0, g.size(), g) == 0 && name[g.size()] == '.') return true;
  return false;
}

std::string known_metric_names() {
  const MetricNames names;
  std::string out;
  for (const std::string& n : names.plain) out += (out.empty() ? "" : ", ") + n;
  for (const std::string& g : names.groups) out += ", " + g + ".<gpu type>";
  return out;
}

std::string metric_text(double value) { return fmt::format("{}", value); }

PointStatus point_status(const std::string& point_dir, const std::string& fingerprint, std::string* error) {
  const fs::path dir(point_dir);
  std::error_code ec;
  if (!fs::exists(dir / "point.json", ec)) return PointStatus::Missing;
  if (read_text(dir / "point.json") != fingerprint) return PointStatus::Stale;
  if (fs::exists(dir / "DONE", ec)) {
    // Done only if every output is still the file the run wrote (one cut short, changed or removed
    // since makes the point run again); a DONE without the record (hetsim before 0.2) too.
    std::string expected;
    for (const char* name : kPointOutputs) expected += fmt::format("{} {}\n", name, file_fingerprint(dir / name));
    return read_text(dir / "DONE") == expected ? PointStatus::Done : PointStatus::Missing;
  }
  if (fs::exists(dir / "FAILED", ec)) {
    if (error) *error = one_line(read_text(dir / "FAILED"));
    return PointStatus::Failed;
  }
  return PointStatus::Missing;
}

std::pair<std::size_t, std::size_t> write_results(const std::string& out_dir, const ExperimentSpec& spec,
                                                  const std::vector<ExperimentPoint>& points,
                                                  const std::vector<bool>& included, const std::string& suffix) {
  const fs::path out(out_dir);
  // fmt rather than string operator+: GCC 12 reports a false -Wrestrict on "," + std::string.
  std::string axes_header;
  for (const SweepAxis& a : spec.axes) axes_header += fmt::format(",{}", csv_cell(a.key));
  auto axes_cells = [](const ExperimentPoint& p) {
    std::string s;
    for (const auto& [k, v] : p.axis_values) s += fmt::format(",{}", csv_cell(v));
    return s;
  };
  // Built in memory (one row per point and metric: small), then each written and checked.
  std::ostringstream manifest, results, failures;
  manifest << "index,point,policy" << axes_header << '\n';
  results << "point,policy" << axes_header << ",metric,value\n";
  failures << "point,policy" << axes_header << ",error\n";
  std::size_t done = 0, failed = 0;
  for (const ExperimentPoint& p : points) {
    const std::string lead = fmt::format("{},{}{}", csv_cell(p.id), csv_cell(p.policy), axes_cells(p));
    manifest << p.index << ',' << lead << '\n';
    if (!included.empty() && !included[p.index]) continue;
    const fs::path dir = out / "points" / p.id;
    std::string error;
    switch (point_status(dir.string(), p.fingerprint, &error)) {
      case PointStatus::Done: {
        ++done;
        const auto metrics = summary_metrics(read_text(dir / "summary.json"), (dir / "summary.json").string());
        auto emit = [&](const std::string& name, double value) {
          results << lead << ',' << csv_cell(name) << ',' << metric_text(value) << '\n';
        };
        if (spec.metrics.empty()) {
          for (const auto& [name, value] : metrics) emit(name, value);
        } else {
          for (const std::string& want : spec.metrics)
            for (const auto& [name, value] : metrics)
              if (name == want) emit(name, value);
        }
        break;
      }
      case PointStatus::Failed:
        ++failed;
        failures << lead << ',' << csv_cell(error) << '\n';
        break;
      default:
        ++failed;
        failures << lead << ",not run\n";
        break;
    }
  }
  write_text_checked(out / ("points" + suffix + ".csv"), "--out", manifest.str());
  write_text_checked(out / ("results" + suffix + ".csv"), "--out", results.str());
  write_text_checked(out / ("failures" + suffix + ".csv"), "--out", failures.str());
  // The spec's name and description, for titles of figures and reports (not its paths: portable).
  nlohmann::ordered_json about{{"name", spec.name}, {"description", spec.description}};
  write_text_checked(out / "spec.json", "--out",
                     about.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return {done, failed};
}

std::vector<ResultRow> read_results_csv(const std::string& path) {
  const std::string text = read_file(path);
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<ResultRow> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> first_line;  // (point, metric) -> line
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      if (header.size() < 4 || header[0] != "point" || header[1] != "policy" || header[header.size() - 2] != "metric" ||
          header.back() != "value")
        throw InputError(path, line_no, "", "not a results table (expected header point,policy,...,metric,value)");
      continue;
    }
    if (cells.size() != header.size())
      throw InputError(path, line_no, "", fmt::format("expected {} cells, got {}", header.size(), cells.size()));
    ResultRow r;
    r.point = cells[0];
    r.policy = cells[1];
    for (std::size_t i = 2; i + 2 < cells.size(); ++i) r.axis_values.emplace_back(header[i], cells[i]);
    r.metric = cells[cells.size() - 2];
    r.value = parse_double(cells.back(), SourcePos{path, line_no, "value"});
    // One value per (point, metric): a second one would silently win in the gate's comparison.
    auto [at, fresh] = first_line.emplace(std::pair{r.point, r.metric}, line_no);
    if (!fresh)
      throw InputError(path, line_no, "metric",
                       fmt::format("point '{}' has metric '{}' twice (first on line {})", r.point, r.metric, at->second));
    rows.push_back(std::move(r));
  }
  if (header.empty()) throw InputError(path, 0, "", "empty results file");
  return rows;
}

}  // namespace hetsim
