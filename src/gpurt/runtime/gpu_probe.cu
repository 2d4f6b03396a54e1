#include <cuda_runtime.h>

#include <string>

#include "gpurt/runtime/gpu_probe.hpp"
#include "gpurt/runtime/pinning.cuh"

namespace gpurt {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw PartitionError(std::string(what) + ": " + cudaGetErrorString(status));
}

__device__ void spin_for(std::int64_t ns) {
  const std::uint64_t until = global_ns() + static_cast<std::uint64_t>(ns);
  while (global_ns() < until) {
  }
}

__global__ void smid_kernel(BlockRecord* out, std::int64_t spin_ns) {
  __shared__ std::uint64_t start;
  if (threadIdx.x == 0) start = global_ns();
  __syncthreads();
  spin_for(spin_ns);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x].sm = static_cast<int>(smid());
    out[blockIdx.x].start_ns = start;
    out[blockIdx.x].end_ns = global_ns();
  }
}

__global__ void pinned_kernel(SmMask mask, int items, int* next, int* item_sm, std::int64_t work_ns) {
  pinned_for_each(mask, items, next, [&](int i) {
    spin_for(work_ns);
    if (threadIdx.x == 0) item_sm[i] = static_cast<int>(smid());
  });
}

__global__ void unpinned_kernel(int items, std::int64_t work_ns) {
  for (int i = static_cast<int>(blockIdx.x); i < items; i += static_cast<int>(gridDim.x)) spin_for(work_ns);
}

}  // namespace

SmidProbe::SmidProbe(int blocks) : _blocks(blocks) {
  if (blocks <= 0) throw PartitionError("SmidProbe: blocks must be > 0");
  check(cudaMalloc(&_device, sizeof(BlockRecord) * static_cast<std::size_t>(blocks)), "cudaMalloc");
}

SmidProbe::~SmidProbe() { cudaFree(_device); }

void SmidProbe::launch(void* stream, int threads, std::int64_t spin_ns) {
  _stream = stream;
  smid_kernel<<<static_cast<unsigned>(_blocks), static_cast<unsigned>(threads), 0,
                static_cast<cudaStream_t>(stream)>>>(static_cast<BlockRecord*>(_device), spin_ns);
  check(cudaGetLastError(), "probe kernel launch");
}

std::vector<BlockRecord> SmidProbe::collect() {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(_stream)), "cudaStreamSynchronize");
  std::vector<BlockRecord> out(static_cast<std::size_t>(_blocks));
  check(cudaMemcpy(out.data(), _device, sizeof(BlockRecord) * out.size(), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  return out;
}

PinnedRun run_pinned_probe(const SmMask& mask, int sms, int per_sm, int threads, int items,
                           std::int64_t work_ns, void* stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  int* next = nullptr;
  int* item_sm = nullptr;
  check(cudaMalloc(&next, sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&item_sm, sizeof(int) * static_cast<std::size_t>(items)), "cudaMalloc");
  check(cudaMemsetAsync(next, 0, sizeof(int), stream), "cudaMemset");
  check(cudaMemsetAsync(item_sm, 0xff, sizeof(int) * static_cast<std::size_t>(items), stream), "cudaMemset");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  PinnedRun run;
  run.blocks_launched = pinned_grid_blocks(sms, per_sm);
  check(cudaEventRecord(begin, stream), "cudaEventRecord");
  pinned_kernel<<<static_cast<unsigned>(run.blocks_launched), static_cast<unsigned>(threads), 0, stream>>>(
      mask, items, next, item_sm, work_ns);
  check(cudaGetLastError(), "pinned kernel launch");
  check(cudaEventRecord(end, stream), "cudaEventRecord");
  check(cudaEventSynchronize(end), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
  run.elapsed_ns = static_cast<double>(ms) * 1e6;
  run.item_sms.resize(static_cast<std::size_t>(items));
  check(cudaMemcpy(run.item_sms.data(), item_sm, sizeof(int) * run.item_sms.size(), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  cudaFree(next);
  cudaFree(item_sm);
  return run;
}

double run_unpinned_reference(int sms, int per_sm, int threads, int items, std::int64_t work_ns,
                              void* stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  check(cudaEventRecord(begin, stream), "cudaEventRecord");
  unpinned_kernel<<<static_cast<unsigned>(sms * per_sm), static_cast<unsigned>(threads), 0, stream>>>(
      items, work_ns);
  check(cudaGetLastError(), "reference kernel launch");
  check(cudaEventRecord(end, stream), "cudaEventRecord");
  check(cudaEventSynchronize(end), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  return static_cast<double>(ms) * 1e6;
}

int device_sm_count(int device) {
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return sms;
}

StreamPriorityRange stream_priority_range(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  StreamPriorityRange r;
  check(cudaDeviceGetStreamPriorityRange(&r.least, &r.greatest), "cudaDeviceGetStreamPriorityRange");
  return r;
}

int stream_priority(void* stream) {
  int priority = 0;
  check(cudaStreamGetPriority(static_cast<cudaStream_t>(stream), &priority), "cudaStreamGetPriority");
  return priority;
}

}  // namespace gpurt
