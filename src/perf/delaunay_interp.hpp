#pragma once
// Piecewise-linear interpolation of scattered 3-D points over their Delaunay triangulation (private
// to src/perf/). The Pollux simulator uses scipy's LinearNDInterpolator for placements it did not
// measure; scipy triangulates with Qhull ("d Qbb Qc Qz Q12 Qt"), so hetsim calls Qhull with the same
// options on the points in the same order to get the same tetrahedra.
#include <array>
#include <optional>
#include <vector>

namespace hetsim::perf_detail {

/// Linear interpolation of `values` (two per point) over the Delaunay tetrahedra of `points`.
class DelaunayInterpolator3 {
 public:
  /// Triangulates; throws std::runtime_error when Qhull fails (fewer than 5 points, all coplanar).
  DelaunayInterpolator3(std::vector<std::array<double, 3>> points, std::vector<std::array<double, 2>> values);
  /// Interpolated values at `q`, or nullopt outside the convex hull (scipy returns NaN there).
  std::optional<std::array<double, 2>> operator()(const std::array<double, 3>& q) const;

 private:
  struct Tet {
    std::array<int, 4> v;
    std::array<double, 9> inv;  // inverse of [p1-p0, p2-p0, p3-p0] (row-major)
  };
  std::vector<std::array<double, 3>> points_;
  std::vector<std::array<double, 2>> values_;
  std::vector<Tet> tets_;
};

}  // namespace hetsim::perf_detail
