// Persistent-thread SM pinning for the user's own kernels (RTGPU seed §4.1, §4.4).
//
// Launch pinned_grid_blocks(...) blocks so that every SM receives some. Each block reads its SM
// id (%smid); blocks on SMs outside the mask return at once, the others stay resident and take
// work items from a shared counter until none is left. The kernel so runs only on the masked
// SMs, whatever the hardware scheduler does, at the cost of the early-exit blocks and one atomic
// per item (measured by scripts/gpu-check: perf_partition's BM_PinnedOverhead).
#pragma once

#include <cstdint>

#include "gpurt/runtime/partition.hpp"

namespace gpurt {

/// The SM this thread runs on.
__device__ __forceinline__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/// Nanoseconds of the GPU's global timer.
__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ bool sm_in(const SmMask& mask, unsigned sm) {
  return sm < 256 && ((mask.bits[sm / 64] >> (sm % 64)) & 1U) != 0;
}

/// Runs body(item) for items 0..items-1 with all threads of the calling block, on blocks that
/// sit on SMs in `mask`; other blocks return at once. `*next` must be 0 at launch (one counter
/// per launch). Call it from every thread of the block, unconditionally. Returns how many items
/// this block ran.
template <typename Body>
__device__ int pinned_for_each(const SmMask& mask, int items, int* next, Body body) {
  __shared__ int item;
  if (!sm_in(mask, smid())) return 0;  // uniform per block: every thread sees the same SM
  int done = 0;
  for (;;) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) item = atomicAdd(next, 1);
    __syncthreads();
    const int i = item;
    __syncthreads();  // everyone has read `item` before thread 0 overwrites it
    if (i >= items) return done;
    body(i);
    ++done;
  }
}

/// Blocks to launch so that every one of `sms` SMs gets at least `per_sm` blocks.
inline int pinned_grid_blocks(int sms, int per_sm) { return sms * per_sm; }

}  // namespace gpurt
