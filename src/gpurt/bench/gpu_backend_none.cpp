// Built without CUDA: the gpu backend does not exist; bench.cpp reports that before any run.
#include "gpurt/bench/gpu_backend.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

bool gpu_backend_built() noexcept { return false; }

const PluginRegistry& gpu_plugins() {
  static const PluginRegistry empty;
  return empty;
}

std::unique_ptr<WorkerBackend> make_gpu_backend(const PluginRegistry*, int) {
  throw Error("gpurt was built without CUDA");
}

}  // namespace gpurt
