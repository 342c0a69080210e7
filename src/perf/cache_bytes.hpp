#pragma once
// Writing the cache files of src/perf/ (triangulations, parsed profile CSVs; private): values in
// native byte order, since a cache file belongs to this machine and is not an exchange format.
#include <cstdint>
#include <string>
#include <vector>

namespace hetsim::perf_detail {

/// FNV-1a over `size` bytes, continuing from `h` (start: 14695981039346656037).
inline std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

/// A u64 length, then the bytes.
inline void put_string(std::string& out, const std::string& s) {
  put(out, static_cast<std::uint64_t>(s.size()));
  out += s;
}

/// A u64 count, then the items' bytes.
template <class T>
void put_vector(std::string& out, const std::vector<T>& v) {
  put(out, static_cast<std::uint64_t>(v.size()));
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

}  // namespace hetsim::perf_detail
