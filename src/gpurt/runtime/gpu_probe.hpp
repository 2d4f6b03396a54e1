// GPU probes for checking partitions on a real device (tests/runtime/test_gpu_partition.cpp,
// perf/perf_partition.cpp, scripts/gpu-check): kernels whose blocks record the SM they ran on
// (%smid) and when, the libsmctrl test core's idea in gpurt's own code. Built without CUDA,
// every function throws PartitionError("gpurt was built without CUDA ...").
#pragma once

#include <cstdint>
#include <vector>

#include "gpurt/runtime/partition.hpp"

namespace gpurt {

/// One block of a probe kernel.
struct BlockRecord {
  int sm = -1;                 ///< %smid
  std::uint64_t start_ns = 0;  ///< %globaltimer when the block started
  std::uint64_t end_ns = 0;    ///< ... and when it finished
};

/// Device memory for one probe kernel of `blocks` blocks. Not copyable.
class SmidProbe {
 public:
  explicit SmidProbe(int blocks);
  ~SmidProbe();
  SmidProbe(const SmidProbe&) = delete;
  SmidProbe& operator=(const SmidProbe&) = delete;

  /// Launches the kernel on `stream` (nullptr: the default stream) without waiting: every
  /// block of `threads` threads spins for `spin_ns` on the GPU clock and records itself.
  void launch(void* stream, int threads, std::int64_t spin_ns);
  /// Waits for the launch and returns one record per block.
  std::vector<BlockRecord> collect();

 private:
  int _blocks;
  void* _device = nullptr;
  void* _stream = nullptr;
};

/// Result of a persistent-thread pinning run.
struct PinnedRun {
  std::vector<int> item_sms;  ///< SM that ran each item
  int blocks_launched = 0;
  double elapsed_ns = 0;  ///< kernel time (CUDA events)
};

/// Runs `items` work items of `work_ns` each through pinned_for_each on the SMs of `mask`,
/// launching pinned_grid_blocks(sms, per_sm) blocks of `threads` threads on `stream`.
PinnedRun run_pinned_probe(const SmMask& mask, int sms, int per_sm, int threads, int items,
                           std::int64_t work_ns, void* stream);

/// Kernel time of the same items with no pinning at all (every block works), for the overhead.
double run_unpinned_reference(int sms, int per_sm, int threads, int items, std::int64_t work_ns,
                              void* stream);

/// Number of SMs of CUDA device `device`; throws PartitionError without a GPU.
int device_sm_count(int device = 0);

/// The device's stream priority range (cudaDeviceGetStreamPriorityRange): {least, greatest};
/// greatest is the most urgent and numerically lowest.
struct StreamPriorityRange {
  int least = 0;
  int greatest = 0;
};
StreamPriorityRange stream_priority_range(int device = 0);

/// The priority a stream was created with (cudaStreamGetPriority).
int stream_priority(void* stream);

}  // namespace gpurt
