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
  std::vector<std::array<double, 3>> points_;
  std::vector<std::array<double, 2>> values_;
  // The inverses of the tetrahedra (88 bytes each, about 2,000 per application) are computed at
  // the first query that scans them and kept: a run of tiresias asks few queries, so only the
  // scanned prefix is computed and touched (the vector's capacity is reserved once; the untouched
  // rest of a large allocation costs no page fault), while optimus asks thousands and computes
  // each inverse once (issue 19: both were a large part of a short Pollux run).
  std::vector<std::array<int, 4>> simplices_;
  struct Tet {
    bool flat = false;          // degenerate: skipped, as Qt's flat tetrahedra are
    std::array<double, 9> inv{};  // inverse of [p1-p0, p2-p0, p3-p0] (row-major)
  };
  mutable std::vector<Tet> scanned_;  // tetrahedra 0..scanned_.size()-1, computed
  /// Inverse of [p1-p0, p2-p0, p3-p0] (row-major) of tetrahedron `v`; false when it is flat.
  bool inverse(const std::array<int, 4>& v, std::array<double, 9>& inv) const;
};

}  // namespace hetsim::perf_detail
