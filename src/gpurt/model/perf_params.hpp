// The simulator's performance model parameters (a platform file's "model" section): the
// mechanisms by which a block on real hardware runs longer than its isolated time. All zero is
// the "ideal" model (a block runs exactly its isolated time), which the exact-timeline tests use.
// Each mechanism is documented with its physical motivation in docs/simulator.md "Performance
// model"; sim/perf_model.cpp applies them. Fitted values are written with the data they were
// fitted to in docs/validation.md.
#pragma once

#include <cstdint>
#include <string_view>

#include "gpurt/core/json.hpp"

namespace gpurt {

/// How blocks share PerfParams::memory_bandwidth (a platform file's "memory_sharing").
enum class MemorySharing : std::uint8_t {
  /// Processor sharing: while the resident blocks' summed memory fractions D exceed the
  /// bandwidth, every memory-bound block's memory part runs at bandwidth/D of its full speed, and
  /// the share changes whenever a block starts or ends (sim/perf_model.cpp).
  fluid,
  /// D is judged once, at the block's start, and holds for its whole time: an approximation
  /// (blocks that start in one instant see a growing D in turn), kept for the radeon-vii preset,
  /// whose values were fitted under it.
  at_start,
};

struct PerfParams {
  /// Per-SM locality: a block whose SM last ran a block of another working set (another task's
  /// kernels; "locality" in the simulator) runs (1 + switch_cost) times longer: its SM's L1,
  /// instruction and constant caches are cold (FFT/SMLP §IV "Why a throughput benefit?").
  double switch_cost = 0;
  /// Per-SM locality: a block that starts while its SM holds a block of another working set runs
  /// (1 + coresidence_cost) times longer (the two share and thrash the SM's caches).
  double coresidence_cost = 0;
  /// Spreading: a block of a kernel whose grid may spread over `span` SMs (min of its blocks and
  /// the SMs of its mask) runs (1 + spread_cost·log2(span)) times longer (grid-wide
  /// synchronisation and L2 traffic; FFT/SMLP Obs. III-1).
  double spread_cost = 0;
  /// Memory bandwidth, in fully memory-bound SMs the device feeds at full speed (0: unlimited).
  /// While the resident blocks' summed memory fractions D (of the kernels' declared memory
  /// fractions m) exceed it, a block's memory part m runs D/memory_bandwidth times
  /// longer (Dissertation Table 4.1's contention cells). How D is judged: memory_sharing.
  double memory_bandwidth = 0;
  /// How blocks share memory_bandwidth: fluid (the default) or at_start.
  MemorySharing memory_sharing = MemorySharing::fluid;
  /// Run-to-run variability: a block's time is multiplied by 1 + U, U uniform in [0, jitter],
  /// drawn from the simulation's seed (same seed, same bytes).
  double jitter = 0;
  /// Run-to-run variability shared by a kernel's blocks: every block of one launch is multiplied
  /// by the same 1 + U, U uniform in [0, kernel_jitter], drawn once per launch from the seed (the
  /// clock and memory state a launch meets varies from launch to launch, and all its blocks see
  /// it; per-block draws average out over a grid's blocks).
  double kernel_jitter = 0;
  /// Host CPU contention (FFT/SMLP §IV-A: N host threads, each waiting for its job in
  /// cudaStreamSynchronize, Alg. 1 line 10): the CPU cores that run the tasks' threads
  /// (0: as many as threads, the mechanism off). A thread spinning there (best effort: every
  /// task; SMLP: the lock holders, a waiter is suspended, §III-A) competes for them; with R
  /// such threads on host_cores < R cores, a job's completion is seen by its
  /// thread only when the thread is on a core: with probability (R - host_cores)/R it is not,
  /// and it waits U·host_slice_us more (U uniform in [0, 1), seeded). sim/fft_sim.cpp.
  double host_cores = 0;
  /// The OS time slice a descheduled thread waits for, at most, in microseconds.
  double host_slice_us = 0;
  /// AMD block dispatch rate (Dissertation §4.2.2.3, Fig. 4.5 and footnote 11): an ACE hands a
  /// kernel's blocks to the shader engines one at a time, in block order; after handing one it
  /// can hand the next only this many nanoseconds later. One ACE per hardware queue, so two
  /// kernels in two queues dispatch twice as fast as one: a kernel of many short blocks (MM256)
  /// is dispatch-bound alone but barely slowed by a competitor. sim/amd_dispatch.cpp; 0: off.
  double block_dispatch_ns = 0;
  /// AMD wavefront-by-wavefront release (Dissertation §4.2.2.3: the Radeon VII "allows new blocks
  /// to start as soon as resources start to become available, even if the entire preceding block
  /// has not yet completed"): a block's wavefronts (64 threads) end in up to four steps, one per
  /// SIMD of a GCN CU, spread evenly over the last `wave_release` fraction of its time; each step
  /// frees its threads and registers, the last (the block's end) its LDS and block slot. With it
  /// on, the workload managers serve the least recently served kernel first and a smaller block
  /// cuts ahead only where the other does not fit (the text's rule); 0: a block frees everything
  /// at its end and smaller blocks are served first within an instant. sim/amd_dispatch.cpp.
  double wave_release = 0;
  /// AMD CU resource locking (GCN's COMPUTE_RESOURCE_LIMITS register has a LOCK_THRESHOLD field:
  /// the workload manager can lock a CU's resources for a workgroup that keeps failing to fit):
  /// a waiting block that has failed this many placement attempts at its SE (an attempt: a look
  /// after a CU there freed resources) gets one CU of its mask locked for it, the one with the
  /// most free threads; no other kernel's block starts there until the waiting block is placed.
  /// It bounds how long smaller blocks can keep cutting ahead of a larger one (Dissertation
  /// Table 4.1, uneven semi-partitioning). A whole number; 0: off. sim/amd_dispatch.cpp.
  double cu_lock_threshold = 0;
  /// AMD block dispatch of a kernel alone (Dissertation Table 4.1 and footnote 11: MM256, the
  /// same work as MM1024 in four times as many 256-thread blocks, takes 5.03 ms alone against
  /// MM1024's 3.20, yet 3.77 ms beside MM1024, "likely ... due to a competitor's presence
  /// improving the performance of block-dispatching hardware"): while a kernel is the only one
  /// on the device (no other kernel has blocks resident or waiting to be handed out), its ACE
  /// keeps at most this many of its blocks resident; with a competitor there is no bound. Only a
  /// kernel of many small blocks reaches it (a network kernel of 30-60 blocks never does, so
  /// unlike a per-block dispatch interval it delays no short kernel). A whole number; 0: off.
  /// sim/amd_dispatch.cpp.
  double lone_kernel_blocks = 0;

  /// True when every block-time mechanism is off (every block runs its isolated time).
  bool blocks_ideal() const noexcept {
    return switch_cost == 0 && coresidence_cost == 0 && spread_cost == 0 && memory_bandwidth == 0 &&
           jitter == 0 && kernel_jitter == 0;
  }
  /// True when every mechanism is off (the ideal model).
  bool ideal() const noexcept {
    return blocks_ideal() && (host_cores == 0 || host_slice_us == 0) && block_dispatch_ns == 0 &&
           wave_release == 0 && cu_lock_threshold == 0 && lone_kernel_blocks == 0;
  }
  bool operator==(const PerfParams&) const = default;
};

/// The smallest memory_bandwidth other than 0 (unlimited): below a hundredth of one memory-bound
/// block served at full speed a block's time passes the simulator's limits, far from where the
/// value was set. Platform files, `sweep nn --memory-bandwidth` and `calibrate` keep to it.
inline constexpr double kMinMemoryBandwidth = 0.01;

/// Reads a "model" object (keys as the fields above) over `base`: absent keys keep base's value
/// (a platform file's model over its preset's; 0 when there is none). Throws InputError.
PerfParams parse_perf_params(const JsonNode& node, const PerfParams& base = {});
std::string_view to_string(MemorySharing sharing) noexcept;
Json to_json(const PerfParams& params);

}  // namespace gpurt
