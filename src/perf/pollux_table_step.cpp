// The Pollux simulator's step-time interpolation (petuum/adaptdl, osdi21-artifact,
// simulator/applications.py, Application.get_throughput), re-implemented.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "delaunay_interp.hpp"
#include "hetsim/perf/step_time.hpp"

namespace hetsim {

std::string placement_key(const Placement& placement) {
  std::vector<int> p;
  p.reserve(placement.size());
  for (int g : placement)
    if (g > 0) p.push_back(g);
  // The lexicographically smallest rotation, compared in place (it is looked up at every goodput
  // evaluation, so no rotation is copied).
  const std::size_t n = p.size();
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i) {
    for (std::size_t k = 0; k < n; ++k) {
      const int a = p[(i + k) % n], b = p[(best + k) % n];
      if (a != b) {
        if (a < b) best = i;
        break;
      }
    }
  }
  std::string key;
  char digits[16];
  for (std::size_t k = 0; k < n; ++k) {
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, p[(best + k) % n]);
    key.append(digits, end);
  }
  return key;
}

struct PolluxTableStepModel::Table {
  struct Curve {
    std::vector<double> bsz, step, sync;  // sorted by bsz
  };
  std::map<std::string, Curve> by_placement;
  std::vector<std::array<double, 3>> points;  // (nodes, replicas, bsz)
  std::vector<std::array<double, 2>> values;  // (step, sync)
  // Built at the first look-up outside the measured placements (issue 19: qhull building it for
  // every (application, type) was 60% of a tiresias run, whose placements are all measured).
  mutable std::unique_ptr<perf_detail::DelaunayInterpolator3> nd;
  mutable bool nd_built = false;
  mutable std::map<std::tuple<int, int, double>, StepTime> nd_cache;
};

PolluxTableStepModel::PolluxTableStepModel(std::string triangulation_cache_dir)
    : cache_dir_(std::move(triangulation_cache_dir)) {}
PolluxTableStepModel::~PolluxTableStepModel() = default;

namespace {

// The placement rows sorted by (placement, batch), ties in file order. Placements compare as two
// 64-bit words of their first 16 characters (big-endian, zero-padded), which for digit strings of
// at most 16 characters is std::string::compare's order at a fraction of its cost (thousands of
// rows per application at the start of every run, issue 19); longer ones compare as strings.
std::vector<const StepSample*> rows_by_placement(const StepProfile& prof) {
  struct Keyed {
    std::uint64_t hi, lo;
    const StepSample* s;
  };
  auto word = [](const std::string& p, std::size_t from) {
    std::uint64_t v = 0;
    for (std::size_t i = from; i < from + 8; ++i) v = (v << 8) | (i < p.size() ? static_cast<unsigned char>(p[i]) : 0u);
    return v;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(prof.placements.size());
  for (const StepSample& s : prof.placements) keyed.push_back({word(s.placement, 0), word(s.placement, 8), &s});
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.hi != b.hi) return a.hi < b.hi;
    if (a.lo != b.lo) return a.lo < b.lo;
    if (a.s->placement.size() > 16 || b.s->placement.size() > 16)
      if (int c = a.s->placement.compare(b.s->placement); c != 0) return c < 0;
    return a.s->local_bsz < b.s->local_bsz;
  });
  std::vector<const StepSample*> rows;
  rows.reserve(keyed.size());
  for (const Keyed& k : keyed) rows.push_back(k.s);
  return rows;
}

}  // namespace

const PolluxTableStepModel::Table& PolluxTableStepModel::table(const PolluxApplication& app,
                                                               const std::string& gpu_type) const {
  if (last_table_ && last_app_ == app.name() && last_type_ == gpu_type) return *last_table_;
  std::string key = app.name() + "/" + gpu_type;
  auto it = tables_.find(key);
  if (it != tables_.end()) {
    last_app_ = app.name();
    last_type_ = gpu_type;
    last_table_ = it->second.get();
    return *last_table_;
  }
  const StepProfile* prof = app.profile(gpu_type);
  if (!prof) throw std::out_of_range(fmt::format("application {} has no step profile on GPU type {}", app.name(), gpu_type));
  auto t = std::make_unique<Table>();
  // The placement rows sorted by (placement, batch), ties in file order: each run of one placement
  // is its curve, in the order a map of groups, each stable-sorted by batch, gave (sorting indices
  // instead of building maps of vectors: fewer allocations at the start of every run, issue 19).
  std::vector<const StepSample*> rows = rows_by_placement(*prof);
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t end = i;
    while (end < rows.size() && rows[end]->placement == rows[i]->placement) ++end;
    Table::Curve c;
    for (auto* v : {&c.bsz, &c.step, &c.sync}) v->reserve(end - i);
    for (std::size_t k = i; k < end; ++k) {
      c.bsz.push_back(rows[k]->local_bsz);
      c.step.push_back(rows[k]->step_time_s);
      c.sync.push_back(rows[k]->sync_time_s);
    }
    t->by_placement.emplace_hint(t->by_placement.end(), rows[i]->placement, std::move(c));
    i = end;
  }
  // Points of the ND interpolation: placement rows averaged per (nodes, replicas, bsz) in sorted key
  // order (pandas groupby), then the scalability rows in file order. The rows are re-sorted by that
  // key, ties in file order, so each mean sums its rows in file order as the simulator does.
  auto point_of = [](const StepSample* s) { return std::make_tuple(s->num_nodes, s->num_replicas, s->local_bsz); };
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = &prof->placements[i];  // back to file order
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const StepSample* a, const StepSample* b) { return point_of(a) < point_of(b); });
  t->points.reserve(rows.size() + prof->scalability.size());
  t->values.reserve(rows.size() + prof->scalability.size());
  for (std::size_t i = 0; i < rows.size();) {
    double step = 0.0, sync = 0.0, count = 0.0;
    std::size_t end = i;
    for (; end < rows.size() && point_of(rows[end]) == point_of(rows[i]); ++end) {
      step += rows[end]->step_time_s;
      sync += rows[end]->sync_time_s;
      count += 1.0;
    }
    t->points.push_back({static_cast<double>(rows[i]->num_nodes), static_cast<double>(rows[i]->num_replicas),
                         rows[i]->local_bsz});
    t->values.push_back({step / count, sync / count});
    i = end;
  }
  for (const StepSample& s : prof->scalability) {
    t->points.push_back({static_cast<double>(s.num_nodes), static_cast<double>(s.num_replicas), s.local_bsz});
    t->values.push_back({s.step_time_s, s.sync_time_s});
  }
  auto& slot = tables_[key];
  slot = std::move(t);
  return *slot;
}

namespace {

StepTime interp_curve(const std::vector<double>& x, const std::vector<double>& a, const std::vector<double>& b,
                      double q) {
  q = std::clamp(q, x.front(), x.back());
  auto it = std::lower_bound(x.begin(), x.end(), q);
  auto i = static_cast<std::size_t>(it - x.begin());
  if (i < x.size() && x[i] == q) return {a[i], b[i]};
  std::size_t lo = i - 1, hi = i;
  double w = (q - x[lo]) / (x[hi] - x[lo]);
  return {a[lo] + w * (a[hi] - a[lo]), b[lo] + w * (b[hi] - b[lo])};
}

}  // namespace

StepTime PolluxTableStepModel::step_time(const PolluxApplication& app, const std::string& gpu_type,
                                         const Placement& placement, double local_bsz) const {
  const Table& t = table(app, gpu_type);
  std::string key = placement_key(placement);
  auto it = t.by_placement.find(key);
  if (it != t.by_placement.end()) return interp_curve(it->second.bsz, it->second.step, it->second.sync, local_bsz);
  int nodes = static_cast<int>(key.size());
  int replicas = 0;
  for (char c : key) replicas += c - '0';
  nodes = std::min(nodes, 16);  // the simulator caps nodes at 16 for this lookup
  auto ck = std::make_tuple(nodes, replicas, local_bsz);
  if (auto c = t.nd_cache.find(ck); c != t.nd_cache.end()) return c->second;
  StepTime out;
  std::optional<std::array<double, 2>> v;
  if (!t.nd_built) {
    t.nd_built = true;
    try {
      t.nd = std::make_unique<perf_detail::DelaunayInterpolator3>(t.points, t.values, cache_dir_);
    } catch (const std::runtime_error&) {
      t.nd.reset();  // too few points: the nearest-sample fallback answers
    }
  }
  if (t.nd) v = (*t.nd)({static_cast<double>(nodes), static_cast<double>(replicas), local_bsz});
  if (v) {
    out = {(*v)[0], (*v)[1]};
  } else {
    // Outside the measured hull: the nearest measured (nodes, replicas), batch interpolated there.
    double best = std::numeric_limits<double>::infinity();
    int bn = 0, br = 0;
    for (const auto& p : t.points) {
      double d = std::hypot(p[0] - nodes, p[1] - replicas);
      if (d < best) {
        best = d;
        bn = static_cast<int>(p[0]);
        br = static_cast<int>(p[1]);
      }
    }
    std::vector<double> x, a, b;
    for (std::size_t i = 0; i < t.points.size(); ++i) {
      if (static_cast<int>(t.points[i][0]) != bn || static_cast<int>(t.points[i][1]) != br) continue;
      x.push_back(t.points[i][2]);
      a.push_back(t.values[i][0]);
      b.push_back(t.values[i][1]);
    }
    std::vector<std::size_t> order(x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto i, auto j) { return x[i] < x[j]; });
    std::vector<double> xs, as, bs;
    for (auto i : order) {
      if (!xs.empty() && xs.back() == x[i]) continue;
      xs.push_back(x[i]);
      as.push_back(a[i]);
      bs.push_back(b[i]);
    }
    out = interp_curve(xs, as, bs, local_bsz);
  }
  t.nd_cache[ck] = out;
  return out;
}

}  // namespace hetsim
