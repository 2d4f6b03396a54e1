// Closed-loop network tasks (sim/nn_sim.hpp, Dissertation §6.2-6.3): hand-computed timelines of the
// workload model, the k-exclusion lock, partitions and the §6.1.3 layouts. All figures simulated.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpurt/core/error.hpp"
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

NnSimOptions quiet(NnManagement m) {  // no CPU jitter: every timeline below is exact
  NnSimOptions o;
  o.management = m;
  o.model.cpu_jitter = 0;
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

// An exclusive per-job lock between two identical closed-loop tasks alternates them: after the
// first job each job waits for the other's whole job, so every measured job takes 2J.
TEST(NnSim, ExclusiveLockAlternatesTwoTasks) {
  NnSimOptions o = quiet(NnManagement::k_exclusion);
  o.k = 1;
  const NnSimResult r = simulate_nn(radeon(), copies("small", 2), o);
  const double j = static_cast<double>(us_mobilenet_workload("small").job_time.count());
  EXPECT_NEAR(static_cast<double>(r.measured.min.count()), 2 * j, 40'000);
  EXPECT_NEAR(static_cast<double>(r.measured.max.count()), 2 * j, 40'000);
  EXPECT_EQ(r.tasks[0].jobs, r.tasks[1].jobs);
  // Two slots: no waiting, and small kernels (8 blocks) do not meet on the CUs.
  o.k = 2;
  const NnSimResult two = simulate_nn(radeon(), copies("small", 2), o);
  EXPECT_NEAR(static_cast<double>(two.measured.max.count()), j, 20'000);
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
  o.max_jobs = 5;
  EXPECT_THROW(simulate_nn(radeon(), copies("small", 1), o), Error);
  EXPECT_THROW(us_mobilenet_workload("huge"), Error);
}

}  // namespace
}  // namespace gpurt::test
