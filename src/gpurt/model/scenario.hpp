// Scenarios: cuda_scheduling_examiner configs (Dissertation §3.3), read faithfully, turned into
// per-instance host programs that the simulator (and later the GPU runner) execute.
// One parser for `gpurt simulate` and `gpurt bench`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"

namespace gpurt {

/// The largest time a config may give (every duration, delay, release time, period, max_time,
/// and each gpurt_sim time, also each block or copy time computed from a timing model): 10^6 s.
/// With it, and with the simulator's bound on simulated time (sim/engine.hpp), no sum of times
/// in the simulator can overflow its signed 64-bit nanoseconds.
inline constexpr Nanos kMaxScenarioTime{1'000'000'000'000'000};
/// gpurt_sim.time_slice_ns must be at least this (1 us): shorter slices make the simulator step
/// through millions of slice ends per simulated second.
inline constexpr Nanos kMinTimeSlice{1'000};
/// gpurt_sim.max_kernels by default: the most kernel launches, and the most iterations, that one
/// simulated run of a config may make before it stops with an error.
inline constexpr std::int64_t kDefaultMaxKernels = 1'000'000;
/// gpurt_sim.max_blocks by default: the most blocks one simulated run may start (over all
/// kernels) before it stops with an error. It bounds both the run's time (about 2 s at the
/// simulator's ~15 M block events/s) and its memory (a recorded block is 24 bytes: 240 MB, at
/// most ~480 MB while the record vector grows).
inline constexpr std::int64_t kDefaultMaxBlocks = 10'000'000;

/// What a block of a kernel holds on its SM while it runs.
struct BlockShape {
  int threads = 0;                 ///< threads per block
  std::int64_t shared_memory = 0;  ///< bytes per block
  int registers = 0;               ///< 32-bit registers per block (threads × per-thread)
};

/// A kernel launch: a grid of identical blocks.
struct KernelSpec {
  std::string name;  ///< label in traces (kernel_label / action label / plugin)
  int blocks = 0;
  BlockShape shape;
  /// Each block's run time in isolation: timer_spin durations are exact; counter_spin
  /// iterations are converted with SimOptions::counter_spin_ns_per_iteration.
  Nanos block_time{0};
  bool counter_spin = false;  ///< block_time came from an iteration count
  /// The benchmark's "gpurt_whole_sm": each block holds all of an SM's shared memory, so an SM
  /// runs one block of this kernel at a time, whatever its threads (shape.shared_memory is the
  /// platform's; on a GPU the device's largest opt-in shared memory per block).
  bool whole_sm = false;
  std::int64_t counter_iterations = 0;
  /// Optional interference model: a block that starts while a block of another kernel is
  /// resident on the device runs `slowdown` times longer (>= 1).
  double slowdown = 1.0;
  /// Performance model (sim/perf_model.hpp): the working set its blocks share caches with
  /// (-1: the simulator uses its stream / instance) and the memory-bound part of its time (0..1).
  int locality = -1;
  double memory_fraction = 0;
  /// block_time is a worst case (from a WCET the analyses also use): the performance model
  /// scales it by its realised factor over its worst factor, so it can only shorten it and a
  /// simulated response never exceeds a bound computed from the same WCET.
  bool wcet_time = false;
  /// With wcet_time: the performance model never shortens a block below this (the task model's
  /// best case; an analysis that counts on lower bounds stays sound). 0: only above 1 ns.
  Nanos min_time{0};
  /// SMs this launch may use (size = platform SMs), overriding its stream's mask: multikernel's
  /// per-kernel "sm_mask" (libsmctrl's next-launch mask); empty = the stream's.
  std::vector<bool> sm_mask;
};

enum class CopyDirection { host_to_device, device_to_host, device_to_device };

/// One host-side step of an instance's iteration, in program order.
struct HostAction {
  enum class Kind { kernel, copy, memset, malloc, free, sync_stream, sync_device };
  Kind kind = Kind::kernel;
  Nanos delay{0};  ///< host sleep before the call
  std::string label;
  KernelSpec kernel;       ///< kind == kernel
  std::int64_t bytes = 0;  ///< copy / memset / malloc size
  CopyDirection direction = CopyDirection::host_to_device;
  bool synchronous = false;  ///< copy/memset: blocking call in the NULL stream
  bool host_memory = false;  ///< malloc/free of pinned host memory
};

/// One benchmark entry of the config: an instance running a plugin.
struct ScenarioInstance {
  std::string plugin;    ///< basename of "filename" without .so
  std::string log_name;  ///< output file name (relative to the output folder)
  std::string label;
  int thread_count = 0;  ///< product of the thread_count dimensions
  int block_count = 0;   ///< product of the block_count dimensions
  std::int64_t data_size = 0;
  /// matrix_multiply: matrix width (additional_info.matrix_width), block edge (thread_count
  /// dimensions) and whether the per-iteration copies are skipped; 0 for other plugins.
  int matrix_width = 0, block_x = 0, block_y = 0;
  bool skip_copy = false;
  /// random_walk: reads per thread per iteration (additional_info).
  std::int64_t walk_reads = 0;
  Nanos release_time{0};
  std::int64_t max_iterations = 0;  ///< 0 = unlimited
  Nanos max_time{0};                ///< 0 = unlimited
  /// gpurt extension "period" (seconds): iteration k starts no earlier than
  /// release_time + k·period, making the instance a periodic task (0: back to back).
  Nanos period{0};
  int stream_priority = 0;  ///< CUDA convention: lower number = higher priority
  /// The config gives stream_priority: the examiner then creates the stream cudaStreamNonBlocking
  /// (no implicit synchronisation with the NULL stream), else with cudaStreamCreate (blocking).
  bool stream_priority_given = false;
  bool null_stream = false;  ///< all work goes to the legacy default stream
  /// SMs (AMD: CUs) the instance's stream may use (size = platform SMs), from sm_mask or
  /// compute_unit_mask; empty = all.
  std::vector<bool> sm_mask;
  std::optional<int> cpu_core;
  /// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for this instance's process (gpu backend, processes
  /// only: CUDA reads it once per process); see docs/simulator.md for the simulator.
  std::optional<double> mps_thread_percentage;
  std::vector<HostAction> actions;  ///< one iteration's program (execute phase)
  /// The process (simulated context) the instance runs in: instances with one number share a
  /// context (threads of one process). -1: the simulator decides from use_processes.
  int process = -1;
  /// task_host: index of the task_host instance whose nested config this instance belongs to
  /// (-1: a top-level benchmark). A task_host instance has no actions: its one iteration lasts
  /// until every instance nested in it has finished.
  int parent = -1;
  /// The config's additional_info as written (already checked for the plugins the parser
  /// models): GPU plugins read their parameters from it; instances of parse_scenario's
  /// `unmodelled_plugins` have no actions and only this.
  Json additional_info;
};

/// Simulator settings (gpurt extension key "gpurt_sim" in a config; all optional).
struct SimOptions {
  Nanos launch_latency{0};                     ///< launch call start → kernel enters its stream
  Nanos launch_call{0};                        ///< CPU time of a launch/copy/memset call
  Nanos sync_latency{0};                       ///< work completes → synchronize call returns
  Nanos time_slice{2'000'000};                 ///< slice per context when several contexts have work
  Nanos context_switch{0};                     ///< idle gap when the GPU switches context
  double copy_bandwidth = 12e9;                ///< bytes per second over the bus (each copy engine)
  Nanos copy_latency{0};                       ///< fixed cost per copy
  double memset_bandwidth = 300e9;             ///< bytes per second for device memsets
  double counter_spin_ns_per_iteration = 1.0;  ///< counter_spin calibration (see docs/simulator.md)
  /// matrix_multiply: a block of T threads multiplying W-wide matrices does T·W multiply-adds
  /// and runs T·W·this ns (docs/bench.md "Timing models"; an assumed calibration).
  double matrix_multiply_ns_per_fma = 0.4;
  /// random_walk: each thread's dependent reads are latency-bound, so a block runs
  /// reads·this ns whatever its thread count (docs/bench.md; an assumed DRAM latency).
  double random_walk_ns_per_access = 500.0;
  /// mandelbrot: every thread runs the full iteration count (the examiner's kernel does not stop
  /// at escape), so a block runs iterations·this ns (an assumed cost of one double-precision
  /// z = z² + c step; docs/simulator.md).
  double mandelbrot_ns_per_iteration = 20.0;
  /// cpu_random_walk: host-only work of reads·this ns per iteration (an assumed CPU cache-miss
  /// latency; docs/simulator.md).
  double cpu_random_walk_ns_per_access = 100.0;
  /// The most kernel launches, and the most iterations, of one run (the simulator stops with an
  /// error naming this key beyond them).
  std::int64_t max_kernels = kDefaultMaxKernels;
  /// The most blocks one run may start, over all kernels (the simulator stops with an error
  /// naming this key beyond them).
  std::int64_t max_blocks = kDefaultMaxBlocks;
  std::string placement = "round-robin";  ///< block placement policy
  /// "calibrated": the platform's performance model (its "model" section); "ideal": every block
  /// runs exactly its isolated time (the documented queueing rules alone).
  bool ideal_model = false;
  std::uint64_t seed = 1;  ///< the performance model's random draws (jitter)
};

struct Scenario {
  std::string name;
  std::string source;  ///< the file it was read from (for error messages)
  int device = 0;      ///< CUDA device (cuda_device / gpu_device_id) for the gpu backend
  std::int64_t max_iterations = 0;
  Nanos max_time{0};
  bool use_processes = false;
  bool sync_every_iteration = false;
  bool do_warmup = false;
  bool omit_block_times = false;
  /// pin_cpus: instances without a cpu_core are pinned round-robin over the CPUs this process
  /// may use (the gpu backend; the simulator has no CPU model).
  bool pin_cpus = false;
  /// base_result_directory: where `gpurt bench` writes when no --out is given ("" if unset).
  std::string base_result_directory;
  SimOptions sim;
  std::vector<ScenarioInstance> instances;
  /// What the parser accepted only as one of the examiner's leniencies ("FILE: PATH = VALUE:
  /// ..."): load_scenario prints each to stderr; callers of parse_scenario may.
  std::vector<std::string> warnings;
};

/// The plugins the parser reads (timer_spin, timer_spin_default_stream, counter_spin,
/// sharedmem_timer_spin, multikernel, stream_action, matrix_multiply, random_walk, inorder_walk,
/// mandelbrot, cpu_random_walk, task_host, cufft).
const std::vector<std::string>& simulated_plugins();

/// What the person running a config lets it use (`--max-blocks`, `--max-kernels`): the config's
/// gpurt_sim.max_blocks and max_kernels default to these and may only lower them (a config that
/// set both to 2^40 grew by 300 MB a second).
struct ConfigLimits {
  std::int64_t max_blocks = kDefaultMaxBlocks;
  std::int64_t max_kernels = kDefaultMaxKernels;
};

/// Parses an examiner config against a platform (block sizes and masks are checked against
/// it). Throws InputError naming file, JSON path and value.
Scenario parse_scenario(const Json& document, const std::string& file, const Platform& platform);
/// As above, also accepting the plugins in `unmodelled_plugins` (e.g. the GPU-only "cufft" of
/// `gpurt bench --backend gpu`): their instances are checked like the others but get no
/// actions, so such a scenario must not be simulated.
Scenario parse_scenario(const Json& document, const std::string& file, const Platform& platform,
                        const std::vector<std::string>& unmodelled_plugins, const ConfigLimits& limits = {});
/// parse_scenario on a file; prints the scenario's warnings to stderr ("gpurt: warning: ...").
Scenario load_scenario(const std::string& path, const Platform& platform, const ConfigLimits& limits = {});

}  // namespace gpurt
