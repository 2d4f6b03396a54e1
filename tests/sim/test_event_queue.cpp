// The simulator's 4-ary event heap pops exactly the (time, seq) order a reference does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gpurt/sim/event_queue.hpp"

namespace {

struct E {
  std::int64_t time;
  std::uint64_t seq;
};

TEST(EventQueue, PopsInTimeThenSequenceOrderUnderInterleavedPushesAndPops) {
  std::mt19937_64 rng(7);
  gpurt::sim::EventQueue<E> q;
  std::vector<std::pair<std::int64_t, std::uint64_t>> pending;  // the reference: a sorted multiset
  std::uint64_t seq = 0;
  std::int64_t now = 0;
  std::size_t popped = 0;
  for (int step = 0; step < 20000; ++step) {
    // Mostly pushes early, mostly pops late; times in a narrow window so that ties are common.
    const bool push = pending.empty() || rng() % 100 < (step < 10000 ? 70u : 30u);
    if (push) {
      const E e{now + static_cast<std::int64_t>(rng() % 8), seq++};
      q.push(e);
      pending.emplace_back(e.time, e.seq);
    } else {
      const auto it = std::min_element(pending.begin(), pending.end());
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.top().time, it->first) << "pop " << popped;
      ASSERT_EQ(q.top().seq, it->second) << "pop " << popped;
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

}  // namespace
