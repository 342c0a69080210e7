#include "profile_csv_cache.hpp"

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>

#include "cache_bytes.hpp"
#include "delaunay_cache.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim::perf_detail {

namespace {

// Layout: magic, the folder, the CSV count; per CSV its file name, size, modification time (ns), header
// cells, row lines and values, each list a u64 count then its items (strings: u64 length, bytes).
constexpr char kMagic[8] = {'h', 's', 'c', 's', 'v', '0', '0', '1'};

// Reads from a byte string; every read checks the bytes left, so damaged input only fails.
struct Reader {
  const std::string& bytes;
  std::size_t at = 0;

  template <class T>
  bool get(T& v) {
    if (bytes.size() - at < sizeof v) return false;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return true;
  }
  bool get_string(std::string& s) {
    std::uint64_t n = 0;
    if (!get(n) || bytes.size() - at < n) return false;
    s.assign(bytes.data() + at, static_cast<std::size_t>(n));
    at += static_cast<std::size_t>(n);
    return true;
  }
  template <class T>
  bool get_vector(std::vector<T>& v) {
    std::uint64_t n = 0;
    if (!get(n) || n > (bytes.size() - at) / sizeof(T)) return false;
    v.resize(static_cast<std::size_t>(n));
    std::memcpy(v.data(), bytes.data() + at, v.size() * sizeof(T));
    at += v.size() * sizeof(T);
    return true;
  }
};

bool decode_one(Reader& in, StoredCsv& c) {
  std::uint64_t cells = 0;
  if (!in.get_string(c.name) || !in.get(c.size) || !in.get(c.mtime_ns) || !in.get(cells)) return false;
  if (cells == 0 || cells > in.bytes.size() - in.at) return false;
  c.csv.path = c.name;
  c.csv.header.resize(static_cast<std::size_t>(cells));
  for (std::string& h : c.csv.header)
    if (!in.get_string(h)) return false;
  if (!in.get_vector(c.csv.lines) || !in.get_vector(c.csv.values)) return false;
  return c.csv.values.size() == c.csv.lines.size() * c.csv.header.size();
}

// The file's size and modification time, or false when it cannot be examined.
bool identity(const std::string& path, std::uint64_t& size, std::int64_t& mtime_ns) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  size = static_cast<std::uint64_t>(st.st_size);
  mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

// The cache file of a folder: named by a hash of the folder's path (which the file also records).
std::string file_of(const std::string& cache_dir, const std::string& folder) {
  const std::uint64_t h = fnv1a(14695981039346656037ULL, folder.data(), folder.size());
  return (std::filesystem::path(cache_dir) / fmt::format("profiles-{:016x}.bin", h)).string();
}

}  // namespace

std::string encode_profile_csvs(const std::string& folder, const std::vector<StoredCsv>& csvs) {
  std::string out(kMagic, sizeof kMagic);
  put_string(out, folder);
  put(out, static_cast<std::uint64_t>(csvs.size()));
  for (const StoredCsv& c : csvs) {
    put_string(out, c.name);
    put(out, c.size);
    put(out, c.mtime_ns);
    put(out, static_cast<std::uint64_t>(c.csv.header.size()));
    for (const std::string& h : c.csv.header) put_string(out, h);
    put_vector(out, c.csv.lines);
    put_vector(out, c.csv.values);
  }
  return out;
}

bool decode_profile_csvs(const std::string& folder, const std::string& bytes, std::vector<StoredCsv>& out) {
  out.clear();
  Reader in{bytes};
  std::string magic(sizeof kMagic, '\0'), stored_folder;
  std::uint64_t count = 0;
  bool ok = bytes.size() >= sizeof kMagic && bytes.compare(0, sizeof kMagic, kMagic, sizeof kMagic) == 0;
  in.at = sizeof kMagic;
  ok = ok && in.get_string(stored_folder) && stored_folder == folder && in.get(count) && count <= bytes.size();
  for (std::uint64_t i = 0; ok && i < count; ++i) {
    out.emplace_back();
    ok = decode_one(in, out.back());
  }
  ok = ok && in.at == bytes.size();
  if (!ok) out.clear();
  return ok;
}

ProfileCsvCache::ProfileCsvCache(std::string cache_dir, std::string folder)
    : cache_dir_(std::move(cache_dir)), folder_(std::move(folder)) {
  if (cache_dir_.empty()) return;
  std::string bytes;
  try {
    bytes = read_file(file_of(cache_dir_, folder_));
  } catch (const std::exception&) {
    return;  // no cache file yet (or unreadable): every CSV is parsed, then stored
  }
  std::vector<StoredCsv> stored;
  decode_profile_csvs(folder_, bytes, stored);
  for (StoredCsv& c : stored) stored_.push_back(std::move(c));
  used_.assign(stored_.size(), 0);
}

const NumericCsv& ProfileCsvCache::read(const std::string& path) {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  const std::string name = std::filesystem::path(path).filename().string();
  const bool known = !cache_dir_.empty() && identity(path, size, mtime_ns);
  if (known)
    for (std::size_t i = 0; i < stored_.size(); ++i)
      if (stored_[i].name == name && stored_[i].size == size && stored_[i].mtime_ns == mtime_ns) {
        used_[i] = 1;
        stored_[i].csv.path = path;
        return stored_[i].csv;
      }
  parsed_ = true;
  // Stored even without a cache folder (never written then): the reference needs an owner.
  stored_.push_back(StoredCsv{name, size, mtime_ns, read_numeric_csv(path)});
  used_.push_back(known ? 1 : 0);
  return stored_.back().csv;
}

void ProfileCsvCache::save() const {
  if (cache_dir_.empty()) return;
  bool unused = false;
  std::vector<StoredCsv> keep;
  for (std::size_t i = 0; i < stored_.size(); ++i) {
    if (used_[i]) keep.push_back(stored_[i]);
    else unused = true;
  }
  if (!parsed_ && !unused) return;
  std::error_code ec;
  std::filesystem::create_directories(cache_dir_, ec);
  if (!ec) write_cache_file(file_of(cache_dir_, folder_), encode_profile_csvs(folder_, keep));
}

}  // namespace hetsim::perf_detail
