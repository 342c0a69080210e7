#pragma once
/// A random stream that draws exactly what CPython's `random.Random(seed)` draws, so hetsim can
/// replay the random choices of Python simulators (Gavel's FIFO picks a GPU type with
/// `randrange`, its round mechanism shuffles GPU types with `shuffle`). The generator is MT19937
/// (Matsumoto & Nishimura, 1998) seeded the way CPython seeds it from an integer
/// (init_by_array over the integer's 32-bit words); draws follow CPython 3.11's
/// `getrandbits`, `_randbelow`, `randrange(n)`, `shuffle` and `random()`.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace hetsim {

/// CPython-compatible random stream. Deterministic; no global state.
class PyRandom {
 public:
  /// Same state as Python's `random.Random(seed)` for a non-negative integer seed.
  explicit PyRandom(std::uint64_t seed);
  /// Next raw 32-bit output of MT19937.
  std::uint32_t next_u32();
  /// Python's getrandbits(k) for 1 <= k <= 32.
  std::uint32_t getrandbits(int k);
  /// Python's randrange(n) / _randbelow(n): uniform integer in [0, n). Requires n >= 1.
  std::uint64_t randbelow(std::uint64_t n);
  /// Python's random(): 53-bit uniform double in [0, 1).
  double random();
  /// Python's shuffle(items) (Fisher-Yates from the back, with randbelow).
  template <class T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i-- > 1;) {
      auto j = static_cast<std::size_t>(randbelow(i + 1));
      std::swap(items[i], items[j]);
    }
  }

 private:
  static constexpr int kN = 624;
  void init_genrand(std::uint32_t s);
  void init_by_array(const std::vector<std::uint32_t>& key);
  void twist();
  std::array<std::uint32_t, kN> mt_{};
  int index_ = kN;
};

}  // namespace hetsim
