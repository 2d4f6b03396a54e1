// Without CUDA there is no GPU to dispatch a PBS table to: the launcher's factory says so.
#include "gpurt/core/error.hpp"
#include "gpurt/runtime/pbs_dispatch.hpp"

namespace gpurt {

std::unique_ptr<PbsLauncher> make_pbs_gpu_launcher(const PbsSystem&, int) {
  throw Error("PBS dispatch (GPU): gpurt was built without CUDA (no nvcc found at configure time)");
}

}  // namespace gpurt
