// The simulated check of issue 8: generated RTGPU systems (RTGPU seed §6.1 generator, varied
// sizes) that the analysis accepts are run on the block-level simulator (sim/rtgpu_sim.hpp)
// with the analysis's federated allocation; no observed response may exceed its Theorem 5.6
// bound or fall below the analysis's lower bound. Parallel over systems (oneTBB); the result
// depends only on the options, never on the number of threads. All numbers are simulated.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/core/time.hpp"

namespace gpurt {

struct RtgpuSimCheckOptions {
  int sets = 300;          ///< systems generated; the schedulable ones are simulated
  std::uint64_t seed = 1;  ///< system j is drawn from Rng(seed).fork(j)
  std::int64_t jobs = 20;  ///< jobs per task in each run
  int threads = 0;         ///< 0: oneTBB's default
};

/// The runs every schedulable system gets.
inline constexpr std::array<const char*, 3> kRtgpuSimRuns = {
    "worst-sync",      // every segment at its upper bound, all tasks released at 0
    "worst-offsets",   // upper bounds, first releases uniform in [0, T_i)
    "random-sporadic"  // lengths uniform in [lo, hi], random offsets, gaps T_i·(1 + U(0, 0.3))
};

struct RtgpuSimCheckTask {
  int set = 0;
  std::string task;
  int physical_sms = 0;
  int segments = 0;                       ///< m_i, CPU segments (m_i = 1: a CPU-only task)
  Nanos bound{0}, lower{0}, deadline{0};  ///< Theorem 5.6 (min(R1, R2)), lower bound, D_i
  std::array<Nanos, 3> observed{};        ///< largest response in each run (kRtgpuSimRuns)
  double tightness = 0;                   ///< max over runs of observed / bound
};

struct RtgpuSimCheckViolation {
  int set = 0;
  std::string task, run;
  Nanos observed{0}, bound{0}, lower{0};
  std::string system;  ///< the system as a gpurt/rtgpu@1 document
};

struct RtgpuSimCheckResult {
  int generated = 0, schedulable = 0;
  std::vector<RtgpuSimCheckTask> tasks;            ///< by set, then file order
  std::vector<RtgpuSimCheckViolation> violations;  ///< observed > bound or < lower
  std::int64_t late_kernels = 0, late_copies = 0;  ///< see RtgpuSimResult (must be 0)
};

RtgpuSimCheckResult run_rtgpu_simcheck(const RtgpuSimCheckOptions& options);

/// CSV, one row per task: set,task,sms,segments,bound_ms,lower_ms,deadline_ms,<run>_ms...,tightness.
std::string to_csv(const RtgpuSimCheckResult& result);

/// min / median / max of the tasks' tightness (0s when there are none).
std::array<double, 3> tightness_summary(const RtgpuSimCheckResult& result);

}  // namespace gpurt
