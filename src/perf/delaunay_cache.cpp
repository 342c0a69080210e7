#include "delaunay_cache.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <system_error>
#include <unistd.h>

extern "C" {
#include <libqhull_r/libqhull_r.h>
}

namespace hetsim::perf_detail {

namespace {

// Layout (native byte order; the file is a cache of this machine, not an exchange format):
// magic, then the Qhull version and the options as counted strings, the point count and the
// points' doubles, the tetrahedron count and their int32 indices.
constexpr char kMagic[8] = {'h', 's', 'd', 'e', 'l', '3', 'v', '1'};

std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_string(std::string& out, const std::string& s) {
  put(out, static_cast<std::uint64_t>(s.size()));
  out += s;
}

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

}  // namespace

std::string delaunay_cache_path(const std::string& dir, const std::vector<std::array<double, 3>>& points,
                                const std::string& options) {
  const std::string h = header(points, options);
  const std::uint64_t hash = fnv1a(14695981039346656037ULL, h.data(), h.size());
  return (std::filesystem::path(dir) / fmt::format("delaunay-{:016x}.bin", hash)).string();
}

std::optional<std::vector<Simplex3>> read_delaunay_cache(const std::string& dir,
                                                         const std::vector<std::array<double, 3>>& points,
                                                         const std::string& options) {
  std::ifstream in(delaunay_cache_path(dir, points, options), std::ios::binary);
  if (!in) return std::nullopt;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string expected = header(points, options);
  if (text.size() < expected.size() + sizeof(std::uint64_t) || text.compare(0, expected.size(), expected) != 0)
    return std::nullopt;
  std::uint64_t count = 0;
  std::memcpy(&count, text.data() + expected.size(), sizeof count);
  const std::size_t body = text.size() - expected.size() - sizeof count;
  if (count == 0 || body != count * sizeof(Simplex3)) return std::nullopt;
  std::vector<Simplex3> out(static_cast<std::size_t>(count));
  std::memcpy(out.data(), text.data() + expected.size() + sizeof count, body);
  for (const Simplex3& s : out)
    for (int v : s)
      if (v < 0 || static_cast<std::size_t>(v) >= points.size()) return std::nullopt;
  return out;
}

bool write_delaunay_cache(const std::string& dir, const std::vector<std::array<double, 3>>& points,
                          const std::string& options, const std::vector<Simplex3>& simplices) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  std::string bytes = header(points, options);
  put(bytes, static_cast<std::uint64_t>(simplices.size()));
  bytes.append(reinterpret_cast<const char*>(simplices.data()), simplices.size() * sizeof(Simplex3));
  const std::string path = delaunay_cache_path(dir, points, options);
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
