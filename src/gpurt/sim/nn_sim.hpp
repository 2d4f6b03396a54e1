// Closed-loop neural-network tasks sharing one GPU (Dissertation §6.2-6.3): each task runs jobs
// back to back -- a serial host part, then the job's kernels, each launched asynchronously into
// the task's stream after some host time (PyTorch's host runs ahead of the GPU) -- under unmanaged
// sharing, a per-job k-exclusion lock (slots sharing the GPU or each on its own partition,
// §6.1.3), per-kernel locking or fixed CU partitions. The GPU is the block-level simulator
// (engine.hpp) with the platform's performance model.
//
// The workload model (docs/simulator.md "Neural-network tasks"): a job of a US-MobileNet V1 task
// (Table 5.2: batch b, width multiplier w) is `kernels` identical kernels whose blocks each fill
// one CU; a kernel has round(reference_blocks * b*w / (32*0.5)) blocks (a layer's activations,
// hence its parallelism, grow with batch x width), every block `memory_fraction` memory-bound.
// Block times are set so that a kernel alone on the whole GPU takes Table 5.2's mean kernel time
// over the kernels. The host: b x host_per_image before the first launch, launch_cpu before each
// launch (both fitted to all 15 rows of Table 5.2), so a job alone takes about
// b x host_per_image + max(kernels x launch_cpu, kernel time).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

/// One US-MobileNet V1 configuration (Dissertation §6.2.1.2, numbers from Table 5.2).
struct NnWorkload {
  std::string name;
  int batch = 0;
  double width = 0;      ///< width multiplier
  int kernels = 0;       ///< kernel launches per job (§5.2.2: 91 at full width, 104 narrower)
  Nanos kernel_time{0};  ///< mean total kernel time of a job in isolation (Table 5.2)
  Nanos job_time{0};     ///< mean job time in isolation (Table 5.2)
};

/// small (batch 8, width 0.25), medium (32, 0.5), large (64, 1.0).
const std::vector<NnWorkload>& us_mobilenet_workloads();
/// By name; throws gpurt::Error naming the known ones.
const NnWorkload& us_mobilenet_workload(std::string_view name);

/// How a job runs on the host and the GPU; the defaults are the fitted values (docs/simulator.md:
/// the host times to Table 5.2, the rest to five Table 6.3 numbers of the medium task alone and one
/// Table 6.2 mean, nothing else).
struct NnKernelModel {
  /// Blocks per kernel of the reference configuration (batch 32, width 0.5), >= 1.
  int reference_blocks = 60;
  /// The memory-bound part of every block, in [0, 1]; the platform's model.memory_bandwidth
  /// (in summed memory fractions of resident blocks) caps the device's bandwidth.
  double memory_fraction = 1.0;
  /// Memory phases of a job: the first round(memory_bound_kernels x kernels) kernels of a job
  /// have blocks memory_fraction memory-bound, the others late_memory_fraction, in [0, 1] both.
  /// MobileNet V1's early layers run on large activation maps with few channels (depthwise and
  /// narrow pointwise convolutions: little arithmetic per byte), its late layers on small maps
  /// with many channels (wide pointwise convolutions: much arithmetic per byte), so how much
  /// two tasks' jobs contend for memory depends on which of their layers meet. 1: every kernel
  /// memory_fraction, one phase (the model before 2026-11-27). Block times are solved per phase,
  /// so every kernel alone on the whole GPU still takes the job's mean kernel time. Fitted (scripts/fit-nn
  /// --stage phases) to two numbers, Table 6.3's medium task against three medium competitors on 15 CUs (mean
  /// and standard deviation), with radeon-vii's memory_bandwidth refitted to the four isolated means at each
  /// grid point: 0.7 and 0.0 (bandwidth 24).
  double memory_bound_kernels = 0.7;
  double late_memory_fraction = 0.0;
  /// Host time runs (1 + U(-cpu_jitter, cpu_jitter)) times its mean (seeded; the mean is kept),
  /// cpu_jitter in [0, 1]: with pipelined launches one draw a job scales all its host time (the
  /// job's host speed), otherwise one draw per CPU segment. Fitted (scripts/fit-nn --stage jitter):
  /// the medium task alone on the whole GPU, host-bound, then has Table 6.3's standard deviation,
  /// 0.572 ms (0.564 at 0.105).
  double cpu_jitter = 0.105;
  /// Rare host stalls (the seed's thin tails, Fig. 6.3; §5.2.3's unexplained CPU time): with
  /// probability stall_probability a job's first host part is stretched by U(0, stall), drawn
  /// from a stream of its own (so the jitter draws do not move with these parameters). A stall
  /// is host-side: it delays the job's launches (and, under a lock, the lock's release).
  /// Either 0: off. Fitted (scripts/fit-nn, stage 2) to Table 6.3's two isolated maxima at the
  /// ends of its range (15 CUs, whole GPU) at the seed's 60 s; every other maximum is held out.
  double stall_probability = 0.001;
  Nanos stall{11'000'000};
  /// Per-job lock hand-off (k-exclusion only): a task that asked for the lock while no slot was
  /// free, and so waited for another task to release one, starts its job this much later once
  /// granted, holding the slot. The seed's per-job locking costs more than whole jobs taking
  /// turns (Table 6.2: two medium tasks 23.03 ms against 2 x 9.85 alone; Table 6.1's locked small
  /// jobs about 9.75 ms against 6.91) while an uncontended lock costs "a few hundredths of a
  /// millisecond" (§6.2.2); the seed does not name the cause (candidates: waking the process
  /// that slept in the lock's ioctl, its first launch into a queue idle since its last job).
  /// Fitted (scripts/fit-nn, stage 3) to Table 6.2's per-job mean against one medium competitor
  /// alone (2.4 ms with a constant hand-off, 2.5 ms with the drawn one below); every other locked
  /// row is held out. 0: off.
  Nanos lock_handoff{2'500'000};
  /// Each hand-off takes lock_handoff x (1 + U(-j, j)), one draw per hand-off from a stream of its
  /// own (the jitter and stall draws do not move with it), j in [0, 1]; the mean stays
  /// lock_handoff. Waking a process that slept in the lock's ioctl and its first launch into a
  /// queue idle since its last job take no fixed time, so a constant cannot be right; the shape
  /// is the host jitter's (uniform, mean kept) at its widest that stays non-negative, j = 1:
  /// U(0, 2 lock_handoff). No parameter is fitted to spreads; the shape was kept after one check by
  /// hand on Table 6.1's medium exclusive standard deviation, which docs/validation.md therefore
  /// marks fitted (docs/simulator.md "Neural-network tasks"). 0: a constant hand-off.
  double lock_handoff_jitter = 1.0;
  /// Pipelined launches (PyTorch queues kernels asynchronously and the host runs ahead): when
  /// launch_cpu > 0, a job is a serial host part of host_per_image per image of its batch (input
  /// preparation and copy), then, before each of its kernels, launch_cpu of host time and the
  /// launch; kernels run in order as they arrive while the host goes on launching, and the job ends
  /// when its last kernel completes. So a job alone takes about S + max(kernels x launch_cpu,
  /// kernel time): the host's launch path hides a short GPU part and a long GPU part hides it.
  /// One jitter draw per job scales all its host time (cpu_jitter: the job's host speed); a stall
  /// stretches the serial part. 0: the CPU segments of the model above (job time minus kernel
  /// time, half before the kernels, half after, all kernels queued at once).
  Nanos launch_cpu{64'000};
  Nanos host_per_image{77'000};
};

/// The kernels of one job of `w` (blocks, block times of its two memory phases) under `model` on
/// `platform`: block times are solved so that each kernel alone on every CU takes
/// w.kernel_time / w.kernels, so a job alone on every CU spends w.kernel_time on the GPU.
struct NnKernelShape {
  int blocks = 0;
  Nanos block_time{0};       ///< the first early_kernels kernels of a job (memory_fraction)
  int early_kernels = 0;     ///< round(memory_bound_kernels x kernels)
  Nanos late_block_time{0};  ///< the others (late_memory_fraction)
};
NnKernelShape nn_kernel_shape(const NnWorkload& w, const NnKernelModel& model, const Platform& platform);

enum class NnManagement {
  unmanaged,    ///< every task's kernels may use every CU, no lock
  k_exclusion,  ///< a FIFO k-exclusion lock held for whole jobs (§6.1.2); slots share the GPU or
                ///< each runs on its own partition (§6.1.3)
  partitioned,  ///< each task runs on its own fixed CU set, no lock
  kernel_lock,  ///< §6.2.2's per-kernel locking: an exclusive FIFO lock taken inside each launch
                ///< call before the kernel is enqueued (the call's host work, launch_latency, comes
                ///< first, outside the lock) and released when the task has seen the kernel
                ///< complete (kernel, then sync_latency, under the lock): launches are synchronous
};

struct NnTaskSpec {
  NnWorkload workload;
  std::vector<bool> cus;  ///< partitioned: the task's CUs (one flag per CU); otherwise ignored
  bool measured = true;   ///< its jobs count in NnSimResult::measured
};

struct NnSimOptions {
  NnManagement management = NnManagement::unmanaged;
  int k = 1;                                ///< k_exclusion: slots, 1..CUs
  std::vector<std::vector<bool>> slot_cus;  ///< k_exclusion: slot s's CUs; empty: slots share the GPU
  Nanos duration{
      60'000'000'000};  ///< jobs that start this long after the barrier are measured (the seed: 60 s)
  /// Each task's first jobs are warm-ups, not measured; a task that has run them waits at a
  /// barrier until every task has, and the measured `duration` starts when the barrier opens,
  /// all tasks beginning a job at that instant (§6.2.1.1).
  int warmup_jobs = 2;
  std::uint64_t seed = 1;
  NnKernelModel model;
  std::int64_t max_jobs = 1'000'000;  ///< refuse runs that would complete more jobs
  /// kernel_lock: host time of a launch call before it enqueues the kernel, and from the
  /// kernel's end until the task sees it (hipStreamSynchronize returns). ASSUMED, not fitted: the
  /// 30 us the Table 4.1 examples assume for ROCm (examples/amd, "gpurt_sim").
  Nanos launch_latency{30'000};
  Nanos sync_latency{30'000};
};

/// Job times (start of the job, lock wait included, to its end) over the measured tasks.
struct NnJobStats {
  std::int64_t jobs = 0;
  Nanos min{0}, max{0};
  double mean_ns = 0, stddev_ns = 0;  ///< population standard deviation
};

struct NnSimResult {
  NnJobStats measured;            ///< all measured tasks' jobs together (Tables 6.1-6.3)
  std::vector<NnJobStats> tasks;  ///< per task, in input order
  SimStats stats;
};

/// Runs the tasks from time 0 (all start together): each runs its warm-up jobs, waits at the
/// barrier, then runs measured jobs until every job begun within options.duration of the
/// barrier has finished. Throws gpurt::Error for bad options, masks that
/// enable no CU or do not match the platform, or a run passing max_jobs.
NnSimResult simulate_nn(const Platform& platform, const std::vector<NnTaskSpec>& tasks,
                        const NnSimOptions& options);

/// A partition of `count` CUs from position `first` laid out as the Dissertation's §6.1.3 does
/// on the Radeon VII: SE-distributed when `count` is a multiple of the shader engines but not
/// of the CUs per SE (20 CUs: 5 on each SE), otherwise SE-packed (15 and 30 CUs: whole SEs).
std::vector<bool> nn_partition(const Platform& platform, int first, int count);

}  // namespace gpurt
