// FFT/SMLP case study on the simulator: the §III-C profiler's numbers by hand, the profiler →
// gpurt/smlp@1 → analysis pipeline against Lemma 2 computed by hand, BE and SMLP runs of the
// §IV experiment, and the reduced experiment grid with no bound violation (Observation IV-2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/fft_profile.hpp"
#include "gpurt/exp/fft_sweep.hpp"
#include "gpurt/model/placements.hpp"
#include "gpurt/sim/fft_sim.hpp"

using namespace gpurt;

namespace {
// The exact hand computations below use the ideal performance model (only the cuFFT model's own
// interference factor); the calibrated preset is tested at the end of this file.
const Platform& rtx3060ti() {
  static const Platform p = [] {
    Platform q = *find_platform_preset("rtx3060ti");
    q.model = PerfParams{};
    return q;
  }();
  return p;
}

// 2^22 on the RTX 3060 Ti by hand: serial 3500 + 182800/4 = 49200 ns, 256 blocks of 14290 ns
// (test_cufft_model); with another kernel resident every block runs ceil(1.05·t): 51660 and
// 15005 ns.
Nanos l22(int k) { return Nanos{51'660 + 15'005 * ((256 + 2 * k - 1) / (2 * k))}; }
}  // namespace

TEST(FftProfileSim, WorstOfTheRunsIsTheModelSlowedByInterference) {
  FftProfileOptions o;
  o.runs = 3;
  const std::vector<Nanos> l = profile_fft_size_sim(rtx3060ti(), 22, o);
  ASSERT_EQ(l.size(), 19u);
  EXPECT_EQ(l[0], Nanos{1'972'300});
  for (int k = 1; k <= 18; ++k) EXPECT_EQ(l[static_cast<std::size_t>(k - 1)], l22(k)) << "k = " << k;
  // k = H: no unit left for interference, so no slowdown: 49200 + 7·14290.
  EXPECT_EQ(l[18], Nanos{49'200 + 7 * 14'290});
}

TEST(FftProfilePlacements, OffsetsSpreadEvenlyFromTheFirstUnitsToTheLast) {
  EXPECT_EQ(placement_offsets(19, 4, 1), (std::vector<int>{0}));
  // 16 sets of 4 units; three of them: 0, round(7.5) = 8 and 15.
  EXPECT_EQ(placement_offsets(19, 4, 3), (std::vector<int>{0, 8, 15}));
  EXPECT_EQ(placement_offsets(19, 17, 0), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(placement_offsets(19, 17, 5), (std::vector<int>{0, 1, 2}));  // only 3 sets exist
  EXPECT_EQ(placement_offsets(19, 19, 0), (std::vector<int>{0}));
  EXPECT_EQ(placement_offsets(19, 1, 0).size(), 19u);
  EXPECT_THROW(placement_offsets(19, 20, 1), Error);
  EXPECT_THROW(placement_offsets(19, 0, 1), Error);
  EXPECT_THROW(placement_offsets(19, 4, -1), Error);
}

TEST(FftProfileSim, AnotherUnitSetOfTheSameSizeRunsTheSameTimeWithTheRestInterfering) {
  // The model's units are identical, so the last k units give the first k units' times by hand
  // -- as long as the interferer holds exactly the units the FFT does not (were it left on
  // units k..H-1 it would share the FFT's units and slow it).
  FftProfileRunOptions run;
  run.kernels = cufft_kernels(CufftShape{22, 1}, rtx3060ti());
  run.runs = 2;
  for (int k : {1, 4, 9}) {
    run.units = k;
    run.first_unit = 19 - k;
    for (const Nanos t : simulate_fft_profile_runs(rtx3060ti(), run)) EXPECT_EQ(t, l22(k)) << "k = " << k;
  }
  run.units = 4;
  run.first_unit = 16;  // units 16..19: one past the last
  EXPECT_THROW(simulate_fft_profile_runs(rtx3060ti(), run), Error);
}

TEST(FftProfileSim, EveryPlacementKeepsTheWorstAndReportsItsSpread) {
  FftProfileOptions o;
  o.runs = 2;
  o.placements = 0;
  std::vector<PlacementSpread> spreads;
  const std::vector<Nanos> l = profile_fft_size_sim(rtx3060ti(), 22, o, &spreads);
  ASSERT_EQ(spreads.size(), 19u);
  for (int k = 1; k <= 18; ++k) {
    const PlacementSpread& s = spreads[static_cast<std::size_t>(k - 1)];
    EXPECT_EQ(l[static_cast<std::size_t>(k - 1)], l22(k)) << "k = " << k;
    EXPECT_EQ(s.units, k);
    EXPECT_EQ(s.placements, 20 - k);  // every contiguous set of k of the 19 units
    EXPECT_EQ(s.best, l22(k));
    EXPECT_EQ(s.worst, l22(k));
  }
  o.log2_sizes = {22};
  o.placements = 2000;
  try {
    profile_fft_sim(rtx3060ti(), o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "placements");
  }
}

TEST(FftProfileSim, ProfiledFileParsesAndItsBoundsAreLemma2ByHand) {
  FftProfileOptions o;
  o.log2_sizes = {22};
  o.copies = 3;
  o.runs = 2;
  const SmlpSystem profiled = profile_fft_sim(rtx3060ti(), o);
  // Through the file format and back, as `gpurt analyze smlp` reads it.
  const SmlpSystem system = parse_smlp_system(to_json(profiled), "fft.json");
  ASSERT_EQ(system.tasks.size(), 3u);
  EXPECT_EQ(system.tasks[1].name, "fft_2^22_2");
  EXPECT_EQ(system.tasks[0].wcet_by_units[2], l22(3));
  const SmlpResult r = analyse_smlp(system);
  // Eq. (4), ρ = 1.1: A(1) = 1972300, A(2) = 2·1011980 = 2023960, A(3) = 3·696875 = 2090625,
  // A(4) = 4·531820 = 2127280 <= 2169530 < A(5) = 5·441790 = 2208950, so S_i = {1,2,3,4};
  // L_max = L(1) (the largest WCET over S_i), A_max = A(4). Lemma 2 with two other tasks and
  // H = 19: 1972300 + ceil(2·2127280/19) = 1972300 + 223925.
  for (const SmlpTaskResult& t : r.tasks) {
    EXPECT_EQ(t.allowed_units, (std::vector<int>{1, 2, 3, 4}));
    EXPECT_EQ(t.l_max, Nanos{1'972'300});
    EXPECT_EQ(t.a_max, Nanos{2'127'280});
    EXPECT_EQ(t.response_bound, Nanos{2'196'225});
  }
}

TEST(FftProfileSim, RejectsBadOptionsNamingThem) {
  FftProfileOptions o;
  o.log2_sizes = {29};
  EXPECT_THROW(profile_fft_sim(rtx3060ti(), o), InputError);
  o.log2_sizes = {20};
  o.runs = 0;
  try {
    profile_fft_sim(rtx3060ti(), o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "runs");
  }
  o.runs = 1;
  o.rho = 0.5;
  EXPECT_THROW(profile_fft_sim(rtx3060ti(), o), InputError);
}

TEST(FftTasksSim, OneTaskRunsTheModelTimeUnderBothPolicies) {
  FftTasksOptions t;
  t.kernels = cufft_kernels({22, 1}, rtx3060ti());
  t.allowed = {1, 2, 3};
  t.jobs = 3;
  t.policy = FftPolicy::best_effort;
  const FftTasksResult be = simulate_fft_tasks(rtx3060ti(), t);
  ASSERT_EQ(be.responses.size(), 3u);
  // Alone on all 38 SMs: 49200 + ceil(256/38)·14290; no other kernel, so no slowdown.
  EXPECT_EQ(be.responses[0], Nanos{49'200 + 7 * 14'290});
  EXPECT_EQ(be.makespan, Nanos{3 * (49'200 + 7 * 14'290)});
  t.policy = FftPolicy::smlp;
  const FftTasksResult sm = simulate_fft_tasks(rtx3060ti(), t);
  // The SMLP grants the largest allowed size, 3 units = 6 SMs: 49200 + 43·14290.
  EXPECT_EQ(sm.granted, (std::vector<int>{3, 3, 3}));
  EXPECT_EQ(sm.responses[0], Nanos{49'200 + 43 * 14'290});
}

TEST(FftTasksSim, SmlpQueuesInFifoOrderOnceTheUnitsRunOut) {
  // Seven tasks of S = {1,2,3} on 19 units: six get 3 units, the seventh the last free unit.
  FftTasksOptions t;
  t.kernels = cufft_kernels({22, 1}, rtx3060ti());
  t.allowed = {1, 2, 3};
  t.tasks = 7;
  t.jobs = 1;
  const FftTasksResult r = simulate_fft_tasks(rtx3060ti(), t);
  EXPECT_EQ(r.granted, (std::vector<int>{3, 3, 3, 3, 3, 3, 1}));
  // The seventh runs on one unit: at most the profiled L(1) (slowed throughout), at least the
  // model's time on one unit without interference (49200 + 128·14290).
  const Nanos worst = *std::max_element(r.responses.begin(), r.responses.end());
  EXPECT_LE(worst, l22(1));
  EXPECT_GE(worst, Nanos{49'200 + 128 * 14'290});
}

// A reduced FFT sweep: two profile runs per size, `trials` trials of `jobs` jobs per point.
FftSweepOptions reduced_sweep(const Platform& p, std::vector<int> sizes, std::vector<int> tasks, int jobs) {
  FftSweepOptions o;
  o.platform = p;
  o.log2_sizes = std::move(sizes);
  o.task_counts = std::move(tasks);
  o.trials = 2;
  o.jobs = jobs;
  o.profile.runs = 2;
  return o;
}

TEST(FftSweepSim, ReducedGridHasNoBoundViolationAndSaysSimulated) {
  // The calibrated model: Lemma 2 must hold.
  const FftSweepOptions o = reduced_sweep(*find_platform_preset("rtx3060ti"), {14, 20, 22}, {1, 3, 7, 21}, 4);
  const SweepOutcome out = run_sweep(fft_sweep_experiment(o), SweepRunOptions{});
  ASSERT_EQ(out.rows.size(), 12u);
  for (const auto& row : out.rows) {
    // point, points, backend, log2_size, samples, tasks, allowed, jobs, be_avg, be_max,
    // smlp_avg, smlp_max, bound, be_tp, smlp_tp, be_rt_tp, smlp_rt_tp, violations
    ASSERT_EQ(row.size(), 18u);
    EXPECT_EQ(row[2], "simulated");
    EXPECT_EQ(std::stod(row[7]), 2.0 * o.jobs * std::stod(row[5]));
    EXPECT_LE(std::stod(row[11]), std::stod(row[12])) << "2^" << row[3] << ", N = " << row[5];
    EXPECT_EQ(row[17], "0");
    EXPECT_GT(std::stod(row[13]), 0.0);
  }
  // 2^14 may use one unit only (Table I); N = 1 under BE runs alone on the whole GPU.
  EXPECT_EQ(out.rows[0][6], "1");
  EXPECT_EQ(out.rows[8][6], "1 2 3");  // Table I
}

// The two throughputs of Fig. 7. One trial: the seed's (samples over the aggregate response
// time) is N x samples / the mean response, by hand from the row's own mean; one task with no
// host gap runs its jobs back to back from time 0, so its makespan is its summed responses and
// both throughputs agree. At N = 7 they part: the makespan waits for the task the greedy grant
// leaves one unit, the mean does not (docs/fft.md "Two readings of throughput").
TEST(FftSweepSim, SeedThroughputIsTasksTimesSamplesOverTheMeanResponse) {
  FftSweepOptions o = reduced_sweep(*find_platform_preset("rtx3060ti"), {22}, {1, 7}, 20);
  o.trials = 1;
  o.max_gap = Nanos{0};
  const SweepOutcome out = run_sweep(fft_sweep_experiment(o), SweepRunOptions{});
  ASSERT_EQ(out.rows.size(), 2u);
  for (const auto& row : out.rows) {
    const double n = std::stod(row[5]), samples = std::stod(row[4]);
    // The mean is printed to the nanosecond: within 1e-5 relative.
    const double be = n * samples / std::stod(row[8]), smlp = n * samples / std::stod(row[10]);
    EXPECT_NEAR(std::stod(row[15]), be, be * 1e-5) << "BE, N = " << n;
    EXPECT_NEAR(std::stod(row[16]), smlp, smlp * 1e-5) << "SMLP, N = " << n;
  }
  const auto& one = out.rows[0];
  EXPECT_NEAR(std::stod(one[15]), std::stod(one[13]), 0.01);
  EXPECT_NEAR(std::stod(one[16]), std::stod(one[14]), 0.01);
  const auto& seven = out.rows[1];
  EXPECT_LT(std::stod(seven[14]), std::stod(seven[13]));  // makespan: SMLP below BE
  EXPECT_GT(std::stod(seven[16]), std::stod(seven[15]));  // the seed's: SMLP above BE
}

// Both throughputs are per-trial values averaged over the trials (§IV-A: "calculated per-trial";
// Obs. IV-3: "average throughput"), not one value of the pooled jobs: a point of two trials gives
// the mean of the two one-trial points, and its per-response reading differs from N x samples over
// the pooled mean response (the trials' means differ, so the mean of 1/x is above 1/mean).
TEST(FftSweepSim, ThroughputsAreAveragedOverTrials) {
  FftSweepOptions o = reduced_sweep(*find_platform_preset("rtx3060ti"), {22}, {7}, 10);
  o.max_gap = Nanos{400'000};  // trials that differ
  const SweepExperiment e = fft_sweep_experiment(o);
  const SweepItem first = e.run_item(0, 0), second = e.run_item(0, 1);
  const auto both = e.finish_point(0, {first, second});
  const auto a = e.finish_point(0, {first});
  const auto b = e.finish_point(0, {second});
  // value columns: allowed, jobs, be_avg, be_max, smlp_avg, smlp_max, bound, be_tp, smlp_tp,
  // be_rt_tp, smlp_rt_tp, violations
  for (std::size_t c : {7u, 8u, 9u, 10u})
    EXPECT_NEAR(std::stod(both[c]), (std::stod(a[c]) + std::stod(b[c])) / 2, 0.0011) << "column " << c;
  for (std::size_t avg : {2u, 4u}) {
    EXPECT_NE(a[avg], b[avg]);  // the trials differ
    EXPECT_NEAR(std::stod(both[avg]), (std::stod(a[avg]) + std::stod(b[avg])) / 2, 0.0011);  // same jobs each
  }
  const double samples = std::ldexp(1.0, 22), n = 7;
  for (std::size_t c : {9u, 10u}) {
    const double pooled = n * samples / std::stod(both[c == 9 ? 2 : 4]);  // samples/us = Msps
    // BE's trials differ by several per cent here (8.5 Msps apart), SMLP's barely (0.01).
    EXPECT_GT(std::stod(both[c]) - pooled, c == 9 ? 1.0 : -0.001)
        << "column " << c << ": " << both[c] << " vs " << pooled;
  }
}

// The calibrated preset reproduces the two rows its cuFFT constants were fitted to (Example 1:
// L(1) = 9101 µs, L(4) = 2501 µs; cufft_model.hpp "Fit") and predicts the rest of Table I's RTX
// 3060 Ti row: 14 of 15 sizes as the seed; 2^20 gets {1,2} (seed {1,2,3}), a held-out miss that
// docs/validation.md shows.
TEST(FftProfileSim, CalibratedPresetFitsExample1AndPredictsTableI) {
  const Platform& p = *find_platform_preset("rtx3060ti");
  FftProfileOptions o;
  o.runs = 3;
  const std::vector<Nanos> l24 = profile_fft_size_sim(p, 24, o);
  EXPECT_NEAR(static_cast<double>(l24[0].count()), 9'101'000, 1'000);
  EXPECT_NEAR(static_cast<double>(l24[3].count()), 2'501'000, 1'000);
  for (int size = 10; size <= 24; ++size) {
    const int seed_largest = size <= 17 ? 1 : size <= 19 ? 2 : size <= 23 ? 3 : 4;
    const int expected = size == 20 ? 2 : seed_largest;
    EXPECT_EQ(allowed_sizes_by_rho(profile_fft_size_sim(p, size, o), 1.1).back(), expected) << "2^" << size;
  }
}

// With fewer host cores than lock holders, an SMLP holder can see its job's end, and unlock, up to
// a slice late; the one-thread profile adds that slice to L(i,k), so Lemma 2 still bounds every
// simulated job (without it: 28 of 80 jobs above a 9.5 us bound at 2^12, N = 4, 2 cores).
TEST(FftSweepSim, HostContentionBelowTheLockHoldersKeepsLemma2) {
  Platform host = *find_platform_preset("rtx3060ti");
  host.model.host_cores = 2;
  host.model.host_slice_us = 500;
  const FftSweepOptions o = reduced_sweep(host, {12, 18}, {4, 21}, 10);
  const SweepOutcome out = run_sweep(fft_sweep_experiment(o), SweepRunOptions{});
  ASSERT_EQ(out.rows.size(), 4u);
  for (const auto& row : out.rows) {
    EXPECT_EQ(row[17], "0") << "2^" << row[3] << ", N = " << row[5];
    EXPECT_LE(std::stod(row[11]), std::stod(row[12])) << "2^" << row[3] << ", N = " << row[5];
    EXPECT_GT(std::stod(row[12]), 500.0);  // the bound holds the slice
  }
  // Enough cores for every holder (19 units): no slack, the profile is the plain one.
  FftProfileOptions po;
  po.runs = 2;
  Platform enough = o.platform;
  enough.model.host_cores = 19;
  EXPECT_EQ(profile_fft_size_sim(enough, 12, po),
            profile_fft_size_sim(*find_platform_preset("rtx3060ti"), 12, po));
}

// Host CPU contention (PerfParams::host_cores/host_slice_us; docs/simulator.md): 21 tasks on
// 19 cores. Under the SMLP at most 19 threads hold the lock (19 units) and spin; the others are
// suspended on it, so nothing changes. Under best effort all 21 spin, and a job's completion is
// seen up to one 1-ms slice late with probability 2/21.
TEST(FftTasksSim, HostContentionDelaysBestEffortThreadsButNotSuspendedSmlpWaiters) {
  FftTasksOptions t;
  t.kernels = cufft_kernels({22, 1}, rtx3060ti());
  t.allowed = {1, 2, 3};
  t.tasks = 21;
  t.jobs = 10;
  Platform host = rtx3060ti();
  host.model.host_cores = 19;
  host.model.host_slice_us = 1000;
  t.policy = FftPolicy::smlp;
  EXPECT_EQ(simulate_fft_tasks(host, t).responses, simulate_fft_tasks(rtx3060ti(), t).responses);
  t.policy = FftPolicy::best_effort;
  const FftTasksResult plain = simulate_fft_tasks(rtx3060ti(), t);
  const FftTasksResult late = simulate_fft_tasks(host, t);
  const Nanos plain_max = *std::max_element(plain.responses.begin(), plain.responses.end());
  const Nanos late_max = *std::max_element(late.responses.begin(), late.responses.end());
  // 210 jobs, ~20 of them seen late by U·1 ms: the worst is most of a slice more ...
  EXPECT_GT(late_max, plain_max + Nanos{500'000});
  EXPECT_LT(late_max, plain_max + Nanos{1'000'000} + Nanos{300'000});
  // ... and host_cores >= threads turns it off exactly.
  host.model.host_cores = 21;
  EXPECT_EQ(simulate_fft_tasks(host, t).responses, plain.responses);
}
