#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gpurt/core/rng.hpp"

using namespace gpurt;

TEST(Rng, MatchesTheReferenceXoshiro256StarStarSequence) {
  // Expected values computed by an independent Python transcription of SplitMix64 seeding and
  // xoshiro256** (Blackman & Vigna), seed 42: the sequence is fixed on every machine.
  Rng rng(42);
  EXPECT_EQ(rng.next_u64(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(rng.next_u64(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(rng.next_u64(), 0xae17533239e499a1ULL);
  EXPECT_DOUBLE_EQ(rng.uniform01(), 0.9246929453253876);
}

TEST(Rng, SameSeedSameNumbersDifferentSeedDifferentNumbers) {
  Rng a(7), b(7), c(8);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    EXPECT_NE(x, c.next_u64());
  }
}

TEST(Rng, UniformIntCoversItsRangeEvenly) {
  Rng rng(1);
  std::array<int, 6> counts{};
  for (int i = 0; i < 60'000; ++i) {
    const auto v = rng.uniform_int(5, 10);
    ASSERT_GE(v, 5);
    ASSERT_LE(v, 10);
    ++counts[static_cast<std::size_t>(v - 5)];
  }
  for (int c : counts) EXPECT_NEAR(c, 10'000, 500);  // > 5 sigma
  EXPECT_EQ(rng.uniform_int(3, 3), 3);
}

TEST(Rng, NormalHasUnitVariance) {
  Rng rng(3);
  double sum = 0, sq = 0;
  const int n = 200'000;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    sq += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sq / n, 1.0, 0.02);
}

TEST(Rng, ForksAreDistinctAndReproducible) {
  const Rng base(11);
  std::set<std::uint64_t> firsts;
  for (std::uint64_t i = 0; i < 50; ++i) {
    Rng f = base.fork(i);
    Rng g = base.fork(i);
    const auto x = f.next_u64();
    EXPECT_EQ(x, g.next_u64());
    firsts.insert(x);
  }
  EXPECT_EQ(firsts.size(), 50u);
}
