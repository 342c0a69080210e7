// MT19937 written from the published algorithm (Matsumoto & Nishimura, ACM TOMACS 1998) and
// CPython's documented seeding of it from an integer (Modules/_randommodule.c: random_seed ->
// init_by_array), so that the draws equal Python's random module.
#include "hetsim/util/py_random.hpp"

#include <stdexcept>

namespace hetsim {

PyRandom::PyRandom(std::uint64_t seed) {
  // CPython splits abs(seed) into little-endian 32-bit words; zero still gives one word.
  std::vector<std::uint32_t> key;
  do {
    key.push_back(static_cast<std::uint32_t>(seed & 0xffffffffu));
    seed >>= 32;
  } while (seed != 0);
  init_by_array(key);
}

void PyRandom::init_genrand(std::uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i)
    mt_[static_cast<std::size_t>(i)] =
        1812433253u * (mt_[static_cast<std::size_t>(i - 1)] ^ (mt_[static_cast<std::size_t>(i - 1)] >> 30)) +
        static_cast<std::uint32_t>(i);
  index_ = kN;
}

void PyRandom::init_by_array(const std::vector<std::uint32_t>& key) {
  init_genrand(19650218u);
  std::size_t i = 1, j = 0;
  const std::size_t n = kN;
  for (std::size_t k = std::max(n, key.size()); k > 0; --k) {
    std::uint32_t prev = mt_[i - 1] ^ (mt_[i - 1] >> 30);
    mt_[i] = (mt_[i] ^ (prev * 1664525u)) + key[j] + static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= n) {
      mt_[0] = mt_[n - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (std::size_t k = n - 1; k > 0; --k) {
    std::uint32_t prev = mt_[i - 1] ^ (mt_[i - 1] >> 30);
    mt_[i] = (mt_[i] ^ (prev * 1566083941u)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= n) {
      mt_[0] = mt_[n - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000u;
  index_ = kN;
}

void PyRandom::twist() {
  constexpr std::uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
  for (int i = 0; i < kN; ++i) {
    auto a = static_cast<std::size_t>(i);
    std::uint32_t y = (mt_[a] & kUpper) | (mt_[(a + 1) % kN] & kLower);
    mt_[a] = mt_[(a + 397) % kN] ^ (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
  }
  index_ = 0;
}

std::uint32_t PyRandom::next_u32() {
  if (index_ >= kN) twist();
  std::uint32_t y = mt_[static_cast<std::size_t>(index_++)];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

std::uint32_t PyRandom::getrandbits(int k) {
  if (k < 1 || k > 32) throw std::invalid_argument("PyRandom::getrandbits: k must be in [1, 32]");
  return next_u32() >> (32 - k);
}

std::uint64_t PyRandom::randbelow(std::uint64_t n) {
  if (n < 1 || n > 0xffffffffu) throw std::invalid_argument("PyRandom::randbelow: n must be in [1, 2^32)");
  int k = 0;
  for (std::uint64_t v = n; v > 0; v >>= 1) ++k;  // n.bit_length(): n itself, so n = 1 still draws a bit
  std::uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

double PyRandom::random() {
  std::uint32_t a = next_u32() >> 5, b = next_u32() >> 6;
  return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) * (1.0 / 9007199254740992.0);
}

}  // namespace hetsim
