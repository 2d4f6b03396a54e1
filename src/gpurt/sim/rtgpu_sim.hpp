// RTGPU task systems (RTGPU seed §5) run on the block-level simulator: each task's kernels on
// its federated SMs (a stream with an SM mask), its CPU segments on one CPU under preemptive
// fixed priority, its copies on one copy engine under non-preemptive fixed priority -- the
// platform the seed's analysis (Lemmas 5.1-5.5, Theorem 5.6) models. See docs/rtgpu.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/model/rtgpu_task.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

enum class RtgpuExecution {
  worst,   ///< every segment at its upper bound; kernels: GL^, then GW^·α on the 2GN_i virtual SMs
  random,  ///< CPU and copy lengths uniform in [lo, hi]; GW in [lo, hi], α in [1, α], GL in [0, GL^]
};

struct RtgpuSimOptions {
  /// GN_i, physical SMs of each task (file order), e.g. analyse_rtgpu's allocation. Each >= 1,
  /// Σ GN_i <= the platform's SMs; task i gets the consecutive SMs after those of tasks < i.
  std::vector<int> physical_sms;
  std::int64_t jobs = 50;  ///< jobs released per task (>= 1)
  /// Per task (file order), replacing `jobs` when not empty (report: ceil(horizon / T_i)).
  std::vector<std::int64_t> jobs_per_task;
  RtgpuExecution execution = RtgpuExecution::worst;
  bool random_offsets = false;  ///< first release uniform in [0, T_i) instead of all at 0
  double sporadic_jitter = 0;   ///< release gaps T_i·(1 + U(0, jitter)); 0: periodic
  std::uint64_t seed = 1;       ///< for offsets, jitter and random lengths
  /// Release no more jobs once one has missed its deadline (the jobs released still run): for a
  /// yes/no answer, which it leaves unchanged, at a fraction of the time and memory.
  bool until_first_miss = false;
};

struct RtgpuTaskSim {
  std::string name;
  int first_sm = 0, physical_sms = 0;  ///< the task's SMs: [first_sm, first_sm + physical_sms)
  std::int64_t jobs = 0;               ///< completed jobs
  Nanos worst{0}, best{0}, mean{0};    ///< end-to-end response times (release → last CPU segment)
  std::int64_t deadline_misses = 0;
};

struct RtgpuSimResult {
  std::vector<RtgpuTaskSim> tasks;  ///< in file order
  /// Kernels that did not end exactly their planned span after launch (the overhead GL and
  /// the parallel part). 0 unless the federated SMs were not dedicated after all.
  std::int64_t late_kernels = 0;
  /// Copies that did not end exactly their length after the bus arbiter issued them (0: the
  /// copy engine was free whenever the arbiter issued a copy).
  std::int64_t late_copies = 0;
  SimStats stats;  ///< of the GPU simulation
};

/// Simulates `options.jobs` jobs of every task of `system` and returns the observed response
/// times. Throws gpurt::Error on bad options (allocation size, SMs, jobs, jitter).
RtgpuSimResult simulate_rtgpu(const RtgpuSystem& system, const RtgpuSimOptions& options);

}  // namespace gpurt
