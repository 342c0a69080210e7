#pragma once
// Piecewise-linear interpolation of scattered 3-D points over their Delaunay triangulation (private
// to src/perf/). The Pollux simulator uses scipy's LinearNDInterpolator for placements it did not
// measure; scipy triangulates with Qhull ("d Qbb Qc Qz Q12 Qt"), so hetsim calls Qhull with the same
// options on the points in the same order to get the same tetrahedra.
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace hetsim::perf_detail {

/// The options scipy.spatial.Delaunay passes to Qhull for 3-D input (Qt is always added).
inline constexpr char kScipyDelaunayOptions[] = "d Qbb Qc Qz Q12 Qt";

/// Linear interpolation of `values` (two per point) over the Delaunay tetrahedra of `points`.
class DelaunayInterpolator3 {
 public:
  /// Triangulates; throws std::runtime_error when Qhull fails (fewer than 5 points, all coplanar).
  /// With `cache_dir`, the tetrahedra of an earlier triangulation of the same points are read from
  /// there (delaunay_cache.hpp), and a new triangulation is stored there.
  DelaunayInterpolator3(std::vector<std::array<double, 3>> points, std::vector<std::array<double, 2>> values,
                        const std::string& cache_dir = {});
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
  void add_tet(const std::array<int, 4>& v);
};

}  // namespace hetsim::perf_detail
