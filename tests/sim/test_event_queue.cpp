// The simulator's 4-ary event heap pops exactly the (time, seq) order a reference does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/sim/engine.hpp"
#include "gpurt/sim/event_queue.hpp"

namespace {

struct E {
  std::int64_t time;
  std::uint64_t seq;
};

// Pushes at `now` plus a draw below `window`, interleaved with pops; every pop is checked.
void check_against_reference(std::uint64_t window, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  gpurt::sim::EventQueue<E> q;
  std::vector<std::pair<std::int64_t, std::uint64_t>> pending;  // the reference: a sorted multiset
  std::uint64_t seq = 0;
  std::int64_t now = 0;
  std::size_t popped = 0;
  for (int step = 0; step < 20000; ++step) {
    // Mostly pushes early, mostly pops late; times in a narrow window so that ties are common.
    const bool push = pending.empty() || rng() % 100 < (step < 10000 ? 70u : 30u);
    if (push) {
      // A third of the pushes land exactly at `now` (the simulator's batches at one instant).
      const std::uint64_t late = rng() % 3 == 0 ? 0 : rng() % window;
      const E e{now + static_cast<std::int64_t>(late), seq++};
      q.push(e);
      pending.emplace_back(e.time, e.seq);
    } else {
      const auto it = std::min_element(pending.begin(), pending.end());
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.top().time, it->first) << "pop " << popped << ", window " << window;
      ASSERT_EQ(q.top().seq, it->second) << "pop " << popped << ", window " << window;
      now = q.top().time;  // like the simulator: nothing is scheduled before the current time
      q.pop();
      pending.erase(it);
      ++popped;
    }
    ASSERT_EQ(q.size(), pending.size());
  }
  EXPECT_GT(popped, 5000u);
  while (!pending.empty()) {
    const auto it = std::min_element(pending.begin(), pending.end());
    ASSERT_EQ(q.top().seq, it->second);
    q.pop();
    pending.erase(it);
  }
  EXPECT_TRUE(q.empty());
}

// Times in a narrow window, so that ties are common: the order within one time is the seq.
TEST(EventQueue, PopsInTimeThenSequenceOrderUnderInterleavedPushesAndPops) {
  check_against_reference(8, 7);
  check_against_reference(3, 11);
}

// Times spread over many bits (nanoseconds to seconds): a deep heap.
TEST(EventQueue, PopsInOrderWhenTimesSpreadOverManyBits) {
  check_against_reference(std::uint64_t{1} << 40, 5);
  check_against_reference(1'000'000, 9);
}

// A queue drained to empty and filled again at the same and at later times keeps the order.
TEST(EventQueue, KeepsTheOrderAfterRunningEmpty) {
  gpurt::sim::EventQueue<E> q;
  q.push({100, 0});
  q.push({5, 1});  // earlier than a pending event, later than the last popped one
  EXPECT_EQ(q.top().seq, 1u);
  q.pop();
  q.push({5, 2});  // at the current time: after seq 1, before the time-100 event
  q.push({7, 3});
  EXPECT_EQ(q.top().seq, 2u);
  q.pop();
  EXPECT_EQ(q.top().seq, 3u);
  q.pop();
  EXPECT_EQ(q.top().seq, 0u);
  q.pop();
  EXPECT_TRUE(q.empty());
  q.push({100, 4});
  q.push({1ll << 50, 5});
  q.push({100, 6});
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.top().seq, 4u);
  q.pop();
  EXPECT_EQ(q.top().seq, 6u);
  q.pop();
  EXPECT_EQ(q.top().time, 1ll << 50);
  q.pop();
  EXPECT_TRUE(q.empty());
}

// The engine keeps the queue monotone: a driver that asks for a timer before the simulated
// time gets an error instead of a clock that runs backwards.
struct Backwards : gpurt::sim::SimDriver {
  void start(gpurt::sim::Simulator& sim) override { sim.driver_timer(gpurt::Nanos{10}, 0); }
  void wake(gpurt::sim::Simulator& sim, int tag) override {
    if (tag == 0) sim.driver_timer(sim.now() - gpurt::Nanos{5}, 1);
  }
  void kernel_done(gpurt::sim::Simulator&, int) override {}
};

TEST(EventQueue, TheEngineRejectsAnEventBeforeTheCurrentTime) {
  Backwards driver;
  try {
    gpurt::sim::run_driven(*gpurt::find_platform_preset("h100"), driver, 1);
    FAIL() << "a timer at 5 ns was set at 10 ns";
  } catch (const gpurt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("scheduled at 5 ns, before the simulated time 10 ns"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
