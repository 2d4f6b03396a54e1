#include "gpurt/core/rng.hpp"

#include <cmath>
#include <numbers>

namespace gpurt {

namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& word : _s) word = splitmix64(state);
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(_s[1] * 5, 7) * 9;
  const std::uint64_t t = _s[1] << 17;
  _s[2] ^= _s[0];
  _s[3] ^= _s[1];
  _s[1] ^= _s[2];
  _s[0] ^= _s[3];
  _s[2] ^= t;
  _s[3] = rotl(_s[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return lo;
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  if (range == 0) return static_cast<std::int64_t>(next_u64());  // the full 64-bit range
  // Rejection sampling: accept only values below the largest multiple of `range`.
  const std::uint64_t limit = (0 - range) % range;  // 2^64 mod range
  std::uint64_t x = next_u64();
  while (x < limit) x = next_u64();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % range);
}

double Rng::normal() {
  if (_has_spare) {
    _has_spare = false;
    return _spare;
  }
  double u1 = uniform01();
  while (u1 <= 0.0) u1 = uniform01();
  const double u2 = uniform01();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  _spare = radius * std::sin(angle);
  _has_spare = true;
  return radius * std::cos(angle);
}

Rng Rng::fork(std::uint64_t index) const {
  std::uint64_t state = _s[0] ^ rotl(_s[1], 13) ^ rotl(_s[2], 29) ^ rotl(_s[3], 43);
  state += 0x632be59bd9b4e019ULL * (index + 1);
  return Rng(splitmix64(state));
}

}  // namespace gpurt
