#include "hetsim/experiment/gate.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <limits>
#include <map>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string value_cell(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string("-"); }

}  // namespace

int metric_direction(const std::string& metric) {
  for (std::string_view lower : {"jct", "queueing", "makespan", "restart", "preemptions", "rejected", "unfinished", "ftf",
                                 "deadline_miss", "deadlines_missed"})
    if (starts_with(metric, lower)) return -1;
  for (std::string_view higher : {"utilization", "completed", "jain", "deadlines_met"})
    if (starts_with(metric, higher)) return +1;
  return 0;
}

const char* to_string(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::Same: return "same";
    case GateVerdict::Within: return "within";
    case GateVerdict::Better: return "better";
    case GateVerdict::Worse: return "WORSE";
    case GateVerdict::Changed: return "CHANGED";
    case GateVerdict::Missing: return "MISSING";
    case GateVerdict::New: return "new";
  }
  return "?";
}

std::size_t GateReport::count(GateVerdict v) const {
  std::size_t n = 0;
  for (const GateRow& r : rows) n += r.verdict == v;
  return n;
}

bool GateReport::passed() const {
  // A value with no baseline cannot be checked: a truncated or empty baseline must not pass.
  return count(GateVerdict::Worse) == 0 && count(GateVerdict::Changed) == 0 && count(GateVerdict::Missing) == 0 &&
         count(GateVerdict::New) == 0;
}

double parse_tolerance(const std::string& text) {
  std::string_view t = trim(text);
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.remove_suffix(1);
  double v = parse_double(t, SourcePos{"", 0, "--tolerance"});
  if (percent) v /= 100.0;
  if (v < 0 || v > 10) throw InputError("", 0, "--tolerance", "expected a relative tolerance like 2% or 0.02");
  return v;
}

GateReport check_against_baseline(const std::vector<ResultRow>& baseline, const std::vector<ResultRow>& current,
                                  double tolerance) {
  std::map<std::pair<std::string, std::string>, double> now;
  for (const ResultRow& r : current) now[{r.point, r.metric}] = r.value;
  GateReport report;
  std::map<std::pair<std::string, std::string>, bool> seen;
  for (const ResultRow& b : baseline) {
    GateRow row{b.point, b.metric, b.value, std::nullopt, 0.0, GateVerdict::Missing};
    seen[{b.point, b.metric}] = true;
    auto it = now.find({b.point, b.metric});
    if (it != now.end()) {
      const double cur = it->second;
      row.current = cur;
      const double diff = cur - b.value;
      row.change = b.value != 0 ? diff / std::fabs(b.value)
                   : diff == 0  ? 0.0
                                : std::copysign(std::numeric_limits<double>::infinity(), diff);
      if (diff == 0) {
        row.verdict = GateVerdict::Same;
      } else if (std::fabs(row.change) <= tolerance) {
        row.verdict = GateVerdict::Within;
      } else {
        const int dir = metric_direction(b.metric);
        row.verdict = dir == 0 ? GateVerdict::Changed
                      : (diff > 0) == (dir > 0) ? GateVerdict::Better
                                                : GateVerdict::Worse;
      }
    }
    report.rows.push_back(std::move(row));
  }
  for (const ResultRow& r : current)
    if (!seen.count({r.point, r.metric}))
      report.rows.push_back(GateRow{r.point, r.metric, std::nullopt, r.value, 0.0, GateVerdict::New});
  return report;
}

void print_gate_report(std::ostream& out, const GateReport& report, double tolerance, bool all) {
  std::size_t point_w = 5, metric_w = 6;
  std::vector<const GateRow*> shown;
  for (const GateRow& r : report.rows) {
    if (!all && (r.verdict == GateVerdict::Same || r.verdict == GateVerdict::Within)) continue;
    shown.push_back(&r);
    point_w = std::max(point_w, r.point.size());
    metric_w = std::max(metric_w, r.metric.size());
  }
  if (!shown.empty()) {
    fmt::print(out, "{:<{}}  {:<{}}  {:>14}  {:>14}  {:>9}  {}\n", "point", point_w, "metric", metric_w, "baseline",
               "current", "change", "verdict");
    for (const GateRow* r : shown) {
      std::string change = "-";
      if (r->baseline && r->current) change = std::isinf(r->change) ? (r->change > 0 ? "+inf" : "-inf")
                                                                     : fmt::format("{:+.2f}%", 100.0 * r->change);
      fmt::print(out, "{:<{}}  {:<{}}  {:>14}  {:>14}  {:>9}  {}\n", r->point, point_w, r->metric, metric_w,
                 value_cell(r->baseline), value_cell(r->current), change, to_string(r->verdict));
    }
  }
  fmt::print(out,
             "{}: {} values vs baseline at tolerance {:.2f}%: {} worse, {} changed (no known direction), {} missing, "
             "{} better, {} within tolerance, {} same, {} new\n",
             report.passed() ? "PASS" : "FAIL", report.rows.size(), 100.0 * tolerance, report.count(GateVerdict::Worse),
             report.count(GateVerdict::Changed), report.count(GateVerdict::Missing), report.count(GateVerdict::Better),
             report.count(GateVerdict::Within), report.count(GateVerdict::Same), report.count(GateVerdict::New));
}

}  // namespace hetsim
