// RTGPU task systems on the block-level simulator (sim/rtgpu_sim.hpp): a two-task case worked
// out by hand, a task alone meeting its bound exactly, random lengths staying within
// [lower bound, bound], and bad options. The generated-systems check is
// tests/exp/test_rtgpu_simcheck.cpp. Times in ms.
#include <gtest/gtest.h>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/sim/rtgpu_sim.hpp"

namespace gpurt {
namespace {

RtgpuSystem example(const std::string& name) {
  return load_rtgpu_system(std::string(GPURT_SOURCE_DIR) + "/examples/rtgpu/" + name);
}

Nanos ms(double v) { return *to_nanos(v, TimeUnit::ms, Rounding::nearest); }

// examples/rtgpu/sim-two-tasks.json on 2 SMs (4 virtual), one SM each, all lengths fixed:
//   H (prio 1, T 15): CL 2, ML 1, G (GW 4, GL 0, α 1 → 4/2 = 2), ML 1, CL 1.
//   L (prio 2, T 60): CL 1, ML 3, G (GW 8, GL 1, α 1.5 → 1 + (12 − 1)/2 = 6.5), ML 2, CL 3.
// Both released at 0:
//   [0, 2]  CPU: H.CL0 (higher priority; L waits)
//   [2, 3]  bus: H.ML0;  CPU: L.CL0
//   [3, 5]  H's kernel on SM 0;  [3, 6] bus: L.ML0
//   5       H.ML1 is ready but the bus is L's until 6: non-preemptive blocking (Lemma 5.3's B)
//   [6, 7]  bus: H.ML1;  L's kernel: launch overhead [6, 7], blocks on SM 1 [7, 12.5]
//   [7, 8]  CPU: H.CL1  → R_H = 8 (its segments sum to 7: the 1 ms is the blocking)
//   [12.5, 14.5] bus: L.ML1;  [14.5, 15] CPU: L.CL1 runs 0.5 of its 3
//   15      H's job 2 preempts L.CL1: H.CL0 [15, 17], H.ML0 [17, 18], kernel [18, 20],
//           H.ML1 [20, 21], H.CL1 [21, 22] → R = 7
//   [17, 19.5] CPU: L.CL1's remaining 2.5 → R_L = 19.5
// L's job 2 (released 60) runs alone: 1 + 3 + 6.5 + 2 + 3 = 15.5.
TEST(RtgpuSim, HandComputedTwoTasks) {
  const RtgpuSystem s = example("sim-two-tasks.json");
  RtgpuSimOptions o;
  o.physical_sms = {1, 1};
  o.jobs = 2;
  const RtgpuSimResult r = simulate_rtgpu(s, o);
  ASSERT_EQ(r.tasks.size(), 2u);
  EXPECT_EQ(r.tasks[0].worst, ms(8));
  EXPECT_EQ(r.tasks[0].best, ms(7));
  EXPECT_EQ(r.tasks[0].mean, ms(7.5));
  EXPECT_EQ(r.tasks[1].worst, ms(19.5));
  EXPECT_EQ(r.tasks[1].best, ms(15.5));
  EXPECT_EQ(r.tasks[0].first_sm, 0);
  EXPECT_EQ(r.tasks[1].first_sm, 1);
  EXPECT_EQ(r.late_kernels, 0);  // each kernel had its SM to itself
  EXPECT_EQ(r.late_copies, 0);   // the copy engine was free whenever the arbiter issued
  EXPECT_EQ(r.stats.kernels, 4u);
  EXPECT_EQ(r.stats.blocks, 8u);  // 2 persistent blocks (virtual SMs) per kernel
  // The analysis bounds both from above (its own numbers are checked in test_rtgpu_lemmas).
  const std::vector<int> sms = {1, 1};
  const auto bounds = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, sms);
  EXPECT_LE(r.tasks[0].worst, *bounds[0].response);
  EXPECT_LE(r.tasks[1].worst, *bounds[1].response);
  EXPECT_EQ(bounds[0].lower, ms(7));
}

// until_first_miss (sweep rtgpu --simulate's yes/no): with H's deadline at 7.5, its first job
// (R 8, above) misses at 8. The timers already set still release H's job 2 at 15 and L's at 60,
// and nothing after them; without the option all ten jobs of each run.
TEST(RtgpuSim, UntilTheFirstMissReleasesNoMoreJobsAfterIt) {
  RtgpuSystem s = example("sim-two-tasks.json");
  s.tasks[0].deadline = ms(7.5);
  RtgpuSimOptions o;
  o.physical_sms = {1, 1};
  o.jobs = 10;
  const RtgpuSimResult all = simulate_rtgpu(s, o);
  EXPECT_EQ(all.tasks[0].jobs, 10);
  EXPECT_EQ(all.tasks[1].jobs, 10);
  EXPECT_GE(all.tasks[0].deadline_misses, 1);
  o.until_first_miss = true;
  const RtgpuSimResult first = simulate_rtgpu(s, o);
  EXPECT_EQ(first.tasks[0].jobs, 2);
  EXPECT_EQ(first.tasks[1].jobs, 2);
  EXPECT_EQ(first.tasks[0].deadline_misses, 1);  // job 2 (R 7) meets 7.5
  EXPECT_EQ(first.tasks[0].worst, ms(8));
  // A set that misses nothing runs every job either way.
  s.tasks[0].deadline = ms(15);
  const RtgpuSimResult none = simulate_rtgpu(s, o);
  EXPECT_EQ(none.tasks[0].jobs, 10);
  EXPECT_EQ(none.tasks[0].deadline_misses + none.tasks[1].deadline_misses, 0);
}

// A task alone, at its upper bounds: its response is the sum of its segments' upper bounds,
// which is exactly its Theorem 5.6 bound (no interference, no blocking): tightness 1.
TEST(RtgpuSim, TaskAloneMeetsItsBoundExactly) {
  RtgpuSystem s = example("sim-two-tasks.json");
  s.tasks.resize(1);
  RtgpuSimOptions o;
  o.physical_sms = {1};
  o.jobs = 3;
  const RtgpuSimResult r = simulate_rtgpu(s, o);
  const auto bounds = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, o.physical_sms);
  EXPECT_EQ(r.tasks[0].worst, ms(7));
  EXPECT_EQ(*bounds[0].response, ms(7));
  // Two SMs (8 virtual → 4 persistent blocks of 1 ms): 2 + 1 + 1 + 1 + 1 = 6.
  o.physical_sms = {2};
  s.platform.sms = 2;
  EXPECT_EQ(simulate_rtgpu(s, o).tasks[0].worst, ms(6));
}

// Random lengths in [lo, hi] (α in [1, α], GL in [0, GL^]), sporadic releases with random
// offsets: every response stays within [analysis lower bound, bound], on L's kernel too.
TEST(RtgpuSim, RandomLengthsStayWithinLowerAndUpperBounds) {
  RtgpuSystem s = example("sim-two-tasks.json");
  for (RtgpuTask& t : s.tasks) {
    for (TimeBounds& c : t.cpu) c.lo = c.hi / 2;
    for (TimeBounds& c : t.copy) c.lo = Nanos{0};
    for (RtgpuGpuSegment& g : t.gpu) g.work.lo = g.work.hi / 4;
  }
  const std::vector<int> sms = {1, 1};
  const auto bounds = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, sms);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RtgpuSimOptions o;
    o.physical_sms = sms;
    o.jobs = 40;
    o.execution = RtgpuExecution::random;
    o.random_offsets = true;
    o.sporadic_jitter = 0.5;
    o.seed = seed;
    const RtgpuSimResult r = simulate_rtgpu(s, o);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(r.tasks[i].jobs, 40);
      EXPECT_LE(r.tasks[i].worst, *bounds[i].response) << "seed " << seed << " task " << i;
      EXPECT_GE(r.tasks[i].best, bounds[i].lower) << "seed " << seed << " task " << i;
      EXPECT_LT(r.tasks[i].best, r.tasks[i].worst);  // the lengths did vary
    }
    EXPECT_EQ(r.late_kernels + r.late_copies, 0);
  }
}

// On a preset with a fitted performance model (rtx3060ti) a WCET kernel may run shorter, but
// never below Lemma 5.1's best case GR_lo = GW_lo / 2GN_i, which the analysis counts on: H's
// two 20 ms GPU segments on 1 SM (2 virtual) take at least 10 ms each, so H's CPU segments come
// at least 10 ms apart and L (CL 9) meets its bound 9 + 5.1 = 14.1 ms. A kernel shortened to
// about 7.3 ms let L end at 19 ms (audit, 2026-11-27).
TEST(RtgpuSim, CalibratedKernelsNeverRunBelowTheLowerBound) {
  const RtgpuSystem s = parse_rtgpu_system(parse_json(R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
      "platform": {"preset": "rtx3060ti", "sms": 2}, "tasks": [
        {"name": "H", "period": 100, "priority": 1, "cpu": [[5, 5], [5, 5], [0.1, 0.1]],
         "copy": [[0, 0], [0, 0], [0, 0], [0, 0]],
         "gpu": [{"work": [20, 20], "overhead": 0, "alpha": 1}, {"work": [20, 20], "overhead": 0, "alpha": 1}]},
        {"name": "L", "period": 200, "priority": 2, "cpu": [[9, 9]], "copy": [], "gpu": []}]})",
                                                      "cal.json"),
                                           "cal.json");
  ASSERT_GT(s.platform.model.kernel_jitter + s.platform.model.jitter + s.platform.model.switch_cost, 0.0);
  const std::vector<int> sms = {1, 1};
  const auto bounds = analyse_rtgpu_allocation(s, RtgpuMethod::rtgpu, sms);
  ASSERT_TRUE(bounds[1].response.has_value());
  EXPECT_EQ(*bounds[1].response, ms(14.1));
  RtgpuSimOptions o;
  o.physical_sms = sms;
  o.jobs = 5;
  const RtgpuSimResult r = simulate_rtgpu(s, o);
  EXPECT_LE(r.tasks[1].worst, *bounds[1].response);
  EXPECT_GE(r.tasks[0].best, ms(5 + 10 + 5 + 10 + 0.1));  // both GPU segments at least GR_lo
}

TEST(RtgpuSim, RejectsBadAllocationsAndOptions) {
  const RtgpuSystem s = example("sim-two-tasks.json");
  RtgpuSimOptions o;
  o.physical_sms = {1};
  EXPECT_THROW(simulate_rtgpu(s, o), Error);  // one count for two tasks
  o.physical_sms = {2, 1};
  EXPECT_THROW(simulate_rtgpu(s, o), Error);  // 3 SMs on a 2-SM GPU
  o.physical_sms = {0, 1};
  EXPECT_THROW(simulate_rtgpu(s, o), Error);
  o.physical_sms = {1, 1};
  o.jobs = 0;
  EXPECT_THROW(simulate_rtgpu(s, o), Error);
  o.jobs = 1;
  o.sporadic_jitter = -1;
  EXPECT_THROW(simulate_rtgpu(s, o), Error);
}

}  // namespace
}  // namespace gpurt
