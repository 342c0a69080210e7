// The folder of Delaunay triangulations kept between runs (src/perf/delaunay_cache.hpp, opt-in
// through HETSIM_CACHE_DIR): a run that reads a stored triangulation answers exactly as one that
// triangulates, and a file that does not match its points is never used.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "../src/perf/delaunay_cache.hpp"
#include "../src/perf/delaunay_interp.hpp"
#include "temp_dir.hpp"

using namespace hetsim;
using perf_detail::DelaunayInterpolator3;
using perf_detail::kScipyDelaunayOptions;
using perf_detail::Simplex3;

namespace {

// A 3x3x3 grid (cospherical points: Qhull merges facets, then Qt splits them) carrying the linear
// function x + 2y + 3z, which any triangulation interpolates exactly.
struct GridSamples {
  std::vector<std::array<double, 3>> points;
  std::vector<std::array<double, 2>> values;
  GridSamples() {
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 3; ++z) {
          points.push_back({double(x), double(y), double(z)});
          values.push_back({x + 2.0 * y + 3.0 * z, 1.0});
        }
  }
};

const std::vector<std::array<double, 3>> kDelaunayQueries = {{0.5, 0.5, 0.5}, {1.25, 0.1, 1.9}, {2.0, 2.0, 2.0}, {0.3, 1.7, 0.2}};

}  // namespace

TEST_CASE("delaunay cache: a second triangulation of the same points reads the first's tetrahedra") {
  GridSamples g;
  test::TempDir dir("delaunay-cache");
  DelaunayInterpolator3 fresh(g.points, g.values);
  DelaunayInterpolator3 first(g.points, g.values, dir.str());
  const auto stored = perf_detail::read_delaunay_cache(dir.str(), g.points, kScipyDelaunayOptions);
  REQUIRE(stored);
  CHECK(stored->size() >= 6);  // a cube needs at least 5 tetrahedra; Qt's fan over 8 cubes gives more
  CHECK(std::filesystem::exists(perf_detail::delaunay_cache_path(dir.str(), g.points, kScipyDelaunayOptions)));
  DelaunayInterpolator3 second(g.points, g.values, dir.str());
  for (const auto& q : kDelaunayQueries) {
    auto a = fresh(q), b = first(q), c = second(q);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK((*a)[0] == Approx(q[0] + 2 * q[1] + 3 * q[2]));
    CHECK((*b)[0] == (*a)[0]);  // bit for bit, not approximately
    CHECK((*c)[0] == (*a)[0]);
    CHECK((*c)[1] == (*a)[1]);
  }
  CHECK_FALSE(second({3.5, 0.0, 0.0}));  // outside the hull, as before

  // The stored tetrahedra are what a later run uses: one hand-made tetrahedron (corners 0, 1, 3, 9:
  // (0,0,0), (0,0,1), (0,1,0), (1,0,0)) answers inside it and nothing elsewhere.
  REQUIRE(perf_detail::write_delaunay_cache(dir.str(), g.points, kScipyDelaunayOptions, {Simplex3{0, 1, 3, 9}}));
  DelaunayInterpolator3 crafted(g.points, g.values, dir.str());
  auto inside = crafted({0.25, 0.25, 0.25});
  REQUIRE(inside);
  CHECK((*inside)[0] == Approx(0.25 + 0.5 + 0.75));
  CHECK_FALSE(crafted({1.5, 1.5, 1.5}));
}

TEST_CASE("delaunay cache: a damaged, truncated or foreign file is not used and is rewritten") {
  GridSamples g;
  test::TempDir dir("delaunay-cache-bad");
  DelaunayInterpolator3 fresh(g.points, g.values);
  const std::string path = perf_detail::delaunay_cache_path(dir.str(), g.points, kScipyDelaunayOptions);
  auto answers_like_fresh = [&] {
    DelaunayInterpolator3 cached(g.points, g.values, dir.str());
    for (const auto& q : kDelaunayQueries) CHECK(cached(q).value()[0] == fresh(q).value()[0]);
  };
  SECTION("garbage") { dir.write(std::filesystem::path(path).filename().string(), "not a triangulation"); }
  SECTION("truncated") {
    REQUIRE(perf_detail::write_delaunay_cache(dir.str(), g.points, kScipyDelaunayOptions, {Simplex3{0, 1, 3, 9}}));
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  }
  SECTION("an index past the points") {
    REQUIRE(perf_detail::write_delaunay_cache(dir.str(), g.points, kScipyDelaunayOptions, {Simplex3{0, 1, 3, 27}}));
  }
  SECTION("the file of other points under this name") {
    auto moved = g.points;
    moved[13][0] = std::nextafter(1.0, 2.0);  // the centre, one ulp away
    REQUIRE(perf_detail::write_delaunay_cache(dir.str(), moved, kScipyDelaunayOptions, {Simplex3{0, 1, 3, 9}}));
    const std::string other = perf_detail::delaunay_cache_path(dir.str(), moved, kScipyDelaunayOptions);
    CHECK(other != path);
    std::filesystem::rename(other, path);
  }
  CHECK_FALSE(perf_detail::read_delaunay_cache(dir.str(), g.points, kScipyDelaunayOptions));
  answers_like_fresh();
  // The run that found the bad file stored a good one.
  auto stored = perf_detail::read_delaunay_cache(dir.str(), g.points, kScipyDelaunayOptions);
  REQUIRE(stored);
  CHECK(stored->size() > 1);
}

TEST_CASE("delaunay cache: a folder that cannot be written leaves the triangulation as it is") {
  GridSamples g;
  test::TempDir dir("delaunay-cache-ro");
  const std::string file = dir.write("plain-file", "x");
  const std::string under_file = file + "/cache";  // a folder cannot be made under a file
  CHECK_FALSE(perf_detail::write_delaunay_cache(under_file, g.points, kScipyDelaunayOptions, {Simplex3{0, 1, 3, 9}}));
  DelaunayInterpolator3 fresh(g.points, g.values);
  DelaunayInterpolator3 cached(g.points, g.values, under_file);
  CHECK(cached({0.5, 0.5, 0.5}).value()[0] == fresh({0.5, 0.5, 0.5}).value()[0]);
  CHECK_FALSE(std::filesystem::exists(under_file));
}

TEST_CASE("delaunay cache: the folder comes from HETSIM_CACHE_DIR, else XDG_CACHE_HOME, else HOME") {
  using perf_detail::triangulation_cache_dir;
  CHECK(triangulation_cache_dir("/tmp/x", "/xdg", "/home/u") == "/tmp/x");
  CHECK(triangulation_cache_dir("rel/dir", nullptr, nullptr) == "rel/dir");  // used as given
  CHECK(triangulation_cache_dir("off", "/xdg", "/home/u").empty());          // turned off
  CHECK(triangulation_cache_dir("", "/xdg", "/home/u").empty());             // set but empty: off too
  CHECK(triangulation_cache_dir(nullptr, "/xdg", "/home/u") == "/xdg/hetsim");
  // XDG base-directory rule: a relative or empty XDG_CACHE_HOME is ignored.
  CHECK(triangulation_cache_dir(nullptr, "xdg", "/home/u") == "/home/u/.cache/hetsim");
  CHECK(triangulation_cache_dir(nullptr, "", "/home/u") == "/home/u/.cache/hetsim");
  CHECK(triangulation_cache_dir(nullptr, nullptr, "/home/u") == "/home/u/.cache/hetsim");
  CHECK(triangulation_cache_dir(nullptr, nullptr, "").empty());
  CHECK(triangulation_cache_dir(nullptr, nullptr, nullptr).empty());
}
