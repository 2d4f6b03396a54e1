// Helpers shared by the gpu backend's plugins (CUDA builds only; not installed API).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpurt/bench/gpu_kernels.hpp"
#include "gpurt/bench/plugin.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt::gpu {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(status));
}
inline void check_launch(int status, const char* what) { check(static_cast<cudaError_t>(status), what); }

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

/// Device memory for the block records of one kernel slot.
class RecordBuffer {
 public:
  explicit RecordBuffer(int blocks) : _blocks(blocks) {
    check(cudaMalloc(&_dev, sizeof(DeviceBlock) * static_cast<std::size_t>(blocks)),
          "cudaMalloc (block records)");
  }
  ~RecordBuffer() { cudaFree(_dev); }
  RecordBuffer(const RecordBuffer&) = delete;
  RecordBuffer& operator=(const RecordBuffer&) = delete;
  DeviceBlock* device() const { return _dev; }
  int blocks() const { return _blocks; }

  /// Copies the records back (after the kernel finished) into run-time BlockRecords, on the
  /// instance's own stream: cudaMemcpy would go through the legacy NULL stream, which waits for
  /// every other instance's kernels on blocking streams and holds up their next launches (the
  /// examiner copies its records on the instance's stream too).
  void read(const PluginContext& ctx, std::vector<BlockRecord>& out) const {
    std::vector<DeviceBlock> host(static_cast<std::size_t>(_blocks));
    const auto stream = static_cast<cudaStream_t>(ctx.stream);
    check(
        cudaMemcpyAsync(host.data(), _dev, sizeof(DeviceBlock) * host.size(), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (block records)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (block records)");
    out.clear();
    for (const DeviceBlock& b : host) {
      out.push_back({ctx.from_monotonic(static_cast<std::int64_t>(b.start_ns) - ctx.gpu_offset_ns),
                     ctx.from_monotonic(static_cast<std::int64_t>(b.end_ns) - ctx.gpu_offset_ns),
                     static_cast<int>(b.sm)});
    }
  }

 private:
  int _blocks;
  DeviceBlock* _dev = nullptr;
};

/// Creates the plugins of gpu_plugins.cpp / gpu_plugins_data.cpp.
void register_spin_plugins(PluginRegistry& registry);
void register_data_plugins(PluginRegistry& registry);

}  // namespace gpurt::gpu
