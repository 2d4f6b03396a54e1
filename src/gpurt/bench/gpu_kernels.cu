#include <cuda_runtime.h>

#include "gpurt/bench/gpu_kernels.hpp"
#include "gpurt/runtime/pinning.cuh"

namespace gpurt::gpu {

namespace {

__device__ __forceinline__ void block_begin(std::uint64_t& start) {
  if (threadIdx.x == 0 && threadIdx.y == 0) start = global_ns();
  __syncthreads();
}

__device__ __forceinline__ void block_end(const std::uint64_t& start, DeviceBlock* records) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    const unsigned block = blockIdx.x + blockIdx.y * gridDim.x;
    records[block].start_ns = start;
    records[block].end_ns = global_ns();
    records[block].sm = smid();
  }
}

__global__ void spin_kernel(std::int64_t ns, bool counter, DeviceBlock* records, std::uint64_t* sink) {
  __shared__ std::uint64_t start;
  block_begin(start);
  if (counter) {
    // A dependent chain the compiler cannot fold; the sink keeps it alive.
    std::uint64_t x = threadIdx.x;
    for (std::int64_t i = 0; i < ns; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    if (x == 0) *sink = x;
  } else {
    const std::uint64_t until = start + static_cast<std::uint64_t>(ns);
    while (global_ns() < until) {
    }
  }
  block_end(start, records);
}

__global__ void matmul_kernel(int width, const float* a, const float* b, float* c, DeviceBlock* records) {
  __shared__ std::uint64_t start;
  block_begin(start);
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (row < width && col < width) {
    // 64-bit offsets: row·width passes 2^31 from matrix_width 46341 (the parser allows 65536).
    const std::int64_t w = width;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < w; ++k) sum += a[row * w + k] * b[k * w + col];
    c[row * w + col] = sum;
  }
  block_end(start, records);
}

__global__ void walk_kernel(const std::uint32_t* next, std::uint64_t length, std::int64_t reads,
                            DeviceBlock* records, std::uint64_t* sink) {
  __shared__ std::uint64_t start;
  block_begin(start);
  const std::uint64_t tid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  std::uint32_t i = static_cast<std::uint32_t>((tid * 2654435761ull) % length);
  for (std::int64_t r = 0; r < reads; ++r) i = next[i];
  if (i == 0xffffffffu) *sink = i;  // never true (indices < length); keeps the walk alive
  block_end(start, records);
}

__global__ void timer_kernel(std::uint64_t* out) { *out = global_ns(); }

}  // namespace

int launch_spin(void* stream, int blocks, int threads, int shared_bytes, std::int64_t ns, bool counter,
                DeviceBlock* records, std::uint64_t* sink) {
  constexpr int kDefaultDynamicShared = 48 * 1024;  // more needs the kernel's opt-in
  if (shared_bytes > kDefaultDynamicShared) {
    const cudaError_t e =
        cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  spin_kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads),
                static_cast<std::size_t>(shared_bytes), static_cast<cudaStream_t>(stream)>>>(ns, counter,
                                                                                             records, sink);
  return static_cast<int>(cudaGetLastError());
}

int spin_max_dynamic_shared(int* bytes) {
  int device = 0, optin = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  cudaFuncAttributes attributes{};
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attributes, spin_kernel);
  if (e == cudaSuccess) *bytes = optin - static_cast<int>(attributes.sharedSizeBytes);
  return static_cast<int>(e);
}

int launch_matrix_multiply(void* stream, int width, int bx, int by, const float* a, const float* b, float* c,
                           DeviceBlock* records) {
  const dim3 block(static_cast<unsigned>(bx), static_cast<unsigned>(by));
  const dim3 grid(static_cast<unsigned>((width + bx - 1) / bx), static_cast<unsigned>((width + by - 1) / by));
  matmul_kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(width, a, b, c, records);
  return static_cast<int>(cudaGetLastError());
}

int launch_random_walk(void* stream, int blocks, int threads, const std::uint32_t* next, std::uint64_t length,
                       std::int64_t reads, DeviceBlock* records, std::uint64_t* sink) {
  walk_kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads), 0,
                static_cast<cudaStream_t>(stream)>>>(next, length, reads, records, sink);
  return static_cast<int>(cudaGetLastError());
}

int launch_read_globaltimer(void* stream, std::uint64_t* out) {
  timer_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(out);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpurt::gpu
