#include "delaunay_cache.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <string_view>
#include <system_error>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_bytes.hpp"

extern "C" {
#include <libqhull_r/libqhull_r.h>
}

namespace hetsim::perf_detail {

namespace {

// Layout (native byte order; the file is a cache of this machine, not an exchange format):
// magic, then the Qhull version and the options as counted strings, the point count and the
// points' doubles, the tetrahedron count and their int32 indices.
constexpr char kMagic[8] = {'h', 's', 'd', 'e', 'l', '3', 'v', '1'};

// The bytes of a file up to its tetrahedra, which must equal what is expected before any
// tetrahedron is believed.
std::string header(const std::vector<std::array<double, 3>>& points, const std::string& options) {
  std::string out(kMagic, sizeof kMagic);
  put_string(out, qh_version);
  put_string(out, options);
  put(out, static_cast<std::uint64_t>(points.size()));
  out.append(reinterpret_cast<const char*>(points.data()), points.size() * sizeof(points[0]));
  return out;
}

// The file named by the hash of a header (so a lookup hashes the header it then compares).
std::string file_of(const std::string& dir, const std::string& header_bytes) {
  const std::uint64_t hash = fnv1a(14695981039346656037ULL, header_bytes.data(), header_bytes.size());
  return (std::filesystem::path(dir) / fmt::format("delaunay-{:016x}.bin", hash)).string();
}

}  // namespace

std::string delaunay_cache_path(const std::string& dir, const std::vector<std::array<double, 3>>& points,
                                const std::string& options) {
  return file_of(dir, header(points, options));
}

namespace {

// Reads exactly `size` bytes of `fd` into `out`; false on a short read or an error.
bool read_exactly(int fd, char* out, std::size_t size) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::read(fd, out + done, size - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// The tetrahedra of an open cache file, read straight into their vector (no copy of the whole
// file in between: fewer allocations and page faults on every warm run, issue 19).
std::optional<std::vector<Simplex3>> read_simplices(int fd, const std::string& expected, std::size_t point_count) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size < expected.size() + sizeof(std::uint64_t)) return std::nullopt;
  std::string head(expected.size(), '\0');
  if (!read_exactly(fd, head.data(), head.size()) || head != expected) return std::nullopt;
  std::uint64_t count = 0;
  if (!read_exactly(fd, reinterpret_cast<char*>(&count), sizeof count)) return std::nullopt;
  const std::size_t body = size - expected.size() - sizeof count;
  if (count == 0 || body % sizeof(Simplex3) != 0 || body / sizeof(Simplex3) != count) return std::nullopt;
  std::vector<Simplex3> out(static_cast<std::size_t>(count));
  if (!read_exactly(fd, reinterpret_cast<char*>(out.data()), body)) return std::nullopt;
  for (const Simplex3& s : out)
    for (int v : s)
      if (v < 0 || static_cast<std::size_t>(v) >= point_count) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::vector<Simplex3>> read_delaunay_cache(const std::string& dir,
                                                         const std::vector<std::array<double, 3>>& points,
                                                         const std::string& options) {
  const std::string expected = header(points, options);
  const std::string path = file_of(dir, expected);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  auto out = read_simplices(fd, expected, points.size());
  ::close(fd);
  return out;
}

std::string triangulation_cache_dir(const char* hetsim_cache_dir, const char* xdg_cache_home, const char* home) {
  if (hetsim_cache_dir) {
    const std::string_view v = hetsim_cache_dir;
    return v == "off" ? std::string() : std::string(v);
  }
  if (xdg_cache_home && xdg_cache_home[0] == '/') return (std::filesystem::path(xdg_cache_home) / "hetsim").string();
  if (home && home[0] != '\0') return (std::filesystem::path(home) / ".cache" / "hetsim").string();
  return {};
}

std::string run_cache_dir() {
  return triangulation_cache_dir(std::getenv("HETSIM_CACHE_DIR"), std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
}

bool write_delaunay_cache(const std::string& dir, const std::vector<std::array<double, 3>>& points,
                          const std::string& options, const std::vector<Simplex3>& simplices) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  std::string bytes = header(points, options);
  const std::string path = file_of(dir, bytes);
  put(bytes, static_cast<std::uint64_t>(simplices.size()));
  bytes.append(reinterpret_cast<const char*>(simplices.data()), simplices.size() * sizeof(Simplex3));
  return write_cache_file(path, bytes);
}

bool write_cache_file(const std::string& path, const std::string& bytes) {
  // A temporary file of our own in the same folder, renamed over the final name in one step.
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return false;
  bool ok = true;
  for (std::size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  ok = (::close(fd) == 0) && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

}  // namespace hetsim::perf_detail
