// Parsed profile CSVs kept between runs (src/perf/profile_csv_cache.hpp): a stored CSV is used
// only while its file's size and modification time are unchanged, a damaged cache file is never
// believed, and an error in a CSV is the same with or without the cache.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "../src/perf/profile_csv_cache.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"

using namespace hetsim;
using perf_detail::ProfileCsvCache;

namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::size_t cache_files(const std::filesystem::path& dir) {
  std::size_t n = 0;
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.path().filename().string().starts_with("profiles-");
  return n;
}

}  // namespace

TEST_CASE("profile CSV cache: a second reader gets the stored parse, a changed file is parsed again") {
  test::TempDir root("profile-csv");
  const auto folder = root.path / "app", cache = root.path / "cache";
  std::filesystem::create_directories(folder);
  const std::string csv = (folder / "placements.csv").string();
  write_text(csv, "placement,local_bsz,step_time\n1,8,0.25\n\n2,16,0.5\n");
  {
    ProfileCsvCache c(cache.string(), folder.string());
    const auto& parsed = c.read(csv);
    CHECK(parsed.header == std::vector<std::string>{"placement", "local_bsz", "step_time"});
    CHECK(parsed.values == std::vector<double>{1, 8, 0.25, 2, 16, 0.5});
    CHECK(parsed.lines == std::vector<std::size_t>{2, 4});
    c.save();
  }
  REQUIRE(cache_files(cache) == 1);
  // The stored copy is used while the file is unchanged: make the file unreadable as a CSV but keep
  // its size and time, and the cached numbers still come back (proof that nothing was re-parsed).
  const auto when = std::filesystem::last_write_time(csv);
  write_text(csv, "placement,local_bsz,step_time\nx,8,0.25\n\n2,16,0.5\n");
  std::filesystem::last_write_time(csv, when);
  {
    ProfileCsvCache c(cache.string(), folder.string());
    const auto& stored = c.read(csv);
    CHECK(stored.values == std::vector<double>{1, 8, 0.25, 2, 16, 0.5});
    CHECK(stored.path == csv);
    CHECK(stored.lines == std::vector<std::size_t>{2, 4});
  }
  {
    // The same folder spelled another way (a relative path) shares the entry; the path is the one given.
    const std::string relative = (std::filesystem::relative(folder) / "placements.csv").string();
    ProfileCsvCache c(cache.string(), std::filesystem::absolute(folder).lexically_normal().string());
    const auto& stored = c.read(relative);
    CHECK(stored.values == std::vector<double>{1, 8, 0.25, 2, 16, 0.5});
    CHECK(stored.path == relative);
  }
  // A newer modification time: parsed again, and its error names file, line and field.
  std::filesystem::last_write_time(csv, when + std::chrono::seconds(5));
  ProfileCsvCache c(cache.string(), folder.string());
  try {
    c.read(csv);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == csv);
    CHECK(e.line() == 2);
    CHECK(e.field() == "placement");
  }
}

TEST_CASE("profile CSV cache: no folder means no file, bytes of another folder or damaged bytes are refused") {
  test::TempDir root("profile-csv-off");
  const auto folder = root.path / "app";
  std::filesystem::create_directories(folder);
  const std::string csv = (folder / "validation-8.csv").string();
  write_text(csv, "progress,metric\n1.5,0.25\n3,0.5\n");
  {
    ProfileCsvCache off("", folder.string());
    CHECK(off.read(csv).values == std::vector<double>{1.5, 0.25, 3, 0.5});
    off.save();
  }
  CHECK(cache_files(root.path) == 0);

  perf_detail::StoredCsv one{"validation-8.csv", 31, 123456789, {}};
  one.csv.path = csv;
  one.csv.header = {"progress", "metric"};
  one.csv.values = {1.5, 0.25, 3, 0.5};
  one.csv.lines = {2, 3};
  const std::string bytes = perf_detail::encode_profile_csvs(folder.string(), {one});
  std::vector<perf_detail::StoredCsv> back;
  REQUIRE(perf_detail::decode_profile_csvs(folder.string(), bytes, back));
  REQUIRE(back.size() == 1);
  CHECK(back[0].name == "validation-8.csv");
  CHECK(back[0].size == 31);
  CHECK(back[0].mtime_ns == 123456789);
  CHECK(back[0].csv.values == one.csv.values);
  CHECK(back[0].csv.lines == one.csv.lines);
  CHECK(back[0].csv.header == one.csv.header);
  CHECK_FALSE(perf_detail::decode_profile_csvs("/elsewhere", bytes, back));  // another folder's file
  CHECK(back.empty());
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, bytes.size() / 2, bytes.size() - 1})
    CHECK_FALSE(perf_detail::decode_profile_csvs(folder.string(), bytes.substr(0, cut), back));  // truncated
  std::string longer = bytes + "x";
  CHECK_FALSE(perf_detail::decode_profile_csvs(folder.string(), longer, back));  // trailing bytes
  std::string wrong_count = bytes;
  wrong_count[wrong_count.size() - 8 * 4 - 1] ^= 0x7f;  // inside the value count or values: must not crash
  perf_detail::decode_profile_csvs(folder.string(), wrong_count, back);
  CHECK((back.empty() || back[0].csv.values.size() == back[0].csv.lines.size() * back[0].csv.header.size()));
}
