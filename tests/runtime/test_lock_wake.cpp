// The locks' wake-up chain (issue 19). When one release frees units for more than one waiter, the
// unlock wakes the head of the queue, and every grant that leaves units free wakes the next
// request (shm_lock.cpp: mark_head after grant). A broken link loses no grant: the waiter's
// 50 ms dead-holder poll (kPoll) wakes it anyway, and it gets its units 50 ms late. So tests
// that only check that grants arrive, and in order, cannot see it; these bound how long the
// grants take after the release.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "gpurt/runtime/lock.hpp"
#include "lock_oracle.hpp"

using gpurt::test::unique_name;

namespace {

using Clock = std::chrono::steady_clock;

// Release-to-grant bound. The chain takes ~50 us. A missed wake-up costs the rest of the waiter's
// 50 ms poll, and the waiters here have just queued, so close to all of it. 20 ms lies between:
// far above scheduling delays on a loaded 2-core machine (ctest -j, ThreadSanitizer), far below
// the poll, so a missed wake-up cannot pass for a slow one. The bound applies to the median of
// kRounds rounds: a broken link makes every round slow, a loaded machine only the odd one.
constexpr double kBoundMs = 20.0;
constexpr int kRounds = 5;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

double ms_between(std::int64_t from, std::int64_t to) { return static_cast<double>(to - from) / 1e6; }

// Two waiter threads, each recording when its request was granted and then holding the unit
// until told to go: a waiter that released at once would wake the other itself and hide a
// broken chain.
struct Waiters {
  std::atomic<std::int64_t> granted[2] = {0, 0};
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;

  // Waits (at most 5 s) until both are granted; then lets them go and joins them.
  void finish() {
    const auto give_up = Clock::now() + std::chrono::seconds(5);
    while ((granted[0].load() == 0 || granted[1].load() == 0) && Clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    done = true;
    done.notify_all();
    for (std::thread& t : threads) t.join();
  }

  // Milliseconds from `released` until both waiters were granted (the later grant).
  double both_granted_ms(std::int64_t released, int round) const {
    double worst = 0;
    for (int i = 0; i < 2; ++i) {
      const std::int64_t g = granted[i].load();
      EXPECT_NE(g, 0) << "round " << round << ": waiter " << i << " was not granted within 5 s";
      worst = std::max(worst, g == 0 ? 5000.0 : ms_between(released, g));
    }
    return worst;
  }
};

// The median round must grant both waiters within kBoundMs of the release.
void expect_prompt(std::vector<double> ms) {
  std::string all;
  for (double m : ms) all += std::to_string(m) + " ";
  std::sort(ms.begin(), ms.end());
  EXPECT_LT(ms[ms.size() / 2], kBoundMs) << "release-to-grant times (ms) per round: " << all
                                         << "; a missed wake-up waits for the 50 ms dead-holder poll";
}

}  // namespace

// Issue 19's case: hold all 4 units, queue two {1} waiters, release all 4 at once. The unlock
// wakes the first waiter only; the second is granted because the first one's grant, leaving 3
// units free, wakes it.
TEST(SmlpWakeChain, ReleasingAllUnitsGrantsBothQueuedWaitersPromptly) {
  const std::string name = unique_name("wake");
  {
    gpurt::SmlpLock lock(name, 4);
    const int all[] = {1, 4};
    const int one[] = {1};
    std::vector<double> ms;
    for (int round = 0; round < kRounds; ++round) {
      auto held = lock.lock(all);
      ASSERT_EQ(held.units(), 4);
      Waiters w;
      for (int i = 0; i < 2; ++i) {
        w.threads.emplace_back([&, i] {
          auto g = lock.lock(one);
          w.granted[i] = now_ns();
          w.done.wait(false);
        });
        // Waiter i queues before waiter i+1 arrives.
        while (lock.waiting() != i + 1) std::this_thread::yield();
      }
      const std::int64_t released = now_ns();
      held.release();
      w.finish();
      ms.push_back(w.both_granted_ms(released, round));
      EXPECT_EQ(lock.waiting(), 0);
    }
    expect_prompt(ms);
  }
  gpurt::SmlpLock::unlink(name);
}

// The k-exclusion twin: k = 4, all slots held, two waiters, two slots released back to back. The
// second release usually comes while the first waiter, already woken, has not yet run: it is
// still the head, so that release only marks it again, and the second waiter depends on the
// first one's grant passing the wake on. The median of several rounds makes that interleaving
// near certain.
TEST(KxWakeChain, TwoReleasesInARowGrantBothQueuedWaitersPromptly) {
  const std::string name = unique_name("kxwake");
  {
    gpurt::KxLock kx(name, 4);
    std::vector<double> ms;
    for (int round = 0; round < kRounds; ++round) {
      int slots[4];
      for (int& s : slots) s = kx.acquire_index();
      Waiters w;
      for (int i = 0; i < 2; ++i) {
        w.threads.emplace_back([&, i] {
          auto slot = kx.acquire();
          w.granted[i] = now_ns();
          w.done.wait(false);
        });
        while (kx.waiting() != i + 1) std::this_thread::yield();
      }
      const std::int64_t released = now_ns();
      kx.release(slots[0]);
      kx.release(slots[1]);
      w.finish();
      ms.push_back(w.both_granted_ms(released, round));
      kx.release(slots[2]);
      kx.release(slots[3]);
      EXPECT_EQ(kx.waiting(), 0);
    }
    expect_prompt(ms);
  }
  gpurt::KxLock::unlink(name);
}
