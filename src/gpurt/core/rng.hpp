// Deterministic, portable random numbers (DESIGN.md "Determinism").
// The standard <random> engines are portable but its distributions are not (their output is
// implementation-defined), so gpurt draws through its own distributions below: the same seed
// gives the same numbers with any compiler and standard library.
#pragma once

#include <array>
#include <cstdint>

namespace gpurt {

/// xoshiro256** (Blackman & Vigna 2018), state filled from the seed with SplitMix64.
/// Not thread-safe; give each thread its own generator (see `fork`).
class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  /// 64 uniformly distributed bits.
  std::uint64_t next_u64();
  /// Uniform in [0, 1), 53 random bits.
  double uniform01();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi);
  /// Uniform integer in [lo, hi] (inclusive), without modulo bias.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  /// Standard normal N(0, 1) by the Box-Muller transform.
  double normal();
  /// A generator for stream `index`, independent of this one's future output; for handing one
  /// deterministic generator to each parallel job.
  Rng fork(std::uint64_t index) const;

 private:
  std::array<std::uint64_t, 4> _s{};
  double _spare = 0;
  bool _has_spare = false;
};

/// One SplitMix64 step: advances `state` and returns a well-mixed value.
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace gpurt
