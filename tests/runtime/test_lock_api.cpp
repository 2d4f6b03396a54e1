// Bad use of the C API gets a clear errno and message, never a hang; basic grants and refusals.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <thread>
#include <type_traits>

#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/lock.hpp"
#include "lock_oracle.hpp"

using gpurt::test::unique_name;

namespace {

struct Named {
  std::string name = unique_name("api");
  ~Named() {
    gpurt_smlp_unlink(name.c_str());
    gpurt_kx_unlink(name.c_str());
  }
};

std::string msg() { return gpurt_last_error(); }

}  // namespace

// A guard (SmlpGuard, KxLock::Slot) points at its handle: a handle that moved would leave it
// dangling (a guard released after a std::vector of locks grew crashed). Handles do not move.
static_assert(!std::is_move_constructible_v<gpurt::SmlpLock> && !std::is_move_assignable_v<gpurt::SmlpLock>);
static_assert(!std::is_move_constructible_v<gpurt::KxLock> && !std::is_move_assignable_v<gpurt::KxLock>);

TEST(SmlpOpen, RejectsBadUnitCounts) {
  Named n;
  for (int units : {0, -1, 257, 100000}) {
    errno = 0;
    EXPECT_EQ(gpurt_smlp_open(n.name.c_str(), units, GPURT_POLICY_FIFO), nullptr) << units;
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(msg(), "units = " + std::to_string(units) + ": must be 1..256");
  }
}

TEST(SmlpOpen, RejectsBadNamesAndPolicy) {
  errno = 0;
  EXPECT_EQ(gpurt_smlp_open(std::string(201, 'x').c_str(), 4, 0), nullptr);
  EXPECT_EQ(errno, ENAMETOOLONG);
  EXPECT_EQ(msg(), "lock name is 201 characters long; at most 200");
  EXPECT_EQ(gpurt_smlp_open("", 4, 0), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(gpurt_smlp_open(nullptr, 4, 0), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(gpurt_smlp_open("a/b", 4, 0), nullptr);
  EXPECT_EQ(errno, EINVAL);
  Named n;
  EXPECT_EQ(gpurt_smlp_open(n.name.c_str(), 4, 2), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(msg(), "policy = 2: must be 0 (FIFO) or 1 (priority)");
}

TEST(SmlpOpen, ReopeningWithOtherUnitsOrPolicyFails) {
  Named n;
  gpurt_smlp* a = gpurt_smlp_open(n.name.c_str(), 8, GPURT_POLICY_FIFO);
  ASSERT_NE(a, nullptr) << msg();
  errno = 0;
  EXPECT_EQ(gpurt_smlp_open(n.name.c_str(), 4, GPURT_POLICY_FIFO), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(msg(), "SMLP lock '" + n.name + "' exists with 8 units; asked for 4");
  EXPECT_EQ(gpurt_smlp_open(n.name.c_str(), 8, GPURT_POLICY_PRIORITY), nullptr);
  EXPECT_EQ(errno, EINVAL);
  // The same parameters attach, also with a leading '/'.
  gpurt_smlp* b = gpurt_smlp_open(("/" + n.name).c_str(), 8, GPURT_POLICY_FIFO);
  ASSERT_NE(b, nullptr) << msg();
  EXPECT_EQ(gpurt_smlp_units(b), 8);
  gpurt_smlp_close(b);
  gpurt_smlp_close(a);
  EXPECT_EQ(gpurt_smlp_unlink(n.name.c_str()), 0);
  EXPECT_EQ(gpurt_smlp_unlink(n.name.c_str()), -ENOENT);
}

TEST(SmlpLock, RejectsBadAllowedSizes) {
  Named n;
  gpurt_smlp* l = gpurt_smlp_open(n.name.c_str(), 8, GPURT_POLICY_FIFO);
  ASSERT_NE(l, nullptr);
  gpurt_mask m{};
  const int no_one[] = {2, 4};
  const int too_big[] = {1, 9};
  const int zero[] = {0, 1};
  EXPECT_EQ(gpurt_smlp_lock(l, no_one, 0, 0, &m), -EINVAL);
  EXPECT_EQ(msg(), "allowed sizes are empty");
  EXPECT_EQ(gpurt_smlp_lock(l, nullptr, 2, 0, &m), -EINVAL);
  EXPECT_EQ(gpurt_smlp_lock(l, no_one, 2, 0, &m), -EINVAL);
  EXPECT_NE(msg().find("must contain 1"), std::string::npos) << msg();
  EXPECT_EQ(gpurt_smlp_lock(l, too_big, 2, 0, &m), -EINVAL);
  EXPECT_EQ(msg(), "allowed size 9 is outside 1..8 (H)");
  EXPECT_EQ(gpurt_smlp_lock(l, zero, 2, 0, &m), -EINVAL);
  EXPECT_EQ(gpurt_smlp_lock(l, too_big, 1, 0, nullptr), -EINVAL);
  // Nothing was granted by the failed calls: all 8 units are still there.
  const int all[] = {8, 1, 1};
  EXPECT_EQ(gpurt_smlp_lock(l, all, 3, 0, &m), 8);
  EXPECT_EQ(m.bits[0], 0xffU);
  EXPECT_EQ(gpurt_smlp_unlock(l, &m), 0);
  gpurt_smlp_close(l);
}

TEST(SmlpLock, GrantsLargestAllowedSizeThatFitsLowestUnitsFirst) {
  Named n;
  gpurt::SmlpLock lock(n.name, 10);
  const int sizes[] = {1, 2, 4};
  auto g1 = lock.lock(sizes);  // 10 free -> 4: units 0..3
  EXPECT_EQ(g1.units(), 4);
  EXPECT_EQ(g1.mask().bits[0], 0xfU);
  EXPECT_EQ(g1.info().free_before, 10);
  auto g2 = lock.lock(sizes);  // 6 free -> 4: units 4..7
  EXPECT_EQ(g2.mask().bits[0], 0xf0U);
  auto g3 = lock.lock(sizes);  // 2 free -> 2: units 8, 9
  EXPECT_EQ(g3.mask().bits[0], 0x300U);
  EXPECT_EQ(g3.info().free_before, 2);
  g2.release();
  const int three[] = {1, 3};
  auto g4 = lock.lock(three);  // units 4..7 free -> 3: 4, 5, 6
  EXPECT_EQ(gpurt::mask_units(g4.mask()), (std::vector<int>{4, 5, 6}));
}

// Moving a guard hands its units over once: assigning a new grant to a guard returns the units it
// held, and a moved-from guard returns nothing when it goes. With 6 units: g = {1, 2} -> units
// 0, 1; g = another {1, 2} grant -> 2, 3 (4 were free), and the assignment returns 0, 1. A probe
// for one unit then sees 4 free (0, 1, 4, 5) and gets unit 0; had 0, 1 leaked it would see 2 and
// get unit 4. (Probes that need every unit would block on a leak instead of failing.)
TEST(SmlpGuard, MoveAndAssignmentHandUnitsOverOnce) {
  Named n;
  gpurt::SmlpLock lock(n.name, 6);
  const int two[] = {1, 2}, one[] = {1};
  gpurt::SmlpGuard g = lock.lock(two);
  EXPECT_EQ(gpurt::mask_units(g.mask()), (std::vector<int>{0, 1}));
  g = lock.lock(two);
  EXPECT_EQ(gpurt::mask_units(g.mask()), (std::vector<int>{2, 3}));
  EXPECT_EQ(g.info().free_before, 4);
  {
    auto probe = lock.lock(one);
    EXPECT_EQ(probe.info().free_before, 4);
    EXPECT_EQ(gpurt::mask_units(probe.mask()), (std::vector<int>{0}));
  }
  {
    gpurt::SmlpGuard moved(std::move(g));
    EXPECT_FALSE(g.owns());  // NOLINT(bugprone-use-after-move): checking the moved-from state
    EXPECT_EQ(gpurt::mask_units(moved.mask()), (std::vector<int>{2, 3}));
  }             // `moved` returns 2, 3; the moved-from g holds nothing
  g.release();  // a no-op on an empty guard
  auto probe = lock.lock(one);
  EXPECT_EQ(probe.info().free_before, 6);
}

TEST(SmlpLock, GrantsAndReturnsUnitsInEveryMaskWord) {
  Named n;
  gpurt::SmlpLock lock(n.name, 256);
  const int big[] = {1, 130};
  auto g1 = lock.lock(big);  // units 0..129: words 0, 1 and bits 0..1 of word 2
  EXPECT_EQ(g1.units(), 130);
  EXPECT_EQ(g1.mask().bits[2], 0x3U);
  const int one[] = {1};
  auto g2 = lock.lock(one);  // the lowest free unit is 130
  EXPECT_EQ(gpurt::mask_units(g2.mask()), (std::vector<int>{130}));
  const int rest[] = {1, 125};
  auto g3 = lock.lock(rest);  // 125 free -> units 131..255, the top of word 3 included
  EXPECT_EQ(g3.units(), 125);
  EXPECT_EQ(g3.mask().bits[3], ~std::uint64_t{0});
  g1.release();
  auto g4 = lock.lock(one);  // unit 0 is back
  EXPECT_EQ(gpurt::mask_units(g4.mask()), (std::vector<int>{0}));
  EXPECT_EQ(g4.info().free_before, 130);
}

TEST(SmlpUnlock, RefusesDoubleUnlockForeignUnitsAndOutOfRange) {
  Named n;
  gpurt_smlp* l = gpurt_smlp_open(n.name.c_str(), 70, GPURT_POLICY_FIFO);
  ASSERT_NE(l, nullptr);
  const int sizes[] = {1, 66};
  gpurt_mask m{};
  ASSERT_EQ(gpurt_smlp_lock(l, sizes, 2, 0, &m), 66);
  EXPECT_EQ(m.bits[0], ~std::uint64_t{0});
  EXPECT_EQ(m.bits[1], 0x3U);
  // Another thread may not return them.
  int other = 0;
  std::string other_msg;
  std::thread([&] {
    other = gpurt_smlp_unlock(l, &m);
    other_msg = msg();
  }).join();
  EXPECT_EQ(other, -EPERM);
  EXPECT_NE(other_msg.find("not by the caller"), std::string::npos) << other_msg;
  gpurt_mask partly_free = m;
  partly_free.bits[1] |= 0x4U;  // unit 66 is free
  EXPECT_EQ(gpurt_smlp_unlock(l, &partly_free), -EINVAL);
  EXPECT_EQ(msg(), "unit 66 is not held (double unlock?)");
  gpurt_mask beyond{};
  beyond.bits[1] = std::uint64_t{1} << 10;  // unit 74 >= H = 70
  EXPECT_EQ(gpurt_smlp_unlock(l, &beyond), -EINVAL);
  EXPECT_EQ(msg(), "unit 74 is outside 0..69");
  gpurt_mask empty{};
  EXPECT_EQ(gpurt_smlp_unlock(l, &empty), -EINVAL);
  // The refused calls released nothing; the real unlock works once, then is a double unlock.
  EXPECT_EQ(gpurt_smlp_unlock(l, &m), 0);
  EXPECT_EQ(gpurt_smlp_unlock(l, &m), -EINVAL);
  EXPECT_EQ(msg(), "unit 0 is not held (double unlock?)");
  gpurt_smlp_close(l);
}

TEST(SmlpLock, WaiterBlocksUntilUnitsReturn) {
  Named n;
  gpurt::SmlpLock lock(n.name, 4);
  const int all[] = {1, 4};
  auto held = lock.lock(all);
  std::atomic<int> got{0};
  std::thread waiter([&] {
    auto g = lock.lock(all);
    got = g.units();
  });
  while (lock.waiting() == 0) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(got.load(), 0);
  held.release();
  waiter.join();
  EXPECT_EQ(got.load(), 4);
}

TEST(SmlpLock, CppErrorsCarryErrnoAndMessage) {
  try {
    gpurt::SmlpLock lock(unique_name("cpp"), 0);
    FAIL() << "opened a lock with 0 units";
  } catch (const gpurt::LockError& e) {
    EXPECT_EQ(e.code(), EINVAL);
    EXPECT_STREQ(e.what(), "units = 0: must be 1..256");
  }
}
