// The RTGPU sweep: same numbers for any thread count, and each verdict is the analysis's own;
// the simulated column (Figs. 12-13's counterpart) on a hand-computed system and never below
// the analysis on generated ones.
#include <gtest/gtest.h>

#include "gpurt/exp/rtgpu_sweep.hpp"

#include <cmath>

#include "gpurt/core/error.hpp"

namespace gpurt {
namespace {

// Set j of point p as the sweep draws it; `rng` is left where the generator stopped (the sweep
// seeds the set's random-length run from its next value).
RtgpuSystem draw_set(const RtgpuSweepOptions& o, std::size_t p, int j, Rng& rng) {
  RtgpuTable1Options g = o.generator;
  g.utilization = o.utilizations[p];
  rng = Rng(o.seed).fork(p * static_cast<std::uint64_t>(o.sets_per_point) + static_cast<std::uint64_t>(j));
  return generate_rtgpu_table1(rng, g);
}

RtgpuSweepOptions small() {
  RtgpuSweepOptions o;
  o.utilizations = {0.2, 0.6, 1.0};
  o.sets_per_point = 12;
  o.seed = 77;
  return o;
}

TEST(RtgpuSweep, SameResultForAnyThreadCount) {
  std::string first;
  for (int threads : {1, 2, 4, 8}) {
    RtgpuSweepOptions o = small();
    o.threads = threads;
    o.simulate_jobs = 5;
    const std::string csv = to_csv(run_rtgpu_sweep(o), o);
    if (first.empty()) first = csv;
    EXPECT_EQ(csv, first) << threads << " threads";
  }
}

TEST(RtgpuSweep, CountsAreTheAnalysisVerdicts) {
  const RtgpuSweepOptions o = small();
  const auto points = run_rtgpu_sweep(o);
  ASSERT_EQ(points.size(), 3u);
  // Recount point 1 serially from the documented per-set seeds.
  std::vector<int> expected(o.methods.size(), 0);
  for (int j = 0; j < o.sets_per_point; ++j) {
    RtgpuTable1Options g = o.generator;
    g.utilization = 0.6;
    Rng rng = Rng(o.seed).fork(static_cast<std::uint64_t>(o.sets_per_point + j));
    const RtgpuSystem s = generate_rtgpu_table1(rng, g);
    for (std::size_t k = 0; k < o.methods.size(); ++k) {
      expected[k] += analyse_rtgpu(s, {o.methods[k], o.search}).schedulable ? 1 : 0;
    }
  }
  EXPECT_EQ(points[1].accepted, expected);
  EXPECT_EQ(points[1].sets, 12);
  const std::string csv = to_csv(points, o);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "utilization,sets,rtgpu,self-suspension,stgm,gcaps-rr");
}

// examples/rtgpu/sim-two-tasks.json, worked by hand in tests/sim/test_rtgpu_sim.cpp: with both
// released at 0 and every length at its bound, L's first job responds in exactly 19.5 ms.
TEST(RtgpuSweep, SimulatedVerdictIsExactAtTheDeadline) {
  RtgpuSystem s = load_rtgpu_system(std::string(GPURT_SOURCE_DIR) + "/examples/rtgpu/sim-two-tasks.json");
  const Nanos observed = *to_nanos(19.5, TimeUnit::ms, Rounding::nearest);
  s.tasks[1].deadline = observed;
  const RtgpuResult a = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::exact});
  ASSERT_EQ(a.tasks[0].physical_sms + a.tasks[1].physical_sms, 2);
  EXPECT_TRUE(rtgpu_simulated_schedulable(s, a, 2));
  // The analysis bounds L by 24.5 ms on this allocation (docs/rtgpu.md, worked by hand), above
  // what the simulator observes: it rejects what the simulator meets.
  EXPECT_FALSE(a.schedulable);
  s.tasks[1].deadline = observed - Nanos{1};
  EXPECT_FALSE(rtgpu_simulated_schedulable(s, a, 2));
  // Three tasks on two SMs cannot run federated.
  s.tasks.push_back(s.tasks[1]);
  s.tasks.back().name = "L2";
  s.tasks.back().priority = 3;
  EXPECT_FALSE(rtgpu_simulated_schedulable(s, a, 2));
}

// Fig. 13's model, by hand: copies and GPU work become ceil((lo + hi) / 2) as both bounds, α the
// mean of [1, α], GL the mean of [0, GL] rounded up; CPU segments only with cpu_too.
TEST(RtgpuSweep, AverageExecutionModelTakesTheMeanOfEachRange) {
  RtgpuSystem s = load_rtgpu_system(std::string(GPURT_SOURCE_DIR) + "/examples/rtgpu/sim-two-tasks.json");
  RtgpuTask& l = s.tasks[1];
  l.cpu[0] = {Nanos{4}, Nanos{9}};
  l.copy[0] = {Nanos{3}, Nanos{8}};
  l.copy[1] = {Nanos{5}, Nanos{7}};
  l.gpu[0].work = {Nanos{1'000'001}, Nanos{2'000'000}};
  l.gpu[0].overhead = Nanos{5};
  const RtgpuSystem a = average_execution_model(s);
  const RtgpuTask& m = a.tasks[1];
  EXPECT_EQ(m.copy[0].lo, Nanos{6});  // 5.5 up
  EXPECT_EQ(m.copy[0].hi, Nanos{6});
  EXPECT_EQ(m.copy[1].lo, Nanos{6});
  EXPECT_EQ(m.gpu[0].work.hi, Nanos{1'500'001});  // 1,500,000.5 up
  EXPECT_EQ(m.gpu[0].work.lo, Nanos{1'500'001});
  EXPECT_EQ(m.gpu[0].overhead, Nanos{3});
  EXPECT_DOUBLE_EQ(m.gpu[0].alpha, 1.25);
  EXPECT_EQ(m.cpu[0].lo, Nanos{4});  // CPU kept
  EXPECT_EQ(m.cpu[0].hi, Nanos{9});
  const RtgpuSystem all = average_execution_model(s, true);
  EXPECT_EQ(all.tasks[1].cpu[0].lo, Nanos{7});  // 6.5 up
  EXPECT_EQ(all.tasks[1].cpu[0].hi, Nanos{7});
  EXPECT_EQ(all.tasks[1].copy[0].hi, Nanos{6});
}

// With random lengths (α in [1, 1.5], GL in [0, 1 ms]) L finishes before the 19.5 ms its
// upper bounds take, so a deadline 1 ns short of it is missed only by the worst-case run.
TEST(RtgpuSweep, RandomLengthsRunFasterThanUpperBounds) {
  RtgpuSystem s = load_rtgpu_system(std::string(GPURT_SOURCE_DIR) + "/examples/rtgpu/sim-two-tasks.json");
  s.tasks[1].deadline = *to_nanos(19.5, TimeUnit::ms, Rounding::nearest) - Nanos{1};
  const RtgpuResult a = analyse_rtgpu(s, {RtgpuMethod::rtgpu, RtgpuSearch::exact});
  EXPECT_FALSE(rtgpu_simulated_schedulable(s, a, 2, RtgpuExecution::worst));
  EXPECT_TRUE(rtgpu_simulated_schedulable(s, a, 2, RtgpuExecution::random, 5));
}

// --lengths average: every count is the analysis of the averaged set, and the simulated column
// the set's random-length run seeded by the next value of its own stream (recounted serially).
TEST(RtgpuSweep, AverageLengthsCountTheAveragedAnalysisAndTheRandomRun) {
  RtgpuSweepOptions o = small();
  o.generator.lower_fraction = 0.5;
  o.lengths = RtgpuLengths::average;
  o.utilizations = {0.9, 1.8};
  o.simulate_jobs = 5;
  const auto points = run_rtgpu_sweep(o);
  RtgpuSweepOptions w = o;
  w.lengths = RtgpuLengths::worst;
  const auto worst = run_rtgpu_sweep(w);
  int differs = 0;
  for (std::size_t p = 0; p < points.size(); ++p) {
    std::vector<int> expected(o.methods.size(), 0);
    int simulated = 0;
    for (int j = 0; j < o.sets_per_point; ++j) {
      Rng rng(0);
      const RtgpuSystem s = draw_set(o, p, j, rng);
      const RtgpuSystem avg = average_execution_model(s);
      for (std::size_t k = 0; k < o.methods.size(); ++k) {
        expected[k] += analyse_rtgpu(avg, {o.methods[k], o.search}).schedulable ? 1 : 0;
      }
      const RtgpuResult a = analyse_rtgpu(avg, {RtgpuMethod::rtgpu, o.search});
      simulated += rtgpu_simulated_schedulable(s, a, 5, RtgpuExecution::random, rng.next_u64()) ? 1 : 0;
    }
    EXPECT_EQ(points[p].accepted, expected) << o.utilizations[p];
    EXPECT_EQ(points[p].simulated, simulated) << o.utilizations[p];
    differs += points[p].accepted != worst[p].accepted || points[p].simulated != worst[p].simulated ? 1 : 0;
  }
  EXPECT_GT(differs, 0);  // the mode changes something on these sets
}

// Every set the analysis accepts meets its deadlines on the simulator (the bounds are sound), so
// the simulated share is never below the analysis's; at U = 3 the simulator misses too.
TEST(RtgpuSweep, SimulatedNeverBelowTheAnalysis) {
  RtgpuSweepOptions o = small();
  o.utilizations = {0.6, 1.0, 1.6, 3.0};
  o.simulate_jobs = 10;
  const auto points = run_rtgpu_sweep(o);
  for (std::size_t p = 0; p < points.size(); ++p) {
    for (int j = 0; j < o.sets_per_point; ++j) {
      Rng rng(0);
      const RtgpuSystem s = draw_set(o, p, j, rng);
      const RtgpuResult a = analyse_rtgpu(s, {RtgpuMethod::rtgpu, o.search});
      if (a.schedulable) {
        EXPECT_TRUE(rtgpu_simulated_schedulable(s, a, o.simulate_jobs)) << p << " " << j;
      }
    }
    EXPECT_GE(points[p].simulated, points[p].accepted[0]) << o.utilizations[p];
  }
  EXPECT_GT(points[0].accepted[0], 0);  // the implication above was exercised
  EXPECT_LT(points[3].simulated, 12);
  const std::string csv = to_csv(points, o);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "utilization,sets,rtgpu,self-suspension,stgm,gcaps-rr,simulated");
}

// Column throughput_gain: a serial recount of point 1, the mean eq. (10) gain of the RTGPU
// allocation over the sets RTGPU accepts; a point where it accepts none shows an empty field.
TEST(RtgpuSweep, ThroughputGainIsTheMeanOverAcceptedSets) {
  RtgpuSweepOptions o = small();
  o.throughput_gain = true;
  o.utilizations.push_back(50);  // no set is schedulable at U = 50 on 10 SMs
  const auto points = run_rtgpu_sweep(o);
  double sum = 0;
  int accepted = 0;
  for (int j = 0; j < o.sets_per_point; ++j) {
    Rng rng(0);
    const RtgpuSystem s = draw_set(o, 1, j, rng);
    const RtgpuResult r = analyse_rtgpu(s, {RtgpuMethod::rtgpu, o.search});
    if (!r.schedulable) continue;
    std::vector<int> sms;
    for (const RtgpuTaskResult& t : r.tasks) sms.push_back(t.physical_sms);
    sum += rtgpu_throughput_gain(s, sms);
    ++accepted;
  }
  ASSERT_GT(accepted, 0);
  EXPECT_DOUBLE_EQ(points[1].throughput_gain, sum / accepted);
  // The generator's α are 1.45, 1.7, 1.7 or 1.8: each task gains between 2/1.8 - 1 and 2/1.45 - 1,
  // weighted by its share of the SMs (at most 1 in all).
  EXPECT_GT(points[1].throughput_gain, 0.0);
  EXPECT_LT(points[1].throughput_gain, 2 / 1.45 - 1);
  EXPECT_TRUE(std::isnan(points[3].throughput_gain));
  const std::string csv = to_csv(points, o);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "utilization,sets,rtgpu,self-suspension,stgm,gcaps-rr,throughput_gain");
  EXPECT_NE(csv.find("\n50,12,0,"), std::string::npos) << csv;
  EXPECT_EQ(csv.substr(csv.size() - 2), ",\n") << csv;  // U = 50: the gain's field is empty
  o.methods = {RtgpuMethod::stgm};
  EXPECT_THROW(run_rtgpu_sweep(o), Error);
}

}  // namespace
}  // namespace gpurt
