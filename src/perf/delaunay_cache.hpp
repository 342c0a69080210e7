#pragma once
// A folder of Delaunay triangulations kept between runs (private to src/perf/). Qhull's build of
// an application's step-time samples is most of a short Pollux run (issue 19: about 75 M
// instructions per application against about 90 M for the rest of a tiresias run), and it is a
// pure function of the points, the Qhull version and the options: a later run on the same
// profiles reads the tetrahedra back instead. A file records all three and the points themselves,
// so a file made from other points, by another Qhull or damaged is never used (it is rebuilt).
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace hetsim::perf_detail {

using Simplex3 = std::array<int, 4>;  // point indices of one tetrahedron, in Qhull's vertex order

/// The file of `points` in `dir` (its name is a hash of the points, the Qhull version and `options`).
std::string delaunay_cache_path(const std::string& dir, const std::vector<std::array<double, 3>>& points,
                                const std::string& options);

/// The tetrahedra stored for exactly these points, Qhull version and options, in Qhull's facet
/// order; nullopt when there is no such file or it does not match or is damaged.
std::optional<std::vector<Simplex3>> read_delaunay_cache(const std::string& dir,
                                                         const std::vector<std::array<double, 3>>& points,
                                                         const std::string& options);

/// The folder a run keeps its caches in (triangulations here, parsed profile CSVs in
/// profile_csv_cache.hpp), from the environment's values (nullptr = unset):
/// `hetsim_cache_dir` (HETSIM_CACHE_DIR) when set, where "off" or "" means no cache; otherwise
/// `xdg_cache_home`/hetsim when that is an absolute path (the XDG base-directory rule), otherwise
/// `home`/.cache/hetsim; "" (no cache) when none applies. On by default because a warm cache is
/// half of a short Pollux run's CPU time (issue 19), and a folder that cannot be written only
/// means triangulating again.
std::string triangulation_cache_dir(const char* hetsim_cache_dir, const char* xdg_cache_home, const char* home);
/// triangulation_cache_dir of this process's HETSIM_CACHE_DIR, XDG_CACHE_HOME and HOME: the one
/// place the cache folder is read from the environment.
std::string run_cache_dir();

/// Stores the tetrahedra (written to a temporary file, then renamed, so that concurrent runs never
/// read half a file). Best effort: a folder that cannot be created or written is left alone (the
/// next run triangulates again); returns whether the file was written.
bool write_delaunay_cache(const std::string& dir, const std::vector<std::array<double, 3>>& points,
                          const std::string& options, const std::vector<Simplex3>& simplices);

/// Writes `bytes` to `path` through a temporary file in the same folder renamed over it, so that
/// concurrent runs never read half a file; false (and nothing left behind) when that fails.
bool write_cache_file(const std::string& path, const std::string& bytes);

}  // namespace hetsim::perf_detail
