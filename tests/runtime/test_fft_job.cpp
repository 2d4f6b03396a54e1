// The FFT job of FFT/SMLP Algorithm 1 on a real GPU. Skips, with the probe's reason, where no
// GPU is visible; scripts/gpu-check runs it on a GPU machine (where it must not skip).
#include <gtest/gtest.h>

#include <algorithm>

#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/runtime/fft_job.hpp"
#include "gpurt/runtime/partition.hpp"

using namespace gpurt;

#define GPURT_SKIP_WITHOUT_GPU()                                           \
  do {                                                                     \
    const ProbeResult probe = probe_gpus();                                \
    if (probe.devices.empty()) GTEST_SKIP() << "no GPU: " << probe.reason; \
  } while (false)

TEST(FftJobGpu, BestEffortRunsEveryJobOfEveryTask) {
  GPURT_SKIP_WITHOUT_GPU();
  FftGpuTasksOptions o;
  o.log2_size = 16;
  o.tasks = 2;
  o.jobs = 5;
  o.smlp = false;
  const FftGpuTasksResult r = run_fft_tasks_gpu(o);
  ASSERT_EQ(r.responses.size(), 10u);
  for (Nanos t : r.responses) EXPECT_GT(t.count(), 0);
  EXPECT_TRUE(r.granted.empty());
  EXPECT_GE(r.makespan, *std::max_element(r.responses.begin(), r.responses.end()));
}

// --gpu-copies once: each task copies once, so its jobs are the FFTs alone; and with S_i = {1}
// every unit set the lock can grant was warmed before the start (a first grant cost 10-80 ms on
// an H200), in this call or an earlier one of the process. Not yet run on a GPU.
TEST(FftJobGpu, CopiesOnceAndEveryGrantableSetWarm) {
  GPURT_SKIP_WITHOUT_GPU();
  FftGpuTasksOptions o;
  o.log2_size = 16;
  o.tasks = 3;
  o.jobs = 4;
  o.allowed = {1};
  o.copy_each_job = false;
  for (int call = 0; call < 2; ++call) {
    const FftGpuTasksResult r = run_fft_tasks_gpu(o);
    ASSERT_EQ(r.responses.size(), 12u);
    for (int g : r.granted) EXPECT_EQ(g, 1);
    EXPECT_EQ(r.cold_grants, 0) << "call " << call;
  }
}

TEST(FftJobGpu, SmlpGrantsAllowedSizesAndProfilesEveryUnitCount) {
  GPURT_SKIP_WITHOUT_GPU();
  FftGpuTasksOptions o;
  o.log2_size = 18;
  o.tasks = 3;
  o.jobs = 4;
  o.allowed = {1, 2};
  const FftGpuTasksResult r = run_fft_tasks_gpu(o);
  ASSERT_EQ(r.granted.size(), 12u);
  for (int g : r.granted) EXPECT_TRUE(g == 1 || g == 2) << g;
  const SmlpSystem s = profile_fft_gpu({14}, 1, 3, 1, 1.1, 0);
  ASSERT_EQ(s.tasks.size(), 1u);
  EXPECT_EQ(static_cast<int>(s.tasks[0].wcet_by_units.size()), s.platform.units());
  for (Nanos t : s.tasks[0].wcet_by_units) EXPECT_GT(t.count(), 0);
}
