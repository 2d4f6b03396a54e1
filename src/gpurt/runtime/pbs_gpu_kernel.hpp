// The PBS dispatcher's GPU job, behind a plain C++ call so that pbs_gpu.cpp stays C++20 while
// nvcc compiles the kernel (pbs_gpu_kernel.cu).
#pragma once

#include <cstdint>

namespace gpurt {

/// Launches `blocks` blocks of `threads` threads into `stream` (a cudaStream_t), each spinning on
/// the GPU's global timer for `ns` nanoseconds from its start. Returns the cudaError_t of the
/// launch (0: success).
int launch_pbs_spin(void* stream, int blocks, int threads, std::int64_t ns);

}  // namespace gpurt
