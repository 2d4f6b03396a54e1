// The interfering kernel of the FFT profiler (FFT/SMLP §III-C), behind a plain C++ call so
// that fft_job.cpp stays C++20 while nvcc compiles the kernel (fft_interfere.cu).
#pragma once

#include <cstdint>

namespace gpurt {

/// Launches `blocks` blocks of 256 threads into `stream` (a cudaStream_t) that stream through
/// `buffer` (n floats, device memory) doing dependent FMAs for `ns` nanoseconds of GPU time.
/// Returns the cudaError_t of the launch (0: success).
int launch_interference(void* stream, float* buffer, std::int64_t n, int blocks, std::int64_t ns);

}  // namespace gpurt
