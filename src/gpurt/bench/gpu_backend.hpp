// The gpu backend's worker side (gpu_backend.cpp with CUDA, gpu_backend_none.cpp without):
// per instance a stream (priority, or a partition for sm_mask), the CPU/GPU clock offset, and
// the built-in plugin. Used by bench.cpp only.
#pragma once

#include <memory>

#include "gpurt/bench/plugin.hpp"
#include "gpurt/bench/runner.hpp"

namespace gpurt {

/// False when gpurt was built without CUDA.
bool gpu_backend_built() noexcept;

/// The built-in GPU plugins: timer_spin, timer_spin_default_stream, counter_spin, multikernel,
/// stream_action, matrix_multiply, random_walk, cufft. Empty without CUDA.
const PluginRegistry& gpu_plugins();

/// The worker backend on CUDA device `device`; a plugin name not built in is looked up in
/// `libraries` (may be null), which must outlive the backend. Throws Error("gpurt was built
/// without CUDA") without CUDA.
std::unique_ptr<WorkerBackend> make_gpu_backend(const PluginRegistry* libraries = nullptr, int device = 0);

}  // namespace gpurt
