#include "delaunay_interp.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "delaunay_cache.hpp"

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace hetsim::perf_detail {

namespace {

// The lower-hull facets of Qhull's triangulation as point indices, in Qhull's facet and vertex
// order (the order decides which tetrahedron answers a query on a shared face). Empty when Qhull fails.
std::vector<Simplex3> qhull_simplices(const std::vector<std::array<double, 3>>& points) {
  std::vector<coordT> coords;
  coords.reserve(points.size() * 3);
  for (const auto& p : points) coords.insert(coords.end(), p.begin(), p.end());
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, stderr);
  std::string flags = std::string("qhull ") + kScipyDelaunayOptions;
  FILE* devnull = std::fopen("/dev/null", "w");
  int code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False, flags.data(), nullptr,
                          devnull ? devnull : stderr);
  std::vector<Simplex3> out;
  if (code == 0) {
    facetT* facet;
    FORALLfacets {
      if (facet->upperdelaunay) continue;
      Simplex3 s{};
      int k = 0;
      bool ok = true;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) {
        int id = qh_pointid(qh, vertex->point);
        if (k >= 4 || id < 0 || id >= static_cast<int>(points.size())) {
          ok = false;
          break;
        }
        s[static_cast<std::size_t>(k++)] = id;
      }
      if (ok && k == 4) out.push_back(s);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  if (devnull) std::fclose(devnull);
  if (code != 0) out.clear();
  return out;
}

}  // namespace

DelaunayInterpolator3::DelaunayInterpolator3(std::vector<std::array<double, 3>> points,
                                             std::vector<std::array<double, 2>> values, const std::string& cache_dir)
    : points_(std::move(points)), values_(std::move(values)) {
  if (points_.size() < 5) throw std::runtime_error("Delaunay interpolation needs at least 5 points");
  std::optional<std::vector<Simplex3>> simplices;
  if (!cache_dir.empty()) simplices = read_delaunay_cache(cache_dir, points_, kScipyDelaunayOptions);
  if (!simplices) {
    simplices = qhull_simplices(points_);
    if (!cache_dir.empty() && !simplices->empty()) write_delaunay_cache(cache_dir, points_, kScipyDelaunayOptions, *simplices);
  }
  simplices_ = std::move(*simplices);
  bool any = false;
  std::array<double, 9> inv;
  for (const Simplex3& s : simplices_)
    if ((any = inverse(s, inv))) break;
  if (!any) throw std::runtime_error("Qhull could not triangulate the step-time samples");
}

bool DelaunayInterpolator3::inverse(const std::array<int, 4>& v, std::array<double, 9>& inv) const {
  const auto& p0 = points_[static_cast<std::size_t>(v[0])];
  double m[9];
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[r * 3 + c] = points_[static_cast<std::size_t>(v[static_cast<std::size_t>(c + 1)])][static_cast<std::size_t>(r)] - p0[static_cast<std::size_t>(r)];
  double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
               m[2] * (m[3] * m[7] - m[4] * m[6]);
  double scale = 0.0;
  for (double x : m) scale = std::max(scale, std::fabs(x));
  if (!(std::fabs(det) > 1e-12 * scale * scale * scale)) return false;  // flat tetrahedron (Qt can make them)
  inv = {(m[4] * m[8] - m[5] * m[7]) / det, (m[2] * m[7] - m[1] * m[8]) / det, (m[1] * m[5] - m[2] * m[4]) / det,
         (m[5] * m[6] - m[3] * m[8]) / det, (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
         (m[3] * m[7] - m[4] * m[6]) / det, (m[1] * m[6] - m[0] * m[7]) / det, (m[0] * m[4] - m[1] * m[3]) / det};
  return true;
}

std::optional<std::array<double, 2>> DelaunayInterpolator3::operator()(const std::array<double, 3>& q) const {
  constexpr double kEps = 100 * 2.220446049250313e-16;  // scipy's tolerance for "inside a simplex"
  if (scanned_.capacity() == 0) scanned_.reserve(simplices_.size());
  for (std::size_t i = 0; i < simplices_.size(); ++i) {
    const Simplex3& v = simplices_[i];
    if (i == scanned_.size()) {
      Tet t;
      t.flat = !inverse(v, t.inv);
      scanned_.push_back(t);
    }
    const Tet& t = scanned_[i];
    if (t.flat) continue;
    const std::array<double, 9>& inv = t.inv;
    const auto& p0 = points_[static_cast<std::size_t>(v[0])];
    double d[3] = {q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]};
    double c[4];
    c[1] = inv[0] * d[0] + inv[1] * d[1] + inv[2] * d[2];
    c[2] = inv[3] * d[0] + inv[4] * d[1] + inv[5] * d[2];
    c[3] = inv[6] * d[0] + inv[7] * d[1] + inv[8] * d[2];
    c[0] = 1.0 - c[1] - c[2] - c[3];
    bool inside = true;
    for (double x : c) inside = inside && x >= -kEps && x <= 1.0 + kEps;
    if (!inside) continue;
    std::array<double, 2> out{0.0, 0.0};
    for (std::size_t k = 0; k < 4; ++k) {
      const auto& val = values_[static_cast<std::size_t>(v[k])];
      out[0] += c[k] * val[0];
      out[1] += c[k] * val[1];
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace hetsim::perf_detail
