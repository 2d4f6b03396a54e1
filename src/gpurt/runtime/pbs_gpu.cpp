// The PBS dispatcher's CUDA launcher (runtime/pbs_dispatch.hpp, make_pbs_gpu_launcher): every
// job a kernel of its task's grid whose blocks spin on the GPU's global timer for the task's C
// (pbs_gpu_kernel.cu), on a stream of its task's own; a frame is over when every launched job's
// stream is.
#include <cuda_runtime.h>

#include <fmt/format.h>

#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/runtime/pbs_dispatch.hpp"
#include "gpurt/runtime/pbs_gpu_kernel.hpp"

namespace gpurt {

namespace {

void check(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess)
    throw Error(fmt::format("PBS dispatch (GPU): {}: {}", what, cudaGetErrorString(status)));
}

class GpuLauncher : public PbsLauncher {
 public:
  GpuLauncher(const PbsSystem& system, int device) {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (device < 0 || device >= count) {
      throw InputError("command line", "--device", std::to_string(device),
                       fmt::format("no such CUDA device ({} visible)", count));
    }
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    // The table's batches were found eligible (every block resident at once) on the file's
    // platform: on another SM count they need not be.
    if (prop.multiProcessorCount != system.platform.sms) {
      throw InputError(
          "command line", "--device", std::to_string(device),
          fmt::format("{} has {} SMs but the table was made for {} ({} SMs): give the file this "
                      "GPU's platform",
                      prop.name, prop.multiProcessorCount, system.platform.id, system.platform.sms));
    }
    for (const PbsTask& t : system.tasks) {
      if (t.blocks < 1 || t.threads < 1 || t.threads > prop.maxThreadsPerBlock ||
          t.blocks > prop.maxGridSize[0])
        throw Error(
            fmt::format("PBS dispatch (GPU): task {}: {} blocks of {} threads cannot be launched on {}",
                        t.name, t.blocks, t.threads, prop.name));
    }
    try {
      for (std::size_t i = 0; i < system.tasks.size(); ++i) {
        cudaStream_t s = nullptr;
        check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        _streams.push_back(s);
        // Warm-up: the first launch loads the module (lazy loading, CUDA 12.2 on) and touches the
        // stream; frame 0 must not pay for it.
        check(static_cast<cudaError_t>(launch_pbs_spin(s, 1, 1, 0)), "warm-up launch");
      }
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (warm-up)");
    } catch (...) {
      release();
      throw;
    }
  }
  ~GpuLauncher() override { release(); }
  GpuLauncher(const GpuLauncher&) = delete;
  GpuLauncher& operator=(const GpuLauncher&) = delete;

  void launch(const PbsJobRef& job, const PbsTask& task) override {
    cudaStream_t s = _streams.at(static_cast<std::size_t>(job.task));
    (void)cudaGetLastError();  // an earlier, unconsumed error is not this launch's
    check(static_cast<cudaError_t>(launch_pbs_spin(s, task.blocks, task.threads, task.wcet.count())),
          fmt::format("launch of {}#{}", task.name, job.job));
    _launched.push_back(s);
  }

  void wait_frame(std::span<Nanos> ends) override {
    for (std::size_t i = 0; i < _launched.size(); ++i) {
      check(cudaStreamSynchronize(_launched[i]), "cudaStreamSynchronize");
      if (i < ends.size()) ends[i] = Nanos{monotonic_ns()};
    }
    _launched.clear();
  }

 private:
  void release() noexcept {
    cudaDeviceSynchronize();  // errors here have been or cannot be reported
    for (cudaStream_t s : _streams) cudaStreamDestroy(s);
    _streams.clear();
  }

  std::vector<cudaStream_t> _streams;   // one per task
  std::vector<cudaStream_t> _launched;  // this frame's jobs, in launch order
};

}  // namespace

std::unique_ptr<PbsLauncher> make_pbs_gpu_launcher(const PbsSystem& system, int device) {
  return std::make_unique<GpuLauncher>(system, device);
}

}  // namespace gpurt
