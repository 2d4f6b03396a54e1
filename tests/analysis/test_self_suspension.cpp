// The uniprocessor building blocks: classic response-time analysis against textbook numbers,
// and Lemma 2.1's workload function against a plain segment-by-segment transcription.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpurt/analysis/self_suspension.hpp"
#include "gpurt/core/rng.hpp"

namespace gpurt {
namespace {

TEST(FpResponseTime, BurnsWellingsExample) {
  // Burns & Wellings, "Real-Time Systems and Programming Languages" (4th ed.), §11.5, the
  // three-task response-time example: a (T 7, C 3), b (T 12, C 3), c (T 20, C 5), a highest.
  // By hand: R_a = 3. R_b: 3 → 3 + 3 = 6 → 3 + ceil(6/7)·3 = 6. R_c: 5 → 5+3+3 = 11 →
  // 5+6+3 = 14 → 5+6+6 = 17 → 5+9+6 = 20 → 5+9+6 = 20. The book gives 3, 6 and 20.
  const std::vector<FpTask> all{{Nanos{3}, Nanos{7}}, {Nanos{3}, Nanos{12}}, {Nanos{5}, Nanos{20}}};
  const std::span<const FpTask> s(all);
  EXPECT_EQ(fp_response_time(Nanos{3}, Nanos{0}, s.first(0), Nanos{7}), Nanos{3});
  EXPECT_EQ(fp_response_time(Nanos{3}, Nanos{0}, s.first(1), Nanos{12}), Nanos{6});
  EXPECT_EQ(fp_response_time(Nanos{5}, Nanos{0}, s.first(2), Nanos{20}), Nanos{20});
  // With the limit just below 20 the iteration reports "past the limit".
  EXPECT_EQ(fp_response_time(Nanos{5}, Nanos{0}, s.first(2), Nanos{19}), std::nullopt);
}

TEST(FpResponseTime, ButtazzoExample) {
  // Buttazzo, "Hard Real-Time Computing Systems" (3rd ed.), §4.5.2 (response-time analysis):
  // C = (1, 2, 3), T = (4, 6, 10). R_3: 3 → 3+1+2 = 6 → 3+2+2 = 7 → 3+2+4 = 9 → 3+3+4 = 10 → 10.
  const std::vector<FpTask> hp{{Nanos{1}, Nanos{4}}, {Nanos{2}, Nanos{6}}};
  EXPECT_EQ(fp_response_time(Nanos{3}, Nanos{0}, hp, Nanos{10}), Nanos{10});
  // Blocking adds to the start: 3 + 1 = 4 → 4+1+2 = 7 → 4+2+4 = 10 → 4+3+4 = 11 → 11.
  EXPECT_EQ(fp_response_time(Nanos{3}, Nanos{1}, hp, Nanos{100}), Nanos{11});
}

// A higher-priority utilisation of 1 (or more) leaves no fixed point: nullopt at once, however
// far the limit (iterating would take 10^12 steps of 1000 ns here). Just below 1 it converges:
// C 1, hp (999, 1000): R = 1 + ceil(R/1000)·999 → 1000 → 1000.
TEST(FpResponseTime, AFullHigherPriorityLoadHasNoBound) {
  const std::vector<FpTask> full{{Nanos{1000}, Nanos{1000}}};
  EXPECT_EQ(fp_response_time(Nanos{1000}, Nanos{0}, full, Nanos{1'000'000'000'000'000}), std::nullopt);
  const std::vector<FpTask> over{{Nanos{2}, Nanos{3}}, {Nanos{1}, Nanos{2}}};  // 2/3 + 1/2
  EXPECT_EQ(fp_response_time(Nanos{1}, Nanos{0}, over, Nanos{1'000'000'000'000'000}), std::nullopt);
  const std::vector<FpTask> almost{{Nanos{999}, Nanos{1000}}};
  EXPECT_EQ(fp_response_time(Nanos{1}, Nanos{0}, almost, Nanos{1'000'000}), Nanos{1000});
  // Interference terms saturate rather than wrap: C = 2^61 every 1 ns is "unbounded".
  const std::vector<FpTask> huge{{Nanos{std::int64_t{1} << 61}, Nanos{std::int64_t{1} << 62}}};
  EXPECT_EQ(fp_response_time(Nanos{std::int64_t{1} << 61}, Nanos{0}, huge, Nanos{INT64_MAX}), std::nullopt);
}

// least_fixed_point stops after kMaxFixedPointSteps iterates: f(R) = R - 1 + 1 never settles.
TEST(FpResponseTime, TheFixedPointIterationIsBounded) {
  std::int64_t calls = 0;
  const auto r = least_fixed_point(Nanos{1}, Nanos{INT64_MAX / 2}, [&](Nanos x) {
    ++calls;
    return x;  // R = 1 + R: every iterate moves up by 1 ns
  });
  EXPECT_EQ(r, std::nullopt);
  EXPECT_EQ(calls, kMaxFixedPointSteps);
}

// Lemma 2.1 read literally: step through j = h, h+1, ... one segment at a time.
Nanos naive_workload(const SuspendingTask& t, std::size_t h, Nanos window) {
  const auto n = static_cast<std::int64_t>(t.exec.size());
  Nanos used{0}, work{0};
  for (auto j = static_cast<std::int64_t>(h);; ++j) {
    const Nanos l = t.exec[static_cast<std::size_t>(j % n)];
    Nanos s;
    if (j % n != n - 1) {
      s = t.gap[static_cast<std::size_t>(j % n)];
    } else if (j == n - 1) {
      s = t.first_job_gap;
    } else {
      s = t.later_job_gap;
    }
    if (used + l + s > window) return work + std::min(l, window - used);
    used += l + s;
    work += l;
  }
}

TEST(SegmentWorkload, MatchesLiteralLemma21) {
  Rng rng(2024);
  for (int trial = 0; trial < 2000; ++trial) {
    SuspendingTask t;
    const auto n = static_cast<std::size_t>(rng.uniform_int(1, 5));
    for (std::size_t j = 0; j < n; ++j) t.exec.push_back(Nanos{rng.uniform_int(1, 9)});
    for (std::size_t j = 0; j + 1 < n; ++j) t.gap.push_back(Nanos{rng.uniform_int(0, 9)});
    t.first_job_gap = Nanos{rng.uniform_int(0, 20)};
    t.later_job_gap = Nanos{rng.uniform_int(0, 20)};
    const Nanos window{rng.uniform_int(0, 400)};
    const auto h = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(n) - 1));
    ASSERT_EQ(segment_workload(t, h, window), naive_workload(t, h, window)) << "trial " << trial;
  }
}

TEST(SegmentWorkload, HandExample) {
  // Segments 2 and 1 with gap 3; first-job gap 4; later-job gap 10 (one later job spans
  // 2 + 3 + 1 + 10 = 16). From h = 0: [0,2) [5,6) | [10,12) [15,16) | [26,28) ...
  const SuspendingTask t{{Nanos{2}, Nanos{1}}, {Nanos{3}}, Nanos{4}, Nanos{10}};
  EXPECT_EQ(segment_workload(t, 0, Nanos{1}), Nanos{1});
  EXPECT_EQ(segment_workload(t, 0, Nanos{6}), Nanos{3});
  EXPECT_EQ(segment_workload(t, 0, Nanos{11}), Nanos{4});
  EXPECT_EQ(segment_workload(t, 0, Nanos{27}), Nanos{7});
  // From h = 1: [0,1) then the first-job gap 4: [5,7) [10,11) | [21,23) ...
  EXPECT_EQ(segment_workload(t, 1, Nanos{22}), Nanos{5});
  EXPECT_EQ(max_segment_workload(t, Nanos{22}), Nanos{6});  // h = 0: 2+1+2+1 = 6
}

}  // namespace
}  // namespace gpurt
