#include <cuda_runtime.h>

#include "gpurt/runtime/pbs_gpu_kernel.hpp"
#include "gpurt/runtime/pinning.cuh"

namespace gpurt {

namespace {

__global__ void pbs_spin_kernel(std::int64_t ns) {
  __shared__ std::uint64_t until;
  if (threadIdx.x == 0) until = global_ns() + static_cast<std::uint64_t>(ns);
  __syncthreads();
  while (global_ns() < until) {
  }
}

}  // namespace

int launch_pbs_spin(void* stream, int blocks, int threads, std::int64_t ns) {
  pbs_spin_kernel<<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(ns);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpurt
