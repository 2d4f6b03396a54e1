// The PBS seed's §6.1 generator: determinism, utilisation, occupancy ∝ utilisation, slowdowns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpurt/gen/pbs_gen.hpp"

namespace gpurt {
namespace {

TEST(PbsGen, FollowsSection6_1) {
  Rng rng(11);
  const auto s = generate_pbs_system(rng, {.tasks = 5, .utilization = 1.2, .slowdown = PbsSlowdown::large});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->platform.sms, 8);
  EXPECT_EQ(s->platform.max_threads, 1024);
  EXPECT_EQ(s->platform.max_blocks, 32);
  double u = 0;
  for (const PbsTask& t : s->tasks) {
    const std::int64_t p = t.period.count() / 1000;
    EXPECT_TRUE(p == 400 || p == 600 || p == 800 || p == 1200 || p == 1600) << p;
    EXPECT_EQ(t.deadline, t.period);
    EXPECT_GE(t.slowdown, 1.7);
    EXPECT_LT(t.slowdown, 1.9);
    const double ui = static_cast<double>(t.wcet.count()) / static_cast<double>(t.period.count());
    u += ui;
    // 256-thread blocks: 4 per SM, 32 on the GPU; blocks = ceil(u_i · 32), C rounded up to 1 us.
    EXPECT_NEAR(t.blocks, std::ceil(ui * 32), 1.0);
    EXPECT_LE(t.blocks, 32);
  }
  EXPECT_NEAR(u, 1.2, 5 * 0.0025);  // each C_i rounds up by < 1 us of a >= 400 us period
  // The same seed gives the same set.
  Rng again(11);
  const auto s2 =
      generate_pbs_system(again, {.tasks = 5, .utilization = 1.2, .slowdown = PbsSlowdown::large});
  ASSERT_TRUE(s2.has_value());
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(s2->tasks[i].wcet, s->tasks[i].wcet);
    EXPECT_EQ(s2->tasks[i].slowdown, s->tasks[i].slowdown);
  }
  EXPECT_EQ(parse_pbs_slowdown("mixed"), PbsSlowdown::mixed);
  EXPECT_FALSE(parse_pbs_slowdown("huge").has_value());
}

// §6.1's slowdown ranges (small [1.0, 1.4), large [1.7, 1.9), mixed [1.1, 1.9)) and its
// occupancy ceil(u_i·32), checked on 40 sets of 5 tasks each. C_i = ceil(u_i·T_i) in whole us
// tells u_i to within 1/T_i: u_i in ((C_i − 1)/T_i, C_i/T_i], so ceil(u_i·32) lies between the
// ceilings of the two ends (a floor falls below the lower one unless u_i·32 is within 0.08 of
// an integer, which 200 draws do not all manage).
TEST(PbsGen, SlowdownRangesAndOccupancyCeiling) {
  struct Range {
    PbsSlowdown kind;
    double lo, hi;
  };
  for (const Range r : {Range{PbsSlowdown::small, 1.0, 1.4}, Range{PbsSlowdown::large, 1.7, 1.9},
                        Range{PbsSlowdown::mixed, 1.1, 1.9}}) {
    double least = 2, most = 0;
    int below_ceiling = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      Rng rng(seed);
      const auto s = generate_pbs_system(rng, {.tasks = 5, .utilization = 1.5, .slowdown = r.kind});
      ASSERT_TRUE(s.has_value());
      for (const PbsTask& t : s->tasks) {
        least = std::min(least, t.slowdown);
        most = std::max(most, t.slowdown);
        const double p = static_cast<double>(t.period.count());
        const double c = static_cast<double>(t.wcet.count());
        const double lower = std::max(1.0, std::ceil((c - 1000) / p * 32 - 1e-9));
        const double upper = std::min(32.0, std::ceil(c / p * 32));
        EXPECT_LE(t.blocks, upper) << "seed " << seed;
        if (t.blocks < lower) ++below_ceiling;
      }
    }
    EXPECT_EQ(below_ceiling, 0);
    EXPECT_GE(least, r.lo);
    EXPECT_LT(most, r.hi);
    // 200 uniform draws come within 0.05 of both ends of the range.
    EXPECT_LT(least, r.lo + 0.05);
    EXPECT_GT(most, r.hi - 0.05);
  }
}

}  // namespace
}  // namespace gpurt
