#include <cuda_runtime.h>

#include "gpurt/runtime/fft_interfere.hpp"
#include "gpurt/runtime/pinning.cuh"

namespace gpurt {

namespace {

// The §III-C interference: every thread streams through a buffer (memory-intensive) and does
// dependent FMAs (compute-intensive) until `ns` have passed on the GPU clock.
__global__ void interfere_kernel(float* buffer, std::int64_t n, std::int64_t ns) {
  const std::uint64_t until = global_ns() + static_cast<std::uint64_t>(ns);
  float acc = 1.0f;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  while (global_ns() < until) {
    acc = fmaf(acc, 1.000001f, buffer[i % n]);
    buffer[(i * 7) % n] = acc;
    i += static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  }
}

}  // namespace

int launch_interference(void* stream, float* buffer, std::int64_t n, int blocks, std::int64_t ns) {
  interfere_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(buffer, n, ns);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpurt
