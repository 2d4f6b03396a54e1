// What GPUs this process can see. Built from cuda_probe.cu when nvcc is found, otherwise from
// cuda_probe_none.cpp, which reports that gpurt was built without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpurt {

/// One CUDA device as the runtime reports it; the per-SM limits match model/Platform fields.
struct DeviceInfo {
  int index = 0;
  std::string name;
  int sms = 0;
  int cc_major = 0, cc_minor = 0;
  std::uint64_t global_memory = 0;  ///< bytes
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;               ///< 32-bit registers
  std::int64_t shared_memory_per_sm = 0;  ///< bytes
  int max_threads_per_block = 0;
};

struct ProbeResult {
  bool built_with_cuda = false;
  std::string reason;  ///< why `devices` is empty, when it is
  std::vector<DeviceInfo> devices;
};

/// Lists visible devices. Never throws; an absent driver or GPU is reported in `reason`.
ProbeResult probe_gpus();

}  // namespace gpurt
