#pragma once
// Parsed profile CSVs kept between runs (private to src/perf/). Once triangulations were cached,
// parsing the Pollux/Sia profile CSVs (about 40,000 numbers for a workload of six applications)
// was a third of a short run's instructions (issue 19). The parsed CSVs of one profile folder are
// stored in one file of the cache folder (the one HETSIM_CACHE_DIR names, docs/models.md) and are
// used again while each CSV's size and modification time are those recorded, the rule CPython
// applies to its .pyc files; a CSV that changed, or a cache file that is damaged or of another
// layout, is parsed again.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "csv_columns.hpp"

namespace hetsim::perf_detail {

/// One stored CSV: the file's name in its folder, its size and modification time when it was
/// parsed, and the result. By name, not by the path a run spelled (relative or absolute), so that
/// runs naming the folder differently share the entry.
struct StoredCsv {
  std::string name;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  NumericCsv csv;
};

/// The bytes of a cache file of `folder` (native byte order: a cache of this machine, not an
/// exchange format), and back; decode returns false on bytes of another layout or folder, or
/// damaged ones.
std::string encode_profile_csvs(const std::string& folder, const std::vector<StoredCsv>& csvs);
bool decode_profile_csvs(const std::string& folder, const std::string& bytes, std::vector<StoredCsv>& out);

class ProfileCsvCache {
 public:
  /// The cache of the CSVs of `folder` kept in `cache_dir` ("" = none: every read parses).
  ProfileCsvCache(std::string cache_dir, std::string folder);
  /// `path` (a file of the folder) parsed: the stored copy while the file's size and modification
  /// time are unchanged, otherwise read_numeric_csv(path) (which throws InputError on a bad file;
  /// none is stored). Its `path` is the one given here, so errors name the file as the run does.
  /// The reference stays valid while the cache lives.
  const NumericCsv& read(const std::string& path);
  /// Stores the CSVs read since construction when any was parsed or a stored one went unused
  /// (written to a temporary file, then renamed); best effort, as the triangulation cache.
  void save() const;

 private:
  std::string cache_dir_, folder_;
  std::deque<StoredCsv> stored_;  // a deque: read() hands out references while CSVs are added
  std::vector<char> used_;  // [i]: stored_[i] was read this time
  bool parsed_ = false;
};

}  // namespace hetsim::perf_detail
