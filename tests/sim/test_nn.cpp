// Closed-loop network tasks (sim/nn_sim.hpp, Dissertation §6.2-6.3): hand-computed timelines of the
// workload model, the k-exclusion lock, partitions and the §6.1.3 layouts. All figures simulated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpurt/core/error.hpp"
#include "gpurt/exp/nn_sweep.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/sim/nn_sim.hpp"

namespace gpurt::test {
namespace {

Platform radeon() { return *find_platform_preset("radeon-vii"); }
Platform radeon_ideal() {
  Platform p = radeon();
  p.model = {};
  return p;
}

NnSimOptions quiet(NnManagement m) {  // no CPU jitter, host stall or hand-off: every timeline is exact
  NnSimOptions o;
  o.management = m;
  o.model.cpu_jitter = 0;
  o.model.stall_probability = 0;
  o.model.lock_handoff = Nanos{0};
  o.duration = Nanos{500'000'000};
  return o;
}

std::vector<NnTaskSpec> copies(const std::string& name, int n) {
  return std::vector<NnTaskSpec>(static_cast<std::size_t>(n),
                                 NnTaskSpec{us_mobilenet_workload(name), {}, true});
}

int count(const std::vector<bool>& v) { return static_cast<int>(std::count(v.begin(), v.end(), true)); }

// Alone on the whole GPU a job takes Table 5.2's job time: block times are solved for it, with
// the calibrated model (memory contention included) as without it.
TEST(NnSim, AloneAJobTakesTable52sJobTime) {
  for (const Platform& p : {radeon(), radeon_ideal()}) {
    for (const NnWorkload& w : us_mobilenet_workloads()) {
      const NnSimResult r = simulate_nn(p, copies(w.name, 1), quiet(NnManagement::unmanaged));
      ASSERT_GT(r.measured.jobs, 10);
      EXPECT_NEAR(static_cast<double>(r.measured.max.count()), static_cast<double>(w.job_time.count()),
                  20'000)
          << w.name;
      EXPECT_EQ(r.measured.min, r.measured.max) << w.name;
    }
  }
}

// Without the memory model a medium kernel's 60 CU-filling blocks take 4 waves on 15 CUs, so a
// job is its CPU time plus 4 x its kernel time: 4.139 + 4 x 4.904 = 23.755 ms.
TEST(NnSim, AQuarterOfTheCusQuadruplesTheKernelsOfTheIdealModel) {
  std::vector<NnTaskSpec> t = copies("medium", 1);
  t[0].cus = nn_partition(radeon_ideal(), 0, 15);
  const NnSimResult r = simulate_nn(radeon_ideal(), t, quiet(NnManagement::partitioned));
  EXPECT_NEAR(static_cast<double>(r.measured.mean_ns), 4'139'000 + 4 * 4'904'000.0, 20'000);
}

// The memory model is what makes 30 CUs nearly as fast as 60 (Table 6.3: 9.596 vs 8.994 ms):
// with it the half GPU costs the medium job less than a quarter more; without it, a whole kernel.
TEST(NnSim, MemoryBandwidthMakesHalfTheGpuNearlyAsFast) {
  for (const bool model : {true, false}) {
    const Platform p = model ? radeon() : radeon_ideal();
    std::vector<NnTaskSpec> t = copies("medium", 1);
    t[0].cus = nn_partition(p, 0, 30);
    const double half = simulate_nn(p, t, quiet(NnManagement::partitioned)).measured.mean_ns;
    const double whole = simulate_nn(p, copies("medium", 1), quiet(NnManagement::unmanaged)).measured.mean_ns;
    if (model)
      EXPECT_LT(half / whole, 1.05);
    else
      EXPECT_NEAR(half - whole, 4'904'000.0, 20'000);  // 2 waves instead of 1
  }
}

// An exclusive per-job lock between two identical closed-loop tasks alternates them. Both wait at
// §6.2.1.1's barrier after their warm-up jobs and then ask for the lock at once: the first
// measured job gets it at once and takes J, every later job waits for the other's whole job and
// takes 2J (the seed's locked minima are about one job for this reason).
TEST(NnSim, ExclusiveLockAlternatesTwoTasks) {
  NnSimOptions o = quiet(NnManagement::k_exclusion);
  o.k = 1;
  const NnSimResult r = simulate_nn(radeon(), copies("small", 2), o);
  const double j = static_cast<double>(us_mobilenet_workload("small").job_time.count());
  EXPECT_NEAR(static_cast<double>(r.measured.min.count()), j, 20'000);
  EXPECT_NEAR(static_cast<double>(r.measured.max.count()), 2 * j, 40'000);
  const auto n = static_cast<double>(r.measured.jobs);  // one job of J, the rest 2J
  EXPECT_NEAR(r.measured.mean_ns, (2 * j * n - j) / n, 40'000);
  EXPECT_EQ(r.tasks[0].jobs, r.tasks[1].jobs);
  // Two slots: no waiting, and small kernels (8 blocks) do not meet on the CUs.
  o.k = 2;
  const NnSimResult two = simulate_nn(radeon(), copies("small", 2), o);
  EXPECT_NEAR(static_cast<double>(two.measured.max.count()), j, 20'000);
}

// The per-job lock hand-off H: a task granted the lock after waiting for it starts H later. After
// the barrier the first job runs at once (J), the second waits for it and pays H (2J + H), and
// from then on every job waits out the other's J + H and pays its own H: 2J + 2H. A task alone
// never waits, so it never pays (Table 6.2: per-job locking alone costs nothing).
TEST(NnSim, ALockHandedOverStartsTheJobLater) {
  NnSimOptions o = quiet(NnManagement::k_exclusion);
  o.k = 1;
  const double h = 2'500'000;
  o.model.lock_handoff = Nanos{2'500'000};
  const NnSimResult r = simulate_nn(radeon(), copies("small", 2), o);
  const double j = static_cast<double>(us_mobilenet_workload("small").job_time.count());
  EXPECT_NEAR(static_cast<double>(r.measured.min.count()), j, 20'000);
  EXPECT_NEAR(static_cast<double>(r.measured.max.count()), 2 * j + 2 * h, 40'000);
  const auto n = static_cast<double>(r.measured.jobs);
  EXPECT_NEAR(r.measured.mean_ns, (j + (2 * j + h) + (n - 2) * (2 * j + 2 * h)) / n, 40'000);
  const NnSimResult alone = simulate_nn(radeon(), copies("small", 1), o);
  EXPECT_NEAR(static_cast<double>(alone.measured.max.count()), j, 20'000);
  // Two slots for two tasks: nobody waits, nobody pays.
  o.k = 2;
  EXPECT_NEAR(static_cast<double>(simulate_nn(radeon(), copies("small", 2), o).measured.max.count()), j,
              20'000);
}

// Only measured tasks count; the seed's 60 s, two warm-up jobs and the seed fix the bytes.
TEST(NnSim, CountsMeasuredTasksOnlyAndIsDeterministic) {
  std::vector<NnTaskSpec> t = copies("medium", 1);
  for (int i = 0; i < 3; ++i) t.push_back(NnTaskSpec{us_mobilenet_workload("large"), {}, false});
  NnSimOptions o;
  o.duration = Nanos{300'000'000};
  const NnSimResult a = simulate_nn(radeon(), t, o), b = simulate_nn(radeon(), t, o);
  EXPECT_EQ(a.measured.jobs, a.tasks[0].jobs);
  EXPECT_EQ(a.measured.max, b.measured.max);
  EXPECT_EQ(a.measured.mean_ns, b.measured.mean_ns);
  EXPECT_GT(a.measured.stddev_ns, 0);
  o.seed = 2;
  EXPECT_NE(simulate_nn(radeon(), t, o).measured.mean_ns, a.measured.mean_ns);
  // Large competitors slow the unpartitioned medium task (Table 6.3: 24.9 vs 9.0 ms).
  EXPECT_GT(a.measured.mean_ns, 2 * 9'043'000.0);
}

TEST(NnSim, PartitionsFollowSection613) {
  const Platform p = radeon();
  const auto per_se = [&](const std::vector<bool>& cus) {
    std::vector<int> n(4);
    for (std::size_t c = 0; c < cus.size(); ++c)
      if (cus[c]) ++n[c % 4];  // flat CU bit i lies on SE i % 4
    return n;
  };
  EXPECT_EQ(per_se(nn_partition(p, 0, 15)), (std::vector<int>{15, 0, 0, 0}));  // one SE
  EXPECT_EQ(per_se(nn_partition(p, 0, 20)), (std::vector<int>{5, 5, 5, 5}));   // SE-distributed
  EXPECT_EQ(count(nn_partition(p, 0, 30)), 30);
  EXPECT_EQ(per_se(nn_partition(p, 0, 30)), (std::vector<int>{15, 0, 15, 0}));  // SEs 0 and 2
}

// A host stall stretches the job's first CPU segment by U(0, stall): with a stall in every job
// of the medium task alone (ideal GPU: job time exactly 9.043 ms without it), each job lies in
// [9.043, 9.043 + 2] ms and the mean is about 9.043 + 1 ms.
TEST(NnSim, HostStallsStretchEachJobByAtMostTheStall) {
  NnSimOptions o = quiet(NnManagement::unmanaged);
  o.model.stall_probability = 1;
  o.model.stall = Nanos{2'000'000};
  o.duration = Nanos{2'000'000'000};
  const NnSimResult r = simulate_nn(radeon_ideal(), copies("medium", 1), o);
  ASSERT_GT(r.measured.jobs, 150);
  const double base = static_cast<double>(us_mobilenet_workload("medium").job_time.count());
  EXPECT_GE(static_cast<double>(r.measured.min.count()), base - 20'000);
  EXPECT_LE(static_cast<double>(r.measured.max.count()), base + 2'000'000 + 20'000);
  EXPECT_LT(static_cast<double>(r.measured.min.count()), base + 200'000);    // some stalls are short
  EXPECT_GT(static_cast<double>(r.measured.max.count()), base + 1'800'000);  // and some long
  EXPECT_NEAR(r.measured.mean_ns, base + 1'000'000, 150'000);
  EXPECT_NEAR(r.measured.stddev_ns, 2'000'000 / std::sqrt(12.0), 100'000);
}

// The stall is on the host, inside the lock: under an exclusive lock two tasks alternate, so a
// job waits out the other's job (its stall included) and then runs its own; each job's time
// grows by both stalls, D/2 + D/2 = D on average.
TEST(NnSim, AHostStallUnderTheLockDelaysTheWaiter) {
  NnSimOptions o = quiet(NnManagement::k_exclusion);
  o.k = 1;
  o.duration = Nanos{2'000'000'000};
  const NnSimResult without = simulate_nn(radeon_ideal(), copies("medium", 2), o);
  o.model.stall_probability = 1;
  o.model.stall = Nanos{4'000'000};
  const NnSimResult with = simulate_nn(radeon_ideal(), copies("medium", 2), o);
  EXPECT_NEAR(with.measured.mean_ns - without.measured.mean_ns, 4'000'000, 600'000);
}

// Stalls draw from a stream of their own: turning them on (at a vanishing probability, so no
// job stalls but every job draws) leaves the CPU jitter, hence every job time, unchanged.
TEST(NnSim, HostStallsDoNotMoveTheJitterDraws) {
  NnSimOptions o = quiet(NnManagement::unmanaged);
  o.model.cpu_jitter = 0.3;
  const NnSimResult off = simulate_nn(radeon(), copies("small", 2), o);
  o.model.stall_probability = 1e-15;
  o.model.stall = Nanos{5'000'000};
  const NnSimResult on = simulate_nn(radeon(), copies("small", 2), o);
  EXPECT_EQ(on.measured.jobs, off.measured.jobs);
  EXPECT_EQ(on.measured.min, off.measured.min);
  EXPECT_EQ(on.measured.max, off.measured.max);
  EXPECT_EQ(on.measured.mean_ns, off.measured.mean_ns);
}

// §6.2.2's per-kernel locking launches synchronously: each of the medium task's 104 kernels
// costs the launch (30 us) and the sync (30 us) on top of its 47.15 us, so a job alone takes
// 9.043 + 104 x 0.060 = 15.283 ms (Table 6.2: 16.88 measured against 9.74 unmanaged).
TEST(NnSim, PerKernelLockingPaysALaunchAndASyncPerKernel) {
  const NnSimResult r = simulate_nn(radeon_ideal(), copies("medium", 1), quiet(NnManagement::kernel_lock));
  ASSERT_GT(r.measured.jobs, 10);
  EXPECT_NEAR(static_cast<double>(r.measured.min.count()), 15'283'000, 20'000);
  EXPECT_EQ(r.measured.min, r.measured.max);
}

// With a second task the FIFO lock makes each kernel wait at most one hold of the other's. The
// seed takes the lock inside ihipModuleLaunchKernel, before enqueueing, so the launch's host
// work (30 us) is outside it and a hold is the kernel and the sync, 47.15 + 30 us: a job takes
// between 15.283 ms and 15.283 + 104 x 0.07715 = 23.307 ms (with the launch under the lock the
// bound would be 26.4 ms), and jobs are slower than alone.
TEST(NnSim, PerKernelLockingWaitsAtMostOneHoldPerKernel) {
  const NnSimResult r = simulate_nn(radeon_ideal(), copies("medium", 2), quiet(NnManagement::kernel_lock));
  ASSERT_GT(r.measured.jobs, 10);
  EXPECT_GE(static_cast<double>(r.measured.min.count()), 15'283'000 - 20'000);
  EXPECT_LE(static_cast<double>(r.measured.max.count()), 23'307'000 + 20'000);
  EXPECT_GT(r.measured.mean_ns, 15'283'000 + 1'000'000);
}

// `--tables 6.3:none` runs one competitor group of Table 6.3 (what scripts/fit-nn fits on).
TEST(NnSweep, SelectsOneCompetitorGroupOfTable63) {
  const std::vector<NnScenario> none = nn_scenarios({"6.3:none"});
  ASSERT_EQ(none.size(), 4u);
  for (const NnScenario& s : none) {
    EXPECT_EQ(s.table, "6.3");
    EXPECT_EQ(s.competitors, "none");
  }
  EXPECT_EQ(none[0].partition_cus, 15);
  EXPECT_EQ(none[3].partition_cus, 0);
  EXPECT_EQ(nn_scenarios({"6.3"}).size(), 16u);
  EXPECT_EQ(nn_scenarios({"6.1", "6.3:large"}).size(), 19u);
  EXPECT_EQ(nn_scenarios({"6.2"}).size(), 6u);  // alone / one medium x three managements
  EXPECT_THROW(nn_scenarios({"6.3:huge"}), Error);
  EXPECT_THROW(nn_scenarios({"6.4"}), Error);
}

TEST(NnSim, RejectsBadOptions) {
  NnSimOptions o = quiet(NnManagement::k_exclusion);
  o.k = 61;
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o.k = 2;
  o.slot_cus = {std::vector<bool>(60, false), std::vector<bool>(60, true)};
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o = quiet(NnManagement::partitioned);
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);  // no CU set
  o = quiet(NnManagement::unmanaged);
  o.model.cpu_jitter = 1.5;
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o.model.cpu_jitter = 0;
  o.model.stall_probability = 1.5;
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o.model.stall_probability = 0.5;
  o.model.stall = Nanos{-1};
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o.model.stall = Nanos{0};
  o.model.lock_handoff = Nanos{-1};
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o.model.lock_handoff = Nanos{0};
  o.sync_latency = Nanos{-1};
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  o.sync_latency = Nanos{0};
  o.max_jobs = 5;
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  EXPECT_THROW(us_mobilenet_workload("huge"), Error);
}

}  // namespace
}  // namespace gpurt::test
