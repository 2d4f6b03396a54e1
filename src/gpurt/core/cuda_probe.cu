#include <cuda_runtime.h>

#include "gpurt/core/cuda_probe.hpp"

namespace gpurt {

ProbeResult probe_gpus() {
  ProbeResult result;
  result.built_with_cuda = true;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    result.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
    return result;
  }
  if (count == 0) {
    result.reason = "no CUDA device present";
    return result;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = p.name;
    d.sms = p.multiProcessorCount;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.global_memory = p.totalGlobalMem;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d.registers_per_sm = p.regsPerMultiprocessor;
    d.shared_memory_per_sm = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
    d.max_threads_per_block = p.maxThreadsPerBlock;
    result.devices.push_back(d);
  }
  return result;
}

}  // namespace gpurt
