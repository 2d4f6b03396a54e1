// The PBS seed's §6.1 generator: determinism, utilisation, occupancy ∝ utilisation, slowdowns.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpurt
