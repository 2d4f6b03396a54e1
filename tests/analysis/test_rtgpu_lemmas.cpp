// RTGPU §5 lemmas on systems small enough to compute by hand; the arithmetic is in the comments.
#include <gtest/gtest.h>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/analysis/rtgpu_gcaps.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {
namespace {

constexpr Nanos ms(std::int64_t v) { return Nanos{v * 1'000'000}; }
constexpr Nanos us(std::int64_t v) { return Nanos{v * 1'000}; }

RtgpuSystem parse(const std::string& text) { return parse_rtgpu_system(Json::parse(text), "test.json"); }

// eq. (5)'s blocking term: one non-preemptive copy of a lower-priority task already on the bus,
// so the longest *upper* bound ML^ over every copy of every lower task. Lower tasks' copies
// ([1, 2], [0.5, 4]) and ([3, 3]): B = max(2, 4, 3) = 4 ms, not the 3 ms of the lower bounds.
TEST(RtgpuLemmas52To56, CopyBlockingIsTheLongestUpperBoundOfALowerTasksCopy) {
  RtgpuTask a, b;
  a.copy = {{ms(1), ms(2)}, {us(500), ms(4)}};
  b.copy = {{ms(3), ms(3)}};
  const RtgpuTask* lower[] = {&a, &b};
  EXPECT_EQ(copy_blocking(lower), ms(4));
  EXPECT_EQ(copy_blocking(std::span<const RtgpuTask* const>(lower, 1)), ms(4));
  EXPECT_EQ(copy_blocking(std::span<const RtgpuTask* const>(lower + 1, 1)), ms(3));
  EXPECT_EQ(copy_blocking({}), Nanos{0});  // the lowest-priority task is never blocked
}

TEST(RtgpuLemma51, GpuBoundsRoundSafely) {
  // GW in [8, 16] ms, GL^ = 2 ms, α = 1.5.
  const RtgpuGpuSegment g{{ms(8), ms(16)}, ms(2), 1.5};
  // 2 virtual SMs: lo = 8/2 = 4; hi = (16·1.5 − 2)/2 + 2 = 22/2 + 2 = 13.
  EXPECT_EQ(gpu_response_bounds(g, 2).lo, ms(4));
  EXPECT_EQ(gpu_response_bounds(g, 2).hi, ms(13));
  // 4 virtual SMs: lo = 2; hi = 22/4 + 2 = 7.5.
  EXPECT_EQ(gpu_response_bounds(g, 4).lo, ms(2));
  EXPECT_EQ(gpu_response_bounds(g, 4).hi, us(7500));
  // 3 virtual SMs, in ns: lo = floor(8e6/3) = 2666666; hi = 2e6 + ceil(22e6/3) = 2e6 + 7333334.
  EXPECT_EQ(gpu_response_bounds(g, 3).lo, Nanos{2'666'666});
  EXPECT_EQ(gpu_response_bounds(g, 3).hi, Nanos{9'333'334});
  // GW^·α with α as written: 100000000000002 · 1.0001 = 100010000000002.0002, so on 2 virtual SMs
  // hi = ceil(100010000000002.0002 / 2) = 50005000000002 (the binary product gave ...001).
  const RtgpuGpuSegment big{{Nanos{1}, Nanos{100'000'000'000'002}}, Nanos{0}, 1.0001};
  EXPECT_EQ(gpu_response_bounds(big, 2).hi, Nanos{50'005'000'000'002});
}

// Task "solo": m = 2, CL = [1,2],[1,3]; ML = [1,1],[0.5,2]; G: GW [8,16], GL 2, α 1.5.
const char* kSolo = R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
  "platform": {"preset": "gtx1080ti", "sms": 4}, "virtual_sms_per_sm": 2,
  "tasks": [{"name": "solo", "period": 100, "cpu": [[1, 2], [1, 3]], "copy": [[1, 1], [0.5, 2]],
             "gpu": [{"work": [8, 16], "overhead": 2, "alpha": 1.5}]}]})";

TEST(RtgpuTheorem56, OneTaskAloneIsTheSumOfUpperBounds) {
  const RtgpuSystem s = parse(kSolo);
  // Exact search gives the least allocation that works: 1 physical SM = 2 virtual SMs.
  const RtgpuResult r = analyse_rtgpu(s);
  ASSERT_TRUE(r.schedulable);
  ASSERT_EQ(r.tasks.size(), 1u);
  EXPECT_EQ(r.tasks[0].virtual_sms, 2);
  const RtgpuTaskBounds& b = r.tasks[0].bounds;
  // No other task: no interference and no blocking, so MR^ = ML^ and CR^ = CL^.
  EXPECT_EQ(*b.copy_hi[0], ms(1));
  EXPECT_EQ(*b.copy_hi[1], ms(2));
  EXPECT_EQ(*b.cpu_hi[0], ms(2));
  EXPECT_EQ(*b.cpu_hi[1], ms(3));
  // R1 = GR^ 13 + MR^ (1 + 2) + CR^ (2 + 3) = 21 = R2 (CL^ sum equals CR^ sum).
  EXPECT_EQ(*b.r1, ms(21));
  EXPECT_EQ(*b.r2, ms(21));
  EXPECT_EQ(*b.response, ms(21));
  // Lower bound: CL_lo 1 + 1, ML_lo 1 + 0.5, GR_lo 8/2 = 4: 7.5 ms.
  EXPECT_EQ(b.lower, us(7500));
}

// A bound equal to the deadline meets it. kSolo with T = D = 21 ms: one physical SM (2 virtual)
// gives R = 21 exactly (above), so the exact search still stops there; were 21 a miss it would
// need 2 physical SMs, R = 4 virtual: GR^ = 22/4 + 2 = 7.5, R = 7.5 + 3 + 5 = 15.5. GCAPS (the
// whole GPU, 8 virtual SMs): GR^ = 22/8 + 2 = 4.75, R = 4.75 + 3 + 5 = 12.75, schedulable with
// D = 12.75 and not with 12.7.
TEST(RtgpuTheorem56, ABoundEqualToTheDeadlineIsSchedulable) {
  RtgpuSystem s = parse(kSolo);
  s.tasks[0].period = s.tasks[0].deadline = ms(21);
  const RtgpuResult r = analyse_rtgpu(s);
  ASSERT_TRUE(r.schedulable);
  EXPECT_EQ(r.tasks[0].virtual_sms, 2);
  EXPECT_EQ(*r.tasks[0].bounds.response, ms(21));
  s.tasks[0].period = s.tasks[0].deadline = us(12750);
  const RtgpuResult g = analyse_rtgpu(s, {RtgpuMethod::gcaps_rr});
  EXPECT_EQ(*g.tasks[0].bounds.response, us(12750));
  EXPECT_TRUE(g.schedulable);
  s.tasks[0].period = s.tasks[0].deadline = us(12700);
  EXPECT_FALSE(analyse_rtgpu(s, {RtgpuMethod::gcaps_rr}).schedulable);
}

// GCAPS: a task below one without a bound is "not analysable", yet its own GPU bound (Lemma 5.1
// on the whole GPU) and lower bound still hold and are shown (they were left 0).
// K: kernel work 8 ms on 4 virtual SMs: GR^ = 8/4 = 2 ms; lower = CPU 1+1 + copies 1+1 + 2 = 6 ms.
TEST(RtgpuGcaps, ATaskBelowOneWithoutABoundKeepsItsGpuAndLowerBounds) {
  const RtgpuSystem s = parse_rtgpu_system(Json::parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
      "platform": {"preset": "gtx1080ti", "sms": 2}, "tasks": [
        {"name": "H", "period": 5, "priority": 1, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
         "gpu": [{"work": [4, 4], "overhead": 0, "alpha": 1}]},
        {"name": "K", "period": 50, "priority": 2, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
         "gpu": [{"work": [8, 8], "overhead": 0, "alpha": 1}]}]})"),
                                           "gcaps.json");
  const RtgpuResult g = analyse_rtgpu(s, {RtgpuMethod::gcaps_rr});
  EXPECT_FALSE(g.schedulable);
  ASSERT_EQ(g.tasks[1].bounds.gpu.size(), 1U);
  EXPECT_EQ(g.tasks[1].bounds.gpu[0].hi, ms(2));
  EXPECT_EQ(g.tasks[1].bounds.lower, ms(6));
  const RtgpuResult ss = analyse_rtgpu(s, {RtgpuMethod::self_suspension});
  EXPECT_EQ(ss.tasks[1].bounds.gpu[0].hi, ms(2));
  EXPECT_EQ(ss.tasks[1].bounds.lower, ms(6));
}

// Sums that would pass 2^63 saturate (core/time.hpp) instead of wrapping to a negative bound
// that passes for schedulable. One task of 94 CPU segments and 93 kernels of 10^15 ns stretched
// 100 times on one virtual SM: its GPU alone needs 93 × 10^17 ns > 2^63.
TEST(RtgpuTheorem56, SumsPast63BitsSaturateToNotSchedulable) {
  const int m = 94;
  std::string cpu, copy, gpu;
  for (int i = 0; i < m; ++i) cpu += std::string(i ? ", " : "") + "[1, 1]";
  for (int i = 0; i < 2 * m - 2; ++i) copy += std::string(i ? ", " : "") + "[0, 0]";
  for (int i = 0; i < m - 1; ++i)
    gpu += std::string(i ? ", " : "") + R"({"work": [1e15, 1e15], "alpha": 100})";
  const RtgpuSystem s = parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "ns",
    "platform": {"preset": "gtx1080ti", "sms": 1}, "virtual_sms_per_sm": 1,
    "tasks": [{"name": "big", "period": 1e15, "cpu": [)" +
                              cpu + R"(], "copy": [)" + copy + R"(], "gpu": [)" + gpu + "]}]}");
  for (RtgpuMethod method :
       {RtgpuMethod::rtgpu, RtgpuMethod::stgm, RtgpuMethod::self_suspension, RtgpuMethod::gcaps_rr}) {
    const RtgpuResult r = analyse_rtgpu(s, {method});
    EXPECT_FALSE(r.schedulable) << static_cast<int>(method);
    ASSERT_EQ(r.tasks.size(), 1u);
    EXPECT_EQ(r.tasks[0].bounds.response, std::nullopt) << static_cast<int>(method);
    EXPECT_GT(r.tasks[0].bounds.lower, Nanos{0});
  }
}

// A (priority 1): CL [1,1]x2, ML [1,1]x2, G: GW 4, GL 0, α 1, T = D = 20.
// B (priority 2): CL [2,2]x2, ML [3,3]x2, G: GW 4, GL 0, α 1, T = D = 50.
// One physical SM each (2 virtual): GR_A = GR_B = [2, 2].
const char* kPair = R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
  "platform": {"preset": "gtx1080ti", "sms": 2},
  "tasks": [
    {"name": "A", "period": 20, "priority": 1, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
     "gpu": [{"work": [4, 4], "overhead": 0, "alpha": 1}]},
    {"name": "B", "period": 50, "priority": 2, "cpu": [[2, 2], [2, 2]], "copy": [[3, 3], [3, 3]],
     "gpu": [{"work": [4, 4], "overhead": 0, "alpha": 1}]}]})";

TEST(RtgpuLemmas52To56, TwoTasksByHand) {
  const RtgpuSystem s = parse(kPair);
  const std::vector<int> one_each{1, 1};
  const auto b = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, one_each);
  // A: no higher-priority task; Lemma 5.3 blocking = B's longest copy = 3.
  // MR^_A = 1 + 3 = 4 (both copies); CR^_A = 1. R1 = 2 + 8 + 2 = 12; R2 = 2 + 8 + 2 = 12.
  EXPECT_EQ(*b[0].copy_hi[0], ms(4));
  EXPECT_EQ(*b[0].copy_hi[1], ms(4));
  EXPECT_EQ(*b[0].response, ms(12));
  EXPECT_TRUE(b[0].schedulable);
  // B on the bus sees A's view (Lemma 5.2): copies of 1 at 0 and 3 (gap GR_lo = 2), first-job
  // gap T−D + CL_lo^1 + CL_lo^0 = 2, later gap 20 − 2 − 2 = 16. MR = 3 + max_h MW_A^h(MR):
  // 3 → 3 + 1 = 4 → 3 + 2 = 5 → (h=0: 1 + min(1, 5−3) = 2; h=1: 1 + min(1, 5−3) = 2) 5.
  EXPECT_EQ(*b[1].copy_hi[0], ms(5));
  EXPECT_EQ(*b[1].copy_hi[1], ms(5));
  // B on the CPU sees A's view (Lemma 5.4): CL of 1, gap ML_lo + GR_lo + ML_lo = 4, first-job gap
  // T − D = 0, later gap 20 − 2 − 2 − 2 = 14. CR = 2 + max_h CW_A^h(CR):
  // 2 → (h=1: 1 at 0, next at 1 → 1 + min(1, 1) = 2) 4 → (h=1: 2) 4.
  EXPECT_EQ(*b[1].cpu_hi[0], ms(4));
  EXPECT_EQ(*b[1].cpu_hi[1], ms(4));
  // R1 = GR^ 2 + MR^ 10 + CR^ 8 = 20.
  EXPECT_EQ(*b[1].r1, ms(20));
  // R2 = 2 + 10 + ΣCL 4 + max_h CW_A^h(R2): 16 → h=0 packs A's CPU segments at 0, 5, 6, 11
  // (then 26), so CW = 4 within 16: R = 20; at 20 still 4 (26 > 20): R2 = 20.
  EXPECT_EQ(*b[1].r2, ms(20));
  EXPECT_EQ(*b[1].response, ms(20));
  EXPECT_TRUE(b[1].schedulable);
}

// The one-copy model (§6.1) writes each pair's absent copy as [0, 0]. A copy of length 0 is no
// bus request: MR = 0, with neither the blocking nor the interference eq. (5) adds (it was
// charged B = 3 here, R 11 instead of 8). H: CL 1 + 1, GR = 4 / 2 = 2, MR = 1 + B 3 = 4 and 0.
TEST(RtgpuLemmas52To56, AZeroLengthCopyIsNoBusRequest) {
  const RtgpuSystem s = parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
    "platform": {"preset": "gtx1080ti", "sms": 2},
    "tasks": [
      {"name": "H", "period": 100, "priority": 1, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [0, 0]],
       "gpu": [{"work": [4, 4], "overhead": 0, "alpha": 1}]},
      {"name": "L", "period": 100, "priority": 2, "cpu": [[1, 1], [1, 1]], "copy": [[3, 3], [0, 0]],
       "gpu": [{"work": [4, 4], "overhead": 0, "alpha": 1}]}]})");
  const auto b = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, std::vector<int>{1, 1});
  EXPECT_EQ(*b[0].copy_hi[0], ms(4));
  EXPECT_EQ(*b[0].copy_hi[1], Nanos{0});
  EXPECT_EQ(*b[0].r1, ms(8));
  EXPECT_EQ(*b[0].response, ms(8));
  // L: its copy of 3 meets H's one copy of 1 (MR = 3 + 1 = 4); its absent copy is 0 too.
  EXPECT_EQ(*b[1].copy_hi[0], ms(4));
  EXPECT_EQ(*b[1].copy_hi[1], Nanos{0});
}

TEST(RtgpuBaselines, StgmBusyWaitingByHand) {
  const RtgpuSystem s = parse(kPair);
  const std::vector<int> one_each{1, 1};
  const auto b = analyse_rtgpu_allocation(s, RtgpuMethod::stgm, one_each);
  // C_A = CL 2 + ML 2 + GR^ 2 = 6, plus 2 copies x longest lower-priority copy 3 = 12.
  // C_B = 4 + 6 + 2 = 12 (no lower-priority task). R_A = 12.
  EXPECT_EQ(*b[0].response, ms(12));
  // R_B = 12 + ceil(R/20)·12: 12 → 24 → 36 → 36.
  EXPECT_EQ(*b[1].response, ms(36));
}

TEST(RtgpuBaselines, SelfSuspensionByHand) {
  const RtgpuSystem s = parse(kPair);
  const std::vector<int> ignored{1, 1};
  const auto b = analyse_rtgpu_allocation(s, RtgpuMethod::self_suspension, ignored);
  // Whole GPU: 2 SMs = 4 virtual, GR = 4/4 = 1. Device segments: A 1+1+1 = 3, B 3+1+3 = 7.
  // A: DR = 3 + blocking 7 = 10; CR = 1, 1; R = 10 + 2 = 12.
  EXPECT_EQ(*b[0].copy_hi[0], ms(10));
  EXPECT_EQ(*b[0].response, ms(12));
  // B: A's device view: one segment of 3, first-job gap 0 + 1 + 1 = 2, later gap 20 − 3 = 17.
  // DR = 7 + W: 7 → 7 + (3 + min(3, 7−5)) = 12 → 7 + 6 = 13 → 13.
  EXPECT_EQ(*b[1].copy_hi[0], ms(13));
  // CR_B: A's CPU gaps 1+1+1 = 3, first 0, later 20 − 2 − 2 − 1 = 15: 2 → 4 → 4.
  EXPECT_EQ(*b[1].cpu_hi[0], ms(4));
  // R1 = 13 + 4 + 4 = 21. R2 = 13 + 4 + W(R2): 17 → 17 + 4 = 21 → 21.
  EXPECT_EQ(*b[1].r1, ms(21));
  EXPECT_EQ(*b[1].r2, ms(21));
}

// The device view's first-job gap counts T - D as well: A with D = 14 (T = 20) leaves
// 6 + 1 + 1 = 8 before its next device segment, so within B's DR = 7 + 3 = 10 only one of
// A's segments fits: 7 -> 10 -> 10 (with D = T it is 13, above).
TEST(RtgpuBaselines, SelfSuspensionFirstGapCountsDeadline) {
  std::string text = kPair;
  text.replace(text.find("\"period\": 20"), 12, "\"period\": 20, \"deadline\": 14");
  const std::vector<int> ignored{1, 1};
  const auto b = analyse_rtgpu_allocation(parse(text), RtgpuMethod::self_suspension, ignored);
  EXPECT_EQ(*b[0].response, ms(12));
  EXPECT_EQ(*b[1].copy_hi[0], ms(10));
}

TEST(RtgpuBaselines, GcapsInterleaveEq3) {
  // GCAPS eq. (3), L = 1024 us, θ = 200 us: I(ν, G) = (L + θ)·ν·ceil(G/L).
  const GcapsRrParams p;
  EXPECT_EQ(gcaps_interleave(2, us(1024), p), us(2448));  // 1224 · 2 · 1
  EXPECT_EQ(gcaps_interleave(2, us(1025), p), us(4896));  // 1224 · 2 · 2 (one slice more)
  EXPECT_EQ(gcaps_interleave(0, ms(5), p), Nanos{0});     // no other GPU context
}

TEST(RtgpuBaselines, GcapsRoundRobinByHand) {
  const RtgpuSystem s = parse(kPair);
  const std::vector<int> ignored{1, 1};
  const auto b = analyse_rtgpu_allocation(s, RtgpuMethod::gcaps_rr, ignored);
  // Whole GPU (2 SMs = 4 virtual): GR = 4/4 = 1. Ge_A = 1 + 1 + 1 = 3, Ge_B = 3 + 1 + 3 = 7.
  // A: ν = 1 (B), I = 1.224 · 1 · ceil(3/1.024) = 1.224 · 3 = 3.672. R_A = C 2 + G 3 + 3.672 = 8.672.
  EXPECT_EQ(*b[0].response, us(8672));
  // B: I = 1.224 · ceil(7/1.024) = 1.224 · 7 = 8.568; base = 4 + 7 + 8.568 = 19.568.
  // Eq. (8): J_A = R_A − C_A = 6.672; R = 19.568 + ceil((R + 6.672)/20) · 2:
  // 19.568 → (26.24/20 → 2) 23.568 → (30.24/20 → 2) 23.568.
  EXPECT_EQ(*b[1].response, us(23568));
  EXPECT_TRUE(b[1].schedulable);
  // With T_A = 25 the jitter decides: (19.568 + 6.672)/25 → 2 jobs of A: R_B = 23.568, where the
  // jitter-free ⌈R/T_A⌉ would stop at 19.568 + 2 = 21.568 (21.568/25 → 1 job).
  std::string text = kPair;
  text.replace(text.find("\"period\": 20"), 12, "\"period\": 25");
  const auto j = analyse_rtgpu_allocation(parse(text), RtgpuMethod::gcaps_rr, ignored);
  EXPECT_EQ(*j[1].response, us(23568));
  // The whole-GPU methods ignore the allocation: the search reports every task on the GPU.
  const RtgpuResult r = analyse_rtgpu(s, {RtgpuMethod::gcaps_rr, RtgpuSearch::exact});
  EXPECT_TRUE(r.schedulable);
  EXPECT_EQ(r.tasks[1].virtual_sms, 4);
}

// Lemma 1's ν_i counts only the other tasks that use the GPU: a CPU-only task C adds no
// context to round-robin with, so A keeps R = 8.672 ms (ν = 1, B) and B 23.568 ms.
TEST(RtgpuBaselines, GcapsIgnoresCpuOnlyTasksInNu) {
  std::string text = kPair;
  const std::string c = R"(,
    {"name": "C", "period": 100, "priority": 3, "cpu": [[1, 1]], "copy": [], "gpu": []}]})";
  text.replace(text.rfind("]}"), 2, c);
  const std::vector<int> ignored{1, 1, 0};
  const auto b = analyse_rtgpu_allocation(parse(text), RtgpuMethod::gcaps_rr, ignored);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(*b[0].response, us(8672));
  EXPECT_EQ(*b[1].response, us(23568));
  // C waits for A's and B's CPU segments: 1 + 2 + 4 = 7 ms.
  EXPECT_EQ(*b[2].response, ms(7));
}

// The two systems docs/rtgpu.md works by hand to explain where the Figs. 8-11 ordering
// (RTGPU >= self-suspension >= STGM) does not appear. Both: 2 physical SMs (4 virtual), H of
// priority 1 with T = D = 100, CL 1 + 1, ML 1 + 1, one kernel (α 1, GL 0).
// Cause A: per-segment charging. H's kernel GW 1; K: CL 1 x3, ML 1 x4, two kernels GW 1, T = D = 15.
const char* kCauseA = R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
  "platform": {"preset": "gtx1080ti", "sms": 2},
  "tasks": [
    {"name": "H", "period": 100, "priority": 1, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
     "gpu": [{"work": [1, 1], "overhead": 0, "alpha": 1}]},
    {"name": "K", "period": 15, "priority": 2, "cpu": [[1, 1], [1, 1], [1, 1]],
     "copy": [[1, 1], [1, 1], [1, 1], [1, 1]],
     "gpu": [{"work": [1, 1], "overhead": 0, "alpha": 1}, {"work": [1, 1], "overhead": 0, "alpha": 1}]}]})";

TEST(RtgpuFigureCauses, PerSegmentChargingLetsStgmWinAtLowUtilisation) {
  const RtgpuSystem s = parse(kCauseA);  // U = 5/100 + 9/15 = 0.65
  const std::vector<int> one_each{1, 1};
  const auto rt = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, one_each);
  // RTGPU, K: each of its 4 copies sees H's 2 copies (H's bus view: copies at 0 and 1.5):
  // MR = 1 → 2 → 1 + 1.5 = 2.5 → 3 → 3, so Σ MR^ = 12. Each of its 3 CPU segments sees H's
  // carried-in CL^1 and next CL^0 (first-job gap T − D = 0): CR = 1 → 2 → 3, Σ CR^ = 9.
  // R1 = GR^ 0.5 + 0.5 + 12 + 9 = 22; R2 = 13 + 3 + 2 = 18 > 15 (iteration stops).
  EXPECT_EQ(*rt[1].copy_hi[0], ms(3));
  EXPECT_EQ(*rt[1].cpu_hi[0], ms(3));
  EXPECT_EQ(*rt[1].r1, ms(22));
  EXPECT_FALSE(rt[1].r2.has_value());
  EXPECT_FALSE(rt[1].schedulable);
  // STGM, K: C_K = 3 + 4 + 1 = 8; C_H = 2 + 2 + 0.5 + 2 copies x K's copy 1 = 6.5, counted once
  // (T_H = 100): R = 8 + 6.5 = 14.5 <= 15.
  const auto st = analyse_rtgpu_allocation(s, RtgpuMethod::stgm, one_each);
  EXPECT_EQ(*st[1].response, us(14500));
  EXPECT_TRUE(st[1].schedulable);
  // Self-suspension, K: device segments 1 + 0.25 + 1 = 2.25, each sees H's device segment twice
  // (carry-in): DR = 6.75, Σ = 13.5; CR = 3 each: R1 = 13.5 + 9 = 22.5.
  const auto ss = analyse_rtgpu_allocation(s, RtgpuMethod::self_suspension, one_each);
  EXPECT_EQ(*ss[1].r1, us(22500));
  // GCAPS: R_H = 2 + 2.25 + 1.224·3 = 7.922, J_H = 5.922; K: 3 + 4.5 + 2·3.672 = 14.844,
  // + ceil((14.844 + 5.922)/100)·2 = 16.844 > 15.
  const auto gc = analyse_rtgpu_allocation(s, RtgpuMethod::gcaps_rr, one_each);
  EXPECT_EQ(*gc[0].response, us(7922));
  EXPECT_FALSE(gc[1].response.has_value());
}

// Cause B: federated SMs slow a big kernel. H's kernel GW 2; K: CL 1 + 1, ML 1 + 1, one kernel
// GW 40, T = D = 24.
const char* kCauseB = R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
  "platform": {"preset": "gtx1080ti", "sms": 2},
  "tasks": [
    {"name": "H", "period": 100, "priority": 1, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
     "gpu": [{"work": [2, 2], "overhead": 0, "alpha": 1}]},
    {"name": "K", "period": 24, "priority": 2, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
     "gpu": [{"work": [40, 40], "overhead": 0, "alpha": 1}]}]})";

TEST(RtgpuFigureCauses, FederatedSplitLetsSelfSuspensionWin) {
  const RtgpuSystem s = parse(kCauseB);
  // RTGPU: H needs >= 1 SM, so K gets 1 SM = 2 virtual: GR_K = 40/2 = 20, and K's lower bound
  // alone is 2 + 2 + 20 = 24 = D. R1 = 20 + MR 2 + 2 + CR 3 + 3 = 30 > 24.
  const RtgpuResult rt = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::brute});
  EXPECT_FALSE(rt.schedulable);
  EXPECT_EQ(*rt.tasks[1].bounds.r1, ms(30));
  // Self-suspension: whole GPU, GR_K = 40/4 = 10, device segment 12; H's device 2.5 twice:
  // DR = 12 → 17 → 17; R2 = 17 + 2 + CW_H(R2) 4 = 23 <= 24.
  const RtgpuResult ss = analyse_rtgpu(s, {RtgpuMethod::self_suspension, RtgpuSearch::exact});
  EXPECT_TRUE(ss.schedulable);
  EXPECT_EQ(*ss.tasks[1].bounds.copy_hi[0], ms(17));
  EXPECT_EQ(*ss.tasks[1].bounds.response, ms(23));
  // STGM: C_K = 2 + 2 + 20 = 24 already; + C_H 7 > 24. GCAPS: 2 + 12 + 1.224·12 = 28.688 > 24.
  EXPECT_FALSE(analyse_rtgpu(s, {RtgpuMethod::stgm, RtgpuSearch::brute}).schedulable);
  EXPECT_FALSE(analyse_rtgpu(s, {RtgpuMethod::gcaps_rr, RtgpuSearch::exact}).schedulable);
}

TEST(RtgpuLemmas52And54, MinimumInterArrivalCases) {
  // m = 3, T = 100, D = 80; CL lo 1, 2, 3 (hi 10, 20, 30); ML lo 1..4 (hi 4..7); GR lo 5, 6.
  RtgpuTask t;
  t.period = Nanos{100};
  t.deadline = Nanos{80};
  t.cpu = {{Nanos{1}, Nanos{10}}, {Nanos{2}, Nanos{20}}, {Nanos{3}, Nanos{30}}};
  t.copy = {{Nanos{1}, Nanos{4}}, {Nanos{2}, Nanos{5}}, {Nanos{3}, Nanos{6}}, {Nanos{4}, Nanos{7}}};
  const std::vector<TimeBounds> gpu{{Nanos{5}, Nanos{50}}, {Nanos{6}, Nanos{60}}};
  // MS_i(j), Lemma 5.2: even j → GR_lo^{j/2}; odd j → CL_lo^{(j+1)/2}; j = 2m−3 = 3 →
  // T − D + CL_lo^2 + CL_lo^0 = 20 + 3 + 1 = 24; later j ≡ 3 → T − ΣML^ (22) − CL_lo^1 (2) − ΣGR_lo (11)
  // = 65.
  EXPECT_EQ(bus_min_inter_arrival(t, gpu, 0), Nanos{5});
  EXPECT_EQ(bus_min_inter_arrival(t, gpu, 1), Nanos{2});
  EXPECT_EQ(bus_min_inter_arrival(t, gpu, 2), Nanos{6});
  EXPECT_EQ(bus_min_inter_arrival(t, gpu, 3), Nanos{24});
  EXPECT_EQ(bus_min_inter_arrival(t, gpu, 4), Nanos{5});
  EXPECT_EQ(bus_min_inter_arrival(t, gpu, 7), Nanos{65});
  // CS_i(j), Lemma 5.4: ML_lo^{2j} + GR_lo^j + ML_lo^{2j+1} = 1+5+2 = 8 and 3+6+4 = 13; j = m−1 = 2
  // → T − D = 20; later j ≡ 2 → T − ΣCL^ (60) − ΣML_lo (10) − ΣGR_lo (11) = 19.
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 0), Nanos{8});
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 1), Nanos{13});
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 2), Nanos{20});
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 3), Nanos{8});
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 5), Nanos{19});
  // With T = D = 50 the later-job gap 50 − 81 is clamped to 0 (docs/rtgpu.md, choice 1).
  t.period = t.deadline = Nanos{50};
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 5), Nanos{0});
  EXPECT_EQ(cpu_min_inter_arrival(t, gpu, 2), Nanos{0});
  // The views carry the same numbers.
  t.period = Nanos{100};
  t.deadline = Nanos{80};
  const SuspendingTask bus = bus_view(t, gpu);
  EXPECT_EQ(bus.exec, (std::vector<Nanos>{Nanos{4}, Nanos{5}, Nanos{6}, Nanos{7}}));
  EXPECT_EQ(bus.gap, (std::vector<Nanos>{Nanos{5}, Nanos{2}, Nanos{6}}));
  EXPECT_EQ(bus.first_job_gap, Nanos{24});
  EXPECT_EQ(bus.later_job_gap, Nanos{65});
}

TEST(RtgpuTheorem56, DeadlineMissIsData) {
  RtgpuSystem s = parse(kPair);
  s.tasks[1].deadline = ms(19);  // B's bound is 20
  const std::vector<int> one_each{1, 1};
  const auto b = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, one_each);
  EXPECT_FALSE(b[1].schedulable);
  EXPECT_FALSE(b[1].reason.empty());
  // The same system on 2 SMs cannot be saved by any search: B needs 1 SM and has it.
  const RtgpuResult r = analyse_rtgpu(s);
  EXPECT_FALSE(r.schedulable);
  EXPECT_FALSE(r.allocation_found);
}

// eq. (10) on 10 SMs. Task A (3 SMs): one kernel, GW^ 10 ms, α 1.45: 2/1.45 − 1 = 0.37931.
// Task B (2 SMs): kernels GW^ 4 ms at α 1.8 and 12 ms at α 1.6: 2·16 / (7.2 + 19.2) − 1 = 0.21212.
// Task C (1 SM): α 2: gains nothing. 4 SMs idle. η = 0.3·0.37931 + 0.2·0.21212 = 0.15622.
TEST(RtgpuThroughputGain, Eq10WeighsEachTaskBySmsAndItsKernelsByWork) {
  RtgpuSystem s = parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
    "platform": {"preset": "gtx1080ti", "sms": 10}, "virtual_sms_per_sm": 2, "tasks": [
    {"name": "A", "period": 100, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
     "gpu": [{"work": [5, 10], "overhead": 0, "alpha": 1.45}]},
    {"name": "B", "period": 100, "cpu": [[1, 1], [1, 1], [1, 1]], "copy": [[1, 1], [1, 1], [1, 1], [1, 1]],
     "gpu": [{"work": [1, 4], "overhead": 0, "alpha": 1.8}, {"work": [1, 12], "overhead": 0, "alpha": 1.6}]},
    {"name": "C", "period": 100, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
     "gpu": [{"work": [1, 3], "overhead": 0, "alpha": 2}]}]})");
  const std::vector<int> sms{3, 2, 1};
  EXPECT_NEAR(rtgpu_throughput_gain(s, sms), 0.3 * (2 / 1.45 - 1) + 0.2 * (32.0 / 26.4 - 1), 1e-12);
  EXPECT_NEAR(rtgpu_throughput_gain(s, sms), 0.15622, 1e-5);
  // Without interleaving (one virtual SM per SM) the α stretch is a pure loss: η = Σ (GN_i/GN)(1/α − 1).
  s.virtual_sms_per_sm = 1;
  EXPECT_NEAR(rtgpu_throughput_gain(s, sms), 0.3 * (1 / 1.45 - 1) + 0.2 * (16 / 26.4 - 1) + 0.1 * (0.5 - 1),
              1e-12);
  EXPECT_THROW(rtgpu_throughput_gain(s, std::vector<int>{3, 2}), Error);
  EXPECT_THROW(rtgpu_throughput_gain(s, std::vector<int>{3, 0, 1}), Error);
}

}  // namespace
}  // namespace gpurt
