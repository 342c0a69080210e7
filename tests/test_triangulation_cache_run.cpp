// The triangulation cache seen from the CLI (on by default since issue 19, docs/models.md): a run
// stores its Delaunay triangulations in the cache folder, a later run reads them, and whatever the
// folder holds (nothing, the stored files, damaged files, a folder that cannot be made) the
// outputs are the same bytes. ctest runs every test with HETSIM_CACHE_DIR=off (tests/CMakeLists.txt);
// these set the variables themselves.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace hetsim;
namespace fs = std::filesystem;

namespace {

// Pollux workload 1 under tiresias triangulates three applications' samples (imagenet, cifar10,
// bert: docs/EXPERIMENTS.md "pollux4").
std::string tiresias_args(const std::string& workload, const std::string& profiles, const fs::path& out) {
  return "run -q --cluster pollux-64 --workload '" + workload + "' --profiles '" + profiles +
         "' --policy tiresias --interval 60 --out '" + out.string() + "'";
}

// The files of a cache folder whose names start with `prefix` ("": all).
std::vector<fs::path> cache_files(const fs::path& dir, const std::string& prefix = "") {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with(prefix)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

void require_same_outputs(const fs::path& a, const fs::path& b) {
  for (const char* f : {"jobs.csv", "summary.json"}) {
    INFO(f);
    REQUIRE(fs::exists(a / f));
    CHECK(test::slurp(a / f) == test::slurp(b / f));
  }
}

}  // namespace

TEST_CASE("triangulation cache: a second run reads the stored files, damaged files are rewritten, outputs never move") {
  auto workload = test::shared_data("pollux/workloads/workload-1.csv");
  auto profiles = test::shared_data("pollux/traces");
  if (!workload || !profiles) return;  // the shared data is absent
  test::TempDir dir("triangulation-cache-run");
  const fs::path cache = dir.path / "cache";
  const std::string env = "HETSIM_CACHE_DIR='" + cache.string() + "'";

  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "off"), "", "HETSIM_CACHE_DIR=off").exit_code == 0);
  CHECK_FALSE(fs::exists(cache));
  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "cold"), "", env).exit_code == 0);
  // One file per triangulated application and one of parsed profile CSVs per application (the
  // workload has six), no temporary left behind.
  const std::vector<fs::path> stored = cache_files(cache);
  REQUIRE(cache_files(cache, "delaunay-").size() == 3);
  REQUIRE(cache_files(cache, "profiles-").size() == 6);
  REQUIRE(stored.size() == 9);
  require_same_outputs(dir.path / "off", dir.path / "cold");

  // Warm: the files are read, not rewritten (their modification times stay).
  std::vector<fs::file_time_type> times;
  for (const fs::path& f : stored) {
    fs::last_write_time(f, fs::file_time_type::clock::now() - std::chrono::hours(1));
    times.push_back(fs::last_write_time(f));
  }
  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "warm"), "", env).exit_code == 0);
  for (std::size_t i = 0; i < stored.size(); ++i) CHECK(fs::last_write_time(stored[i]) == times[i]);
  require_same_outputs(dir.path / "off", dir.path / "warm");

  // Damaged: every file overwritten with other bytes; the run ignores them and stores good ones.
  std::vector<std::string> good;
  for (const fs::path& f : stored) {
    good.push_back(test::slurp(f));
    dir.write(fs::relative(f, dir.path).string(), "damaged");
  }
  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "damaged"), "", env).exit_code == 0);
  require_same_outputs(dir.path / "off", dir.path / "damaged");
  REQUIRE(cache_files(cache) == stored);
  for (std::size_t i = 0; i < stored.size(); ++i) CHECK(test::slurp(stored[i]) == good[i]);
}

TEST_CASE("triangulation cache: by default under XDG_CACHE_HOME or HOME, an unusable folder changes nothing") {
  auto workload = test::shared_data("pollux/workloads/workload-1.csv");
  auto profiles = test::shared_data("pollux/traces");
  if (!workload || !profiles) return;
  test::TempDir dir("triangulation-cache-default");
  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "off"), "", "HETSIM_CACHE_DIR=off").exit_code == 0);

  const fs::path home = dir.path / "home";
  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "home-run"), "",
                        "env -u HETSIM_CACHE_DIR -u XDG_CACHE_HOME HOME='" + home.string() + "'")
              .exit_code == 0);
  CHECK(cache_files(home / ".cache" / "hetsim", "delaunay-").size() == 3);
  CHECK(cache_files(home / ".cache" / "hetsim", "profiles-").size() == 6);
  require_same_outputs(dir.path / "off", dir.path / "home-run");

  const fs::path xdg = dir.path / "xdg";
  REQUIRE(test::run_cli(tiresias_args(*workload, *profiles, dir.path / "xdg-run"), "",
                        "env -u HETSIM_CACHE_DIR XDG_CACHE_HOME='" + xdg.string() + "' HOME='" + home.string() + "'")
              .exit_code == 0);
  CHECK(cache_files(xdg / "hetsim", "delaunay-").size() == 3);

  // A cache folder that cannot be created (under a plain file): silently skipped, same outputs.
  const std::string file = dir.write("plain-file", "x");
  const auto r = test::run_cli(tiresias_args(*workload, *profiles, dir.path / "unusable"), "",
                               "HETSIM_CACHE_DIR='" + file + "/cache'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.empty());
  require_same_outputs(dir.path / "off", dir.path / "unusable");
}
