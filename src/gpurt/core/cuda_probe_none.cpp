#include "gpurt/core/cuda_probe.hpp"

namespace gpurt {

ProbeResult probe_gpus() {
  ProbeResult result;
  result.reason = "gpurt was built without CUDA (nvcc not found or -DGPURT_CUDA=OFF)";
  return result;
}

}  // namespace gpurt
