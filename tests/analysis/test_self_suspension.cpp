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

// segment_workload_piece against the literal Lemma 2.1: the value at t, and the function stays
// exactly value + slope·(x − t) for every x up to next_break (the jump's premise).
TEST(SegmentWorkload, PiecesAreLinearUpToTheirBreak) {
  Rng rng(77);
  int sloped = 0, finite = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    SuspendingTask t;
    const auto n = static_cast<std::size_t>(rng.uniform_int(1, 4));
    for (std::size_t j = 0; j < n; ++j) t.exec.push_back(Nanos{rng.uniform_int(j == 0 ? 1 : 0, 9)});
    for (std::size_t j = 0; j + 1 < n; ++j)
      t.gap.push_back(Nanos{rng.uniform_int(0, 3) == 0 ? 0 : rng.uniform_int(1, 9)});
    t.first_job_gap = Nanos{rng.uniform_int(0, 2) == 0 ? 0 : rng.uniform_int(1, 20)};
    t.later_job_gap = Nanos{rng.uniform_int(0, 2) == 0 ? 0 : rng.uniform_int(1, 20)};
    const Nanos x0{rng.uniform_int(0, 200)};
    const auto h = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(n) - 1));
    const WorkloadPiece p = segment_workload_piece(t, h, x0);
    ASSERT_EQ(p.value, segment_workload(t, h, x0)) << "trial " << trial;
    ASSERT_GT(p.next_break, x0) << "trial " << trial;
    sloped += p.slope > 0 ? 1 : 0;
    const Nanos last = std::min(p.next_break, x0 + Nanos{400});
    finite += p.next_break < kUnboundedTime ? 1 : 0;
    for (Nanos x = x0; x <= last; x += Nanos{1}) {
      ASSERT_EQ(naive_workload(t, h, x), p.value + p.slope * (x - x0))
          << "trial " << trial << " x " << x.count();
    }
    // A finite break is a real one where a slope of 1 ends (a gap follows the segments).
    if (p.slope == 1 && p.next_break < kUnboundedTime) {
      ASSERT_EQ(naive_workload(t, h, p.next_break + Nanos{1}), naive_workload(t, h, p.next_break))
          << "trial " << trial;
    }
  }
  EXPECT_GT(sloped, 500);  // both kinds of piece were drawn
  EXPECT_GT(finite, 1000);
}

// The jumping iteration finds the same least fixed point as the plain one, wherever the plain
// one finishes: random higher-priority sets of one to three tasks.
TEST(LeastInterferenceFixedPoint, AgreesWithThePlainIteration) {
  Rng rng(99);
  int bounded = 0, unbounded = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<SuspendingTask> higher(static_cast<std::size_t>(rng.uniform_int(0, 3)));
    for (SuspendingTask& t : higher) {
      const auto n = static_cast<std::size_t>(rng.uniform_int(1, 3));
      for (std::size_t j = 0; j < n; ++j) t.exec.push_back(Nanos{rng.uniform_int(0, 12)});
      for (std::size_t j = 0; j + 1 < n; ++j) t.gap.push_back(Nanos{rng.uniform_int(0, 15)});
      t.first_job_gap = Nanos{rng.uniform_int(0, 30)};
      t.later_job_gap = Nanos{rng.uniform_int(0, 40)};
    }
    const Nanos base{rng.uniform_int(0, 20)}, limit{rng.uniform_int(0, 600)};
    const auto plain = least_fixed_point(base, limit, [&](Nanos r) { return total_interference(higher, r); });
    ASSERT_EQ(least_interference_fixed_point(base, higher, limit), plain) << "trial " << trial;
    (plain ? bounded : unbounded) += 1;
  }
  EXPECT_GT(bounded, 1000);
  EXPECT_GT(unbounded, 300);
}

// A long higher-priority segment is stepped over, not walked 1 ns at a time: R = 1 ns + W(R),
// W a 10 s segment every 110 s. The plain iteration moves 1 ns a step and gave up after 10^7
// steps ("no bound"); the least fixed point is 10 s + 1 ns. Two such tasks: 20 s + 1 ns. A task
// that uses its resource without a gap leaves no fixed point: "no bound" at once.
TEST(LeastInterferenceFixedPoint, ALongHigherPrioritySegmentIsSteppedOver) {
  const Nanos s10{10'000'000'000};
  const SuspendingTask long_one{{s10}, {}, Nanos{100'000'000'000}, Nanos{100'000'000'000}};
  const std::vector<SuspendingTask> one{long_one}, two{long_one, long_one};
  EXPECT_EQ(
      least_fixed_point(Nanos{1}, Nanos{20'000'000'000}, [&](Nanos r) { return total_interference(one, r); }),
      std::nullopt);  // the step cap
  EXPECT_EQ(least_interference_fixed_point(Nanos{1}, one, Nanos{20'000'000'000}), s10 + Nanos{1});
  EXPECT_EQ(least_interference_fixed_point(Nanos{1}, two, Nanos{30'000'000'000}), s10 + s10 + Nanos{1});
  EXPECT_EQ(least_interference_fixed_point(Nanos{1}, two, s10 + s10), std::nullopt);  // past the limit
  // Segments of 1 ns back to back, jobs back to back: W(t) = t.
  const SuspendingTask full{{Nanos{1}, Nanos{1}}, {Nanos{0}}, Nanos{0}, Nanos{0}};
  const std::vector<SuspendingTask> busy{full};
  EXPECT_EQ(interference_piece(busy, Nanos{5}).next_break, kUnboundedTime);
  EXPECT_EQ(least_interference_fixed_point(Nanos{1}, busy, Nanos{INT64_MAX / 4}), std::nullopt);
}

}  // namespace
}  // namespace gpurt
