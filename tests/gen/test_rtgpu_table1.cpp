// RTGPU Table 1 generator (§6.1): ranges, the deadline formula, priorities, determinism.
#include <gtest/gtest.h>

#include <limits>

#include "gpurt/core/error.hpp"
#include "gpurt/gen/rtgpu_table1.hpp"

namespace gpurt {
namespace {

TEST(RtgpuTable1, SameSeedSameBytes) {
  RtgpuTable1Options o;
  o.utilization = 2.0;
  Rng a(99), b(99), c(100);
  const std::string first = to_json(generate_rtgpu_table1(a, o)).dump();
  EXPECT_EQ(first, to_json(generate_rtgpu_table1(b, o)).dump());
  EXPECT_NE(first, to_json(generate_rtgpu_table1(c, o)).dump());
}

TEST(RtgpuTable1, RangesDeadlinesAndPriorities) {
  RtgpuTable1Options o;
  o.utilization = 1.5;
  Rng rng(3);
  const RtgpuSystem s = generate_rtgpu_table1(rng, o);
  EXPECT_NO_THROW(validate(s));
  ASSERT_EQ(s.tasks.size(), 5u);
  EXPECT_EQ(s.platform.sms, 10);
  double utilization = 0;
  for (const RtgpuTask& t : s.tasks) {
    ASSERT_EQ(t.cpu.size(), 5u);
    ASSERT_EQ(t.copy.size(), 8u);
    ASSERT_EQ(t.gpu.size(), 4u);
    Nanos total{0};
    for (const TimeBounds& c : t.cpu) {
      EXPECT_GE(c.hi, Nanos{1'000'000});
      EXPECT_LE(c.hi, Nanos{20'000'000});
      EXPECT_EQ(c.lo, c.hi);
      total += c.hi;
    }
    for (const TimeBounds& c : t.copy) {
      EXPECT_GE(c.hi, Nanos{1'000'000});
      EXPECT_LE(c.hi, Nanos{5'000'000});
      total += c.hi;
    }
    for (const RtgpuGpuSegment& g : t.gpu) {
      EXPECT_GE(g.work.hi, Nanos{1'000'000});
      EXPECT_LE(g.work.hi, Nanos{20'000'000});
      // 12 % launch overhead, to the nearest nanosecond.
      EXPECT_NEAR(static_cast<double>(g.overhead.count()), 0.12 * static_cast<double>(g.work.hi.count()),
                  0.5);
      EXPECT_TRUE(g.alpha == 1.45 || g.alpha == 1.7 || g.alpha == 1.8);
      total += g.work.hi;
    }
    EXPECT_EQ(t.period, t.deadline);
    // D_i = total / U_i, so Σ total / D_i recovers U (up to the floor to whole ns).
    utilization += static_cast<double>(total.count()) / static_cast<double>(t.deadline.count());
  }
  EXPECT_NEAR(utilization, 1.5, 1e-6);
  // Deadline-monotonic: priority order = deadline order.
  const auto order = priority_order(s);
  for (std::size_t r = 1; r < order.size(); ++r) {
    EXPECT_LE(s.tasks[order[r - 1]].deadline, s.tasks[order[r]].deadline);
  }
}

TEST(RtgpuTable1, OneCopyModelAndScale) {
  RtgpuTable1Options o;
  o.two_copies = false;
  o.suspension_scale = 8;
  Rng rng(4);
  const RtgpuSystem s = generate_rtgpu_table1(rng, o);
  for (const RtgpuTask& t : s.tasks) {
    for (std::size_t j = 0; j < t.copy.size(); ++j) {
      if (j % 2 == 1) {
        EXPECT_EQ(t.copy[j].hi, Nanos{0});  // the combined copy sits in the first slot
      } else {
        EXPECT_GE(t.copy[j].hi, Nanos{8'000'000});
        EXPECT_LE(t.copy[j].hi, Nanos{40'000'000});
      }
    }
    for (const RtgpuGpuSegment& g : t.gpu) EXPECT_GE(g.work.hi, Nanos{8'000'000});
  }
}

// Issue 16: a utilisation that is not finite, or so large that a period would round to 0 ns,
// is refused instead of writing "period": 0.
TEST(RtgpuTable1, RefusesUtilisationsThatGiveNoPeriod) {
  for (const double u :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 1e308}) {
    Rng rng(1);
    RtgpuTable1Options o;
    o.utilization = u;
    EXPECT_THROW((void)generate_rtgpu_table1(rng, o), Error) << u;
  }
}

}  // namespace
}  // namespace gpurt
