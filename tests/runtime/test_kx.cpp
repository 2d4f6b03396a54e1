// k-exclusion lock (Dissertation §6.1.2-6.1.3): k slots, FIFO, slot indices, resizing, and
// exclusivity under threads and processes.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <thread>
#include <vector>

#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/lock.hpp"
#include "lock_oracle.hpp"

TEST(KxLock, HandsOutLowestFreeSlotsAndBlocksWhenFull) {
  const std::string name = gpurt::test::unique_name("kx");
  gpurt_kx* kx = gpurt_kx_open(name.c_str(), 3);
  ASSERT_NE(kx, nullptr) << gpurt_last_error();
  EXPECT_EQ(gpurt_kx_acquire(kx), 0);
  EXPECT_EQ(gpurt_kx_acquire(kx), 1);
  EXPECT_EQ(gpurt_kx_acquire(kx), 2);
  EXPECT_EQ(gpurt_kx_release(kx, 1), 0);
  EXPECT_EQ(gpurt_kx_release(kx, 1), -EINVAL);  // double release
  EXPECT_EQ(gpurt_kx_release(kx, 3), -EINVAL);  // no slot 3
  EXPECT_STREQ(gpurt_last_error(), "slot 3 is outside 0..2");
  EXPECT_EQ(gpurt_kx_release(nullptr, 0), -EINVAL);
  EXPECT_STREQ(gpurt_last_error(), "lock is NULL");
  EXPECT_EQ(gpurt_kx_acquire(kx), 1);
  // Full: a waiter blocks until a slot returns, and gets that slot.
  std::atomic<int> got{-1};
  std::thread waiter([&] { got = gpurt_kx_acquire(kx); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(got.load(), -1);
  EXPECT_EQ(gpurt_kx_release(kx, 2), 0);
  waiter.join();
  EXPECT_EQ(got.load(), 2);
  // The waiter's thread holds slot 2 now; this thread may not release it.
  EXPECT_EQ(gpurt_kx_release(kx, 2), -EPERM);
  gpurt_kx_close(kx);
  gpurt_kx_unlink(name.c_str());
}

TEST(KxLock, FifoAmongWaiters) {
  const std::string name = gpurt::test::unique_name("kx");
  gpurt::KxLock kx(name, 1);
  int first = kx.acquire_index();
  std::vector<int> order;
  std::mutex m;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      auto slot = kx.acquire();
      std::lock_guard<std::mutex> g(m);
      order.push_back(i);
    });
    // Waiter i queues before waiter i+1 arrives.
    while (kx.waiting() != i + 1) std::this_thread::yield();
  }
  kx.release(first);
  for (auto& t : waiters) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  gpurt::KxLock::unlink(name);
}

TEST(KxLock, ResizeOnlyWhenIdleAndAttachBySize) {
  const std::string name = gpurt::test::unique_name("kx");
  gpurt_kx* kx = gpurt_kx_open(name.c_str(), 2);
  ASSERT_NE(kx, nullptr);
  const int s = gpurt_kx_acquire(kx);
  EXPECT_EQ(gpurt_kx_resize(kx, 4), -EBUSY);
  EXPECT_EQ(std::string(gpurt_last_error()), "cannot resize: 1 slot(s) held, 0 waiting");
  EXPECT_EQ(gpurt_kx_slots(kx), 2);
  EXPECT_EQ(gpurt_kx_release(kx, s), 0);
  EXPECT_EQ(gpurt_kx_resize(kx, 0), -EINVAL);
  EXPECT_EQ(gpurt_kx_resize(kx, 257), -EINVAL);
  EXPECT_EQ(gpurt_kx_resize(kx, 4), 0);
  EXPECT_EQ(gpurt_kx_slots(kx), 4);
  // k = 0 attaches whatever the size; a stale nonzero k is refused.
  gpurt_kx* other = gpurt_kx_open(name.c_str(), 0);
  ASSERT_NE(other, nullptr) << gpurt_last_error();
  EXPECT_EQ(gpurt_kx_slots(other), 4);
  errno = 0;
  EXPECT_EQ(gpurt_kx_open(name.c_str(), 2), nullptr);
  EXPECT_EQ(errno, EINVAL);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(gpurt_kx_acquire(other), i);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(gpurt_kx_release(other, i), 0);
  gpurt_kx_close(other);
  gpurt_kx_close(kx);
  EXPECT_EQ(gpurt_kx_unlink(name.c_str()), 0);
  errno = 0;
  EXPECT_EQ(gpurt_kx_open(name.c_str(), 0), nullptr);  // gone: nothing to attach to
  EXPECT_EQ(errno, ENOENT);
}

TEST(KxLock, SlotsAreExclusiveAcrossThreadsAndProcesses) {
  const std::string name = gpurt::test::unique_name("kx");
  constexpr int kSlots = 3;
  constexpr int kCycles = 3000;
  auto* board = static_cast<std::atomic<int>*>(mmap(
      nullptr, 64 * sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(board, MAP_FAILED);
  for (int i = 0; i < 64; ++i) board[i].store(0);
  std::atomic<int>& violations = board[60];
  std::atomic<int>& inside = board[61];
  auto loop = [&](gpurt::KxLock& kx) {
    for (int c = 0; c < kCycles; ++c) {
      auto slot = kx.acquire();
      if (board[slot.index()].fetch_add(1) != 0) violations.fetch_add(1);
      if (inside.fetch_add(1) >= kSlots) violations.fetch_add(1);
      inside.fetch_sub(1);
      board[slot.index()].fetch_sub(1);
    }
  };
  gpurt::KxLock kx(name, kSlots);
  std::vector<pid_t> kids;
  for (int p = 0; p < 2; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        gpurt::KxLock own(name, 0);
        loop(own);
      } catch (...) {
        _exit(3);
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back([&] { loop(kx); });
  for (auto& t : threads) t.join();
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(violations.load(), 0);
  munmap(board, 64 * sizeof(std::atomic<int>));
  gpurt::KxLock::unlink(name);
}

// Dissertation §6.1: a holder runs under SCHED_FIFO while it holds its slot, then gets its own
// policy back. Needs CAP_SYS_NICE (or RLIMIT_RTPRIO): without it the option is refused at once
// with EPERM and a message naming the capability, and nothing changes.
TEST(Kx, HolderPriorityBoostsTheHolderToSchedFifoUntilRelease) {
  const std::string name = gpurt::test::unique_name("kx");
  gpurt::KxLock lock(name, 2);
  EXPECT_THROW(lock.set_holder_priority(100), gpurt::LockError);
  int policy = -1;
  sched_param before{};
  pthread_getschedparam(pthread_self(), &policy, &before);
  try {
    lock.set_holder_priority(10);
  } catch (const gpurt::LockError& e) {
    EXPECT_EQ(e.code(), EPERM);
    EXPECT_NE(std::string(e.what()).find("CAP_SYS_NICE"), std::string::npos) << e.what();
    EXPECT_EQ(lock.holder_priority(), 0);
    gpurt::KxLock::unlink(name);
    GTEST_SKIP() << "this process may not use SCHED_FIFO (no CAP_SYS_NICE): the refusal was checked";
  }
  EXPECT_EQ(policy, SCHED_OTHER);  // the test thread starts as an ordinary thread
  {
    const gpurt::KxLock::Slot slot = lock.acquire();
    int now = -1;
    sched_param p{};
    pthread_getschedparam(pthread_self(), &now, &p);
    EXPECT_EQ(now, SCHED_FIFO);
    EXPECT_EQ(p.sched_priority, 10);
  }
  int after = -1;
  sched_param p{};
  pthread_getschedparam(pthread_self(), &after, &p);
  EXPECT_EQ(after, policy);
  EXPECT_EQ(p.sched_priority, before.sched_priority);
  lock.set_holder_priority(0);
  {
    const gpurt::KxLock::Slot slot = lock.acquire();
    pthread_getschedparam(pthread_self(), &after, &p);
    EXPECT_EQ(after, policy);  // boosting off
  }
  gpurt::KxLock::unlink(name);
}
