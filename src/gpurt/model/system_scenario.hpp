// A gpurt/system@1 task system as an examiner-style scenario (issue 18): what `gpurt bench
// SYSTEM` runs on the GPU (or the simulator), so a measured run of the system can be put beside
// the report's simulated figures (docs/report.md "Benchmarking a system").
#pragma once

#include "gpurt/core/time.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/model/system.hpp"

namespace gpurt {

/// One "stream_action" instance per task (label and log name: the task's name), released at 0
/// with period T (tasks without a period: their deadline), max_iterations = the jobs released in
/// [0, horizon). A job's segments become host actions: CPU work [lo, hi] a host sleep of hi
/// before the next call (after a stream synchronize when GPU work precedes it), h2d/d2h copies
/// an asynchronous memcpy of hi · sim.copy_bandwidth bytes, a kernel a timer_spin launch of its
/// grid (blocks × threads, shared memory, registers) whose blocks each spin C / waves, C being
/// kernel_whole_gpu_wcet and waves = ceil(blocks / blocks resident on the whole GPU at once)
/// (kernels without a shape: sms · floor(max_threads / b) blocks of b = min(max_threads,
/// max_threads_per_block) threads, one wave). Throws InputError
/// (naming `file` and the task) for a task without period or deadline, a kernel without a C, or
/// a horizon <= 0.
Scenario system_scenario(const System& system, Nanos horizon, const std::string& file);

}  // namespace gpurt
