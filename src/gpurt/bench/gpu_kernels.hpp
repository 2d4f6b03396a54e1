// The gpu backend's kernels (gpu_kernels.cu), callable from C++20 host code. Every kernel has
// one thread per block record the block's start and end (%globaltimer, ns) and its SM
// (%smid) — the examiner's block_times / block_smids (Dissertation §3.2.2.1, Fig. 3.8).
// Functions return the cudaError_t of the launch as an int (0 = success).
#pragma once

#include <cstdint>

namespace gpurt::gpu {

/// One block's record in device memory.
struct DeviceBlock {
  std::uint64_t start_ns, end_ns;
  std::uint32_t sm, pad;
};

/// timer_spin: every thread spins until `ns` have passed since its block started.
/// counter_spin (counter = true): every thread runs `ns` loop iterations instead.
/// `shared_bytes` of dynamic shared memory are reserved (stream_action's shared_memory_size;
/// above the default 48 KiB the kernel is opted in first).
int launch_spin(void* stream, int blocks, int threads, int shared_bytes, std::int64_t ns, bool counter,
                DeviceBlock* records, std::uint64_t* sink);

/// The most dynamic shared memory a spin block may reserve on the current device (its opt-in
/// limit per block less the kernel's static shared memory), into *bytes: a block that reserves
/// it runs alone on its SM ("gpurt_whole_sm").
int spin_max_dynamic_shared(int* bytes);

/// C = A · B for width×width row-major floats, one thread per element of C, bx×by blocks.
int launch_matrix_multiply(void* stream, int width, int bx, int by, const float* a, const float* b, float* c,
                           DeviceBlock* records);

/// Every thread follows `next` (a random cyclic permutation of `length` indices) for `reads`
/// dependent reads, starting at an index of its own.
int launch_random_walk(void* stream, int blocks, int threads, const std::uint32_t* next, std::uint64_t length,
                       std::int64_t reads, DeviceBlock* records, std::uint64_t* sink);

/// Writes %globaltimer into *out (one thread): the GPU side of the clock alignment.
int launch_read_globaltimer(void* stream, std::uint64_t* out);

}  // namespace gpurt::gpu
