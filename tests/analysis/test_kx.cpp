// k-exclusion with one partition per slot (Dissertation §6.1), FIFO: the response bound,
// worked by hand.
#include <gtest/gtest.h>

#include "gpurt/analysis/kx.hpp"
#include "gpurt/core/error.hpp"

using namespace gpurt;

namespace {

// RTX 3060 Ti: H = 19 TPCs, so k = 2 gives slots of 10 and 9 units, k = 3 slots of 7, 6, 6.
//   A: L = [100, 60] ns (sizes past 2 run as 2), CPU 10 before, 5 after;
//   B: L = [200];
//   C: L(k) = floor(1000 / k) for k = 1..10: L(10) = 100, L(9) = 111, L(7) = 142, L(6) = 166.
SmlpSystem three_tasks() {
  SmlpSystem s;
  s.platform = *find_platform_preset("rtx3060ti");
  s.time_unit = TimeUnit::ns;
  SmlpTask a{"A", {Nanos{100}, Nanos{60}}, std::nullopt, std::nullopt, Nanos{1000}};
  SmlpTask b{"B", {Nanos{200}}, std::nullopt, std::nullopt, Nanos{280}};
  SmlpTask c{"C", {}, std::nullopt, std::nullopt, std::nullopt};
  for (int k = 1; k <= 10; ++k) c.wcet_by_units.push_back(Nanos{1000 / k});
  s.tasks = {a, b, c};
  s.timing = {SmlpTaskTiming{Nanos{1000}, Nanos{10}, Nanos{5}},
              SmlpTaskTiming{Nanos{1000}, Nanos{0}, Nanos{0}},
              SmlpTaskTiming{Nanos{1000}, Nanos{0}, Nanos{0}}};
  return s;
}

}  // namespace

TEST(KExclusion, KernelLevelLockBoundsByHand) {
  const KxResult r = analyse_kx(three_tasks(), KxOptions{2, false});
  EXPECT_EQ(r.slot_units, (std::vector<int>{10, 9}));
  ASSERT_EQ(r.tasks.size(), 3u);
  // Holds: A 60 (L(A,2) for both slots), B 200, C max(L(10), L(9)) = 111.
  EXPECT_EQ(r.tasks[0].hold, Nanos{60});
  EXPECT_EQ(r.tasks[1].hold, Nanos{200});
  EXPECT_EQ(r.tasks[2].hold, Nanos{111});
  // A waits ceil((200 + 111) / 2) = 156; R = 10 + 156 + 60 + 5 = 231.
  EXPECT_EQ(r.tasks[0].blocking, Nanos{156});
  EXPECT_EQ(r.tasks[0].response_bound, Nanos{231});
  // B waits ceil((60 + 111) / 2) = 86; R = 286 > its deadline 280.
  EXPECT_EQ(r.tasks[1].response_bound, Nanos{286});
  EXPECT_FALSE(r.tasks[1].schedulable);
  // C waits (60 + 200) / 2 = 130; R = 241, no deadline.
  EXPECT_EQ(r.tasks[2].response_bound, Nanos{241});
  EXPECT_TRUE(r.tasks[2].schedulable);
  EXPECT_FALSE(r.schedulable);
}

TEST(KExclusion, JobLevelLockHoldsTheCpuSegmentsToo) {
  const KxResult r = analyse_kx(three_tasks(), KxOptions{2, true});
  // A holds 10 + 60 + 5 = 75; B waits ceil((75 + 111) / 2) = 93: R = 293.
  EXPECT_EQ(r.tasks[0].hold, Nanos{75});
  EXPECT_EQ(r.tasks[1].response_bound, Nanos{293});
  // A: ceil(311 / 2) = 156 + 75 = 231, the same as with the kernel-level lock.
  EXPECT_EQ(r.tasks[0].response_bound, Nanos{231});
}

TEST(KExclusion, SmallerSlotsHoldLongerAndMoreSlotsWaitLess) {
  const KxResult r = analyse_kx(three_tasks(), KxOptions{3, false});
  EXPECT_EQ(r.slot_units, (std::vector<int>{7, 6, 6}));
  EXPECT_EQ(r.tasks[2].hold, Nanos{166});  // L(C, 6): the smallest slot decides
  // B waits ceil((60 + 166) / 3) = 76: R = 276 <= 280.
  EXPECT_EQ(r.tasks[1].response_bound, Nanos{276});
  EXPECT_TRUE(r.schedulable);
  // A bound equal to its deadline meets it: with B's deadline at exactly 276, still schedulable.
  SmlpSystem tight = three_tasks();
  tight.tasks[1].deadline = Nanos{276};
  const KxResult at = analyse_kx(tight, KxOptions{3, false});
  EXPECT_EQ(at.tasks[1].response_bound, Nanos{276});
  EXPECT_TRUE(at.tasks[1].schedulable);
  tight.tasks[1].deadline = Nanos{275};
  EXPECT_FALSE(analyse_kx(tight, KxOptions{3, false}).tasks[1].schedulable);
  // k = 1 is a mutex on the whole GPU: B waits 60 + L(C, 10) = 160 in full.
  EXPECT_EQ(analyse_kx(three_tasks(), KxOptions{1, false}).tasks[1].response_bound, Nanos{360});
}

// The waiting term ceil(Σ others' holds / k) stays exact when the holds sum to exactly 2^63 - 1
// (no intermediate "+ k - 1" to wrap negative). A holds 1, B 2^62 - 1, C 2^62; k = 2: A waits
// ceil((2^63 - 1) / 2) = 2^62, R_A = 2^62 + 1. B waits ceil((2^62 + 1) / 2) = 2^61 + 1.
TEST(KExclusion, BlockingOfHoldsSummingToTheLargestTimeStaysExact) {
  SmlpSystem s = three_tasks();
  s.tasks[0].wcet_by_units = {Nanos{1}};
  s.tasks[1].wcet_by_units = {Nanos{(std::int64_t{1} << 62) - 1}};
  s.tasks[2].wcet_by_units = {Nanos{std::int64_t{1} << 62}};
  s.timing[0] = SmlpTaskTiming{Nanos{1000}, Nanos{0}, Nanos{0}};
  const KxResult r = analyse_kx(s, KxOptions{2, false});
  EXPECT_EQ(r.tasks[0].blocking, Nanos{std::int64_t{1} << 62});
  EXPECT_EQ(r.tasks[0].response_bound, Nanos{(std::int64_t{1} << 62) + 1});
  EXPECT_EQ(r.tasks[1].blocking, Nanos{(std::int64_t{1} << 61) + 1});
  EXPECT_FALSE(r.schedulable);
  // One more nanosecond and the holds no longer sum in 64 bits: an error, not a wrapped bound.
  s.tasks[2].wcet_by_units = {Nanos{(std::int64_t{1} << 62) + 1}};
  EXPECT_THROW(analyse_kx(s, KxOptions{2, false}), Error);
}

TEST(KExclusion, RejectsKOutsideTheUnits) {
  EXPECT_THROW(analyse_kx(three_tasks(), KxOptions{0, false}), Error);
  EXPECT_THROW(analyse_kx(three_tasks(), KxOptions{20, false}), Error);
  EXPECT_NO_THROW(analyse_kx(three_tasks(), KxOptions{19, false}));
}
