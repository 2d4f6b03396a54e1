// Without CUDA there is no cuFFT to run: the FFT job's entry points say so.
#include "gpurt/core/error.hpp"
#include "gpurt/runtime/fft_job.hpp"

namespace gpurt {

FftGpuTasksResult run_fft_tasks_gpu(const FftGpuTasksOptions&) {
  throw Error("FFT job: gpurt was built without CUDA (no nvcc found at configure time)");
}

SmlpSystem profile_fft_gpu(const std::vector<int>&, int, int, int, double, int, int,
                           std::vector<PlacementSpread>*) {
  throw Error("FFT job: gpurt was built without CUDA (no nvcc found at configure time)");
}

}  // namespace gpurt
