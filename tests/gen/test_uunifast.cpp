#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "gpurt/core/error.hpp"
#include "gpurt/gen/uunifast.hpp"

using namespace gpurt;

TEST(UUniFast, SumsToTotalAndStaysInRange) {
  Rng rng(5);
  for (int n : {1, 2, 5, 20}) {
    for (double total : {0.0, 0.5, 3.7}) {
      const auto u = uunifast(rng, n, total);
      ASSERT_EQ(u.size(), static_cast<std::size_t>(n));
      EXPECT_NEAR(std::accumulate(u.begin(), u.end(), 0.0), total, 1e-9);
      for (double x : u) {
        EXPECT_GE(x, 0.0);
        EXPECT_LE(x, total + 1e-12);
      }
    }
  }
}

TEST(UUniFast, DeterministicForASeed) {
  Rng a(77), b(77);
  EXPECT_EQ(uunifast(a, 10, 2.5), uunifast(b, 10, 2.5));
  Rng c(78);
  EXPECT_NE(uunifast(a, 10, 2.5), uunifast(c, 10, 2.5));
}

TEST(UUniFast, MarginalsAreUniformOverTheSimplex) {
  // For a uniform point on the simplex {u >= 0, Σu = U} with n coordinates, each coordinate has
  // mean U/n and P(u_i <= x) = 1 - (1 - x/U)^(n-1).
  Rng rng(9);
  const int n = 4, draws = 40'000;
  const double total = 2.0;
  std::vector<double> mean(n, 0.0);
  int below_half = 0;
  for (int d = 0; d < draws; ++d) {
    const auto u = uunifast(rng, n, total);
    for (int i = 0; i < n; ++i) mean[static_cast<std::size_t>(i)] += u[static_cast<std::size_t>(i)] / draws;
    below_half += u[static_cast<std::size_t>(n - 1)] <= 0.5 ? 1 : 0;
  }
  for (double m : mean) EXPECT_NEAR(m, total / n, 0.01);
  const double expected = 1.0 - std::pow(1.0 - 0.5 / total, n - 1);  // 0.578125
  EXPECT_NEAR(static_cast<double>(below_half) / draws, expected, 0.01);
}

TEST(UUniFastDiscard, RespectsTheCapAndRejectsImpossibleTotals) {
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    const auto u = uunifast_discard(rng, 5, 3.0, {1.0, 100000});
    ASSERT_TRUE(u.has_value());
    EXPECT_NEAR(std::accumulate(u->begin(), u->end(), 0.0), 3.0, 1e-9);
    for (double x : *u) EXPECT_LE(x, 1.0);
  }
  EXPECT_THROW(uunifast_discard(rng, 2, 2.5, {1.0, 10}), Error);
  EXPECT_THROW(uunifast(rng, 0, 1.0), Error);
  EXPECT_THROW(uunifast(rng, 3, -1.0), Error);
  // Nearly impossible: 20 values summing to 19.99 with each <= 1 within 3 tries.
  EXPECT_FALSE(uunifast_discard(rng, 20, 19.99, {1.0, 3}).has_value());
}
