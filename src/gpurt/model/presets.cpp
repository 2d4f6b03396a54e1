// Platform presets. SM counts and per-SM limits come from the CUDA C++ Programming Guide's
// "Technical Specifications per Compute Capability" table and the vendors' product pages; the
// partition units follow the FFT/SMLP seed (§IV-A: 15, 34 and 19 allocatable units on the
// GTX 1070, RTX 2080 Ti and RTX 3060 Ti, i.e. TPCs of 1, 2 and 2 SMs).
#include <array>

#include "gpurt/model/platform.hpp"

namespace gpurt {

namespace {

constexpr std::int64_t KiB = 1024;

// RTX 3060 Ti (FFT/SMLP seed): switch_cost fitted to Obs. IV-3 (the smallest value on a 0.05 grid
// with SMLP throughput >= BE at N = 5, 2^22, the cuFFT constants refitted for each value;
// docs/simulator.md); jitter an assumption (the seed gives no spread of block times).
constexpr double kRtx3060tiSwitchCost = 0.35;
constexpr double kRtx3060tiJitter = 0.05;
// Radeon VII memory bandwidth, in summed memory fractions of resident blocks (docs/simulator.md
// "Neural-network tasks"): fitted by scripts/fit-nn --stage phases to the Dissertation's Table 6.3
// medium task alone on 15, 20, 30 and 60 CUs (four means), with the network kernels' memory
// phases (the first 70 % of a job's kernels memory-bound, the rest not). Only kernels that
// declare a memory fraction feel it (no examiner workload does).
constexpr double kRadeonViiMemoryBandwidth = 24;
// Radeon VII wavefront release (PerfParams::wave_release; docs/simulator.md "AMD wavefront
// release"): fitted by scripts/fit-amd to the Dissertation's Table 4.1 MM1024-vs-MM256
// full-sharing mean (on a 0.05 grid, with the examples' block times refitted to the two
// isolated means at each grid value).
constexpr double kRadeonViiWaveRelease = 0.73;
// Radeon VII run-to-run variability (PerfParams::kernel_jitter; docs/simulator.md "Run-to-run
// variability on the Radeon VII"): scripts/fit-amd --stage jitter, on ONE number, Dissertation
// Table 4.1's isolated MM1024 standard deviation (0.018 ms).
constexpr double kRadeonViiKernelJitter = 0.02;
// Radeon VII CU resource locking (PerfParams::cu_lock_threshold; docs/simulator.md "AMD CU
// resource locking"): scripts/fit-amd --stage lock, on ONE number, the Dissertation's Table 4.1
// MM1024-vs-MM256 uneven semi-partitioning mean (84.362 ms), on the whole numbers 1..16.
constexpr double kRadeonViiCuLockThreshold = 12;
// Radeon VII dispatch of a kernel alone (PerfParams::lone_kernel_blocks; docs/simulator.md "AMD
// dispatch of a kernel alone"): scripts/fit-amd, on ONE number, the Dissertation's Table 4.1
// isolated MM256 mean (5.034 ms), MM256's blocks being as long as MM1024's (the same work per
// thread).
constexpr double kRadeonViiLoneKernelBlocks = 511;

// H200 memory bandwidth, in memory-bound blocks served at full speed, shared fluidly: fitted by
// `gpurt calibrate` to the random walks measured on an H200 (docs/data/h200/calibration: 1,056
// walking blocks at once ran 9.84 ms against 0.986 ms alone; docs/measured-h200.md
// "Calibration on the H200"). Spread cost and jitter were fitted too, to 0 (timer_spin ran to
// within 2 ns). Only kernels that declare a memory fraction feel it (the walks do).
constexpr double kH200MemoryBandwidth = 110.67;

std::array<Platform, 9> presets() {
  return {{
      // Pascal GP104, compute capability 6.1: one SM per TPC.
      {"gtx1070",
       "NVIDIA GeForce GTX 1070",
       Vendor::nvidia,
       15,
       2048,
       32,
       65536,
       96 * KiB,
       1024,
       1,
       2,
       0,
       {}},
      // Turing TU102, compute capability 7.5: two SMs per TPC; 68 SMs = 34 TPCs.
      {"rtx2080ti",
       "NVIDIA GeForce RTX 2080 Ti",
       Vendor::nvidia,
       68,
       1024,
       16,
       65536,
       64 * KiB,
       1024,
       2,
       3,
       0,
       {}},
      // Ampere GA104, compute capability 8.6: two SMs per TPC; 38 SMs = 19 TPCs.
      {"rtx3060ti",
       "NVIDIA GeForce RTX 3060 Ti",
       Vendor::nvidia,
       38,
       1536,
       16,
       65536,
       100 * KiB,
       1024,
       2,
       2,
       0,
       {}},
      // Pascal GP102, compute capability 6.1.
      {"gtx1080ti",
       "NVIDIA GeForce GTX 1080 Ti",
       Vendor::nvidia,
       28,
       2048,
       32,
       65536,
       96 * KiB,
       1024,
       1,
       2,
       0,
       {}},
      // Tegra X1 (Maxwell GM20B), compute capability 5.3.
      {"jetson-tx1", "NVIDIA Jetson TX1", Vendor::nvidia, 2, 2048, 32, 65536, 64 * KiB, 1024, 1, 1, 0, {}},
      // Tegra X2 (Pascal GP10B), compute capability 6.2.
      {"jetson-tx2", "NVIDIA Jetson TX2", Vendor::nvidia, 2, 2048, 32, 65536, 64 * KiB, 1024, 1, 1, 0, {}},
      // GCN 5 (Vega 20, gfx906): 60 CUs in 4 shader engines (Dissertation §2.3, §4.2); 40 wavefronts
      // of 64 threads per CU; 4 SIMDs x 64 KiB of vector registers; 64 KiB LDS; CU masks per CU.
      {"radeon-vii", "AMD Radeon VII", Vendor::amd, 60, 2560, 40, 65536, 64 * KiB, 1024, 1, 2, 4, {}},
      // Hopper GH100 SXM5, compute capability 9.0: 132 SMs in 66 TPCs. partition_unit 2 is the
      // TPC mask granularity; green contexts on Hopper need 8-SM groups (override with "preset").
      {"h100", "NVIDIA H100 SXM", Vendor::nvidia, 132, 2048, 32, 65536, 228 * KiB, 1024, 2, 3, 0, {}},
      // H200: the same GH100 SM configuration as H100 SXM with more HBM3e.
      {"h200", "NVIDIA H200", Vendor::nvidia, 132, 2048, 32, 65536, 228 * KiB, 1024, 2, 3, 0, {}},
  }};
}

// The fitted performance models (docs/validation.md lists the rows each was fitted to; every
// other preset keeps the ideal model until measurements exist for it).
std::array<Platform, 9> with_models() {
  std::array<Platform, 9> table = presets();
  for (Platform& p : table) {
    if (p.id == "rtx3060ti") {
      p.model.switch_cost = kRtx3060tiSwitchCost;
      p.model.jitter = kRtx3060tiJitter;
    }
    if (p.id == "h200") p.model.memory_bandwidth = kH200MemoryBandwidth;
    if (p.id == "radeon-vii") {
      p.model.memory_bandwidth = kRadeonViiMemoryBandwidth;
      // Fitted under bandwidth judged at each block's start (the wavefront release needs it).
      p.model.memory_sharing = MemorySharing::at_start;
      p.model.wave_release = kRadeonViiWaveRelease;
      p.model.kernel_jitter = kRadeonViiKernelJitter;
      p.model.cu_lock_threshold = kRadeonViiCuLockThreshold;
      p.model.lone_kernel_blocks = kRadeonViiLoneKernelBlocks;
    }
  }
  return table;
}

}  // namespace

std::span<const Platform> platform_presets() {
  static const std::array<Platform, 9> table = with_models();
  return table;
}

const Platform* find_platform_preset(std::string_view id) {
  for (const Platform& p : platform_presets()) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

}  // namespace gpurt
