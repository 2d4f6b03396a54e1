// The program plugins of the gpu backend: timer_spin, timer_spin_default_stream, counter_spin,
// sharedmem_timer_spin, multikernel and stream_action all run the host program the one examiner
// parser made of the config (ScenarioInstance::actions) — the same program the simulator plays
// (sim/host.cpp), so a measured and a predicted run of one config issue the same calls in the same order.
#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "gpurt/bench/gpu_util.hpp"

namespace gpurt::gpu {

namespace {

class ProgramPlugin final : public BenchPlugin {
 public:
  void initialize(const PluginContext& ctx) override {
    _ctx = ctx;
    std::int64_t copy_bytes = 0, memset_bytes = 0;
    for (const HostAction& a : ctx.instance->actions) {
      if (a.kind == HostAction::Kind::kernel) {
        _records.push_back(std::make_unique<RecordBuffer>(a.kernel.blocks));
      } else {
        _records.push_back(nullptr);
        if (a.kind == HostAction::Kind::copy) copy_bytes = std::max(copy_bytes, a.bytes);
        if (a.kind == HostAction::Kind::memset) memset_bytes = std::max(memset_bytes, a.bytes);
      }
    }
    check(cudaMalloc(&_sink, sizeof(std::uint64_t)), "cudaMalloc (sink)");
    for (const HostAction& a : ctx.instance->actions)
      if (a.kind == HostAction::Kind::kernel && a.kernel.whole_sm) {
        check_launch(spin_max_dynamic_shared(&_whole_sm_bytes), "shared memory limit (gpurt_whole_sm)");
        int device = 0, per_sm = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
              "cudaDeviceGetAttribute (shared memory per SM)");
        if (2 * static_cast<std::int64_t>(_whole_sm_bytes) <= per_sm)  // e.g. Pascal: 48 of 96 KiB
          throw Error(
              fmt::format("gpurt_whole_sm: a block may hold at most {} of the SM's {} bytes of shared "
                          "memory on this GPU, so two blocks would still share an SM",
                          _whole_sm_bytes, per_sm));
        break;
      }
    // A free with no earlier malloc of its kind in the iteration (examples/sim/cuda_free.json, as
    // Fig. 3.19 draws it) frees a buffer allocated outside the timed execute, so that it is a real
    // cudaFree and synchronises as the simulator models it. On an H200 such a free freed nothing,
    // and K4 did not wait.
    int device_allocs = 0, host_allocs = 0;
    for (const HostAction& a : ctx.instance->actions) {
      int& held = a.host_memory ? host_allocs : device_allocs;
      if (a.kind == HostAction::Kind::malloc) ++held;
      if (a.kind != HostAction::Kind::free) continue;
      if (held > 0) {
        --held;
      } else {
        ++(a.host_memory ? _unmatched_host : _unmatched_device);
      }
    }
    refill_reserve();
    const auto size = static_cast<std::size_t>(std::max(copy_bytes, memset_bytes));
    if (size > 0) {
      check(cudaMallocHost(&_host, size), "cudaMallocHost (copy buffer)");
      check(cudaMalloc(&_dev_a, size), "cudaMalloc (copy buffer)");
      check(cudaMalloc(&_dev_b, size), "cudaMalloc (copy buffer)");
    }
  }

  void execute(IterationRecord& it) override {
    cudaStream_t s = as_stream(_ctx.stream);
    _slots.clear();
    const auto& actions = _ctx.instance->actions;
    for (std::size_t i = 0; i < actions.size(); ++i) {
      const HostAction& a = actions[i];
      if (a.delay.count() > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(a.delay.count()));
      const auto n = static_cast<std::size_t>(a.bytes);
      switch (a.kind) {
        case HostAction::Kind::kernel: {
          const KernelSpec& k = a.kernel;
          KernelRecord r;
          r.name = k.name;
          r.block_count = k.blocks;
          r.thread_count = k.shape.threads;
          // gpurt_whole_sm: the device's own limit, not the platform file's SM size
          const int shared = k.whole_sm ? _whole_sm_bytes : static_cast<int>(k.shape.shared_memory);
          r.shared_memory = shared;
          const std::int64_t amount = k.counter_spin ? k.counter_iterations : k.block_time.count();
          r.launch_before = _ctx.now();
          check_launch(launch_spin(s, k.blocks, k.shape.threads, shared, amount, k.counter_spin,
                                   _records[i]->device(), _sink),
                       "spin kernel launch");
          r.launch_after = _ctx.now();
          it.kernels.push_back(std::move(r));
          _slots.push_back(i);
          break;
        }
        case HostAction::Kind::copy: {
          void* dst = a.direction == CopyDirection::device_to_host ? _host : _dev_a;
          void* src = a.direction == CopyDirection::host_to_device ? _host : _dev_b;
          const cudaMemcpyKind kind = a.direction == CopyDirection::host_to_device ? cudaMemcpyHostToDevice
                                      : a.direction == CopyDirection::device_to_host
                                          ? cudaMemcpyDeviceToHost
                                          : cudaMemcpyDeviceToDevice;
          if (a.synchronous)
            check(cudaMemcpy(dst, src, n, kind), "cudaMemcpy");
          else
            check(cudaMemcpyAsync(dst, src, n, kind, s), "cudaMemcpyAsync");
          break;
        }
        case HostAction::Kind::memset:
          if (a.synchronous)
            check(cudaMemset(_dev_a, 0, n), "cudaMemset");
          else
            check(cudaMemsetAsync(_dev_a, 0, n, s), "cudaMemsetAsync");
          break;
        case HostAction::Kind::malloc: {
          void* p = nullptr;
          if (a.host_memory)
            check(cudaMallocHost(&p, n), "cudaMallocHost");
          else
            check(cudaMalloc(&p, n), "cudaMalloc");
          _allocations.push_back({p, a.host_memory});
          break;
        }
        case HostAction::Kind::free:
          // Frees the latest allocation of the same kind (the examiner pairs free with malloc),
          // else a reserved buffer of that kind (initialize, copy_out).
          free_latest(_allocations, a.host_memory) || free_latest(_reserve, a.host_memory);
          break;
        case HostAction::Kind::sync_stream:
          check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
          break;
        case HostAction::Kind::sync_device:
          check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
          break;
      }
    }
    // The end of execute waits for the stream, as the simulator's final_sync does; every
    // kernel of the iteration gets that time as its third cuda_launch_time.
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    const Nanos done = _ctx.now();
    for (KernelRecord& k : it.kernels) k.sync_after = done;
  }

  void copy_out(IterationRecord& it) override {
    for (std::size_t k = 0; k < it.kernels.size(); ++k) _records[_slots[k]]->read(_ctx, it.kernels[k].blocks);
    refill_reserve();
  }

  void cleanup() override {
    for (const Allocation& m : _allocations) m.host ? cudaFreeHost(m.ptr) : cudaFree(m.ptr);
    _allocations.clear();
    for (const Allocation& m : _reserve) m.host ? cudaFreeHost(m.ptr) : cudaFree(m.ptr);
    _reserve.clear();
    _records.clear();
    cudaFreeHost(_host);
    cudaFree(_dev_a);
    cudaFree(_dev_b);
    cudaFree(_sink);
    _host = _dev_a = _dev_b = nullptr;
    _sink = nullptr;
  }

 private:
  struct Allocation {
    void* ptr;
    bool host;
  };
  // Frees and removes the latest allocation of `list` in host (or device) memory; false if none.
  static bool free_latest(std::vector<Allocation>& list, bool host) {
    for (auto m = list.rbegin(); m != list.rend(); ++m) {
      if (m->host != host) continue;
      check(m->host ? cudaFreeHost(m->ptr) : cudaFree(m->ptr), "cudaFree");
      list.erase(std::next(m).base());
      return true;
    }
    return false;
  }
  // One small buffer for each free of an iteration that has no malloc before it, of its kind.
  // Refilled in copy_out, outside execute's timed span; cudaMalloc may still synchronise the
  // device there while other instances run (only configs with such a free pay that; the
  // simulator does not model it).
  void refill_reserve() {
    for (const bool host : {false, true}) {
      const auto held = std::count_if(_reserve.begin(), _reserve.end(),
                                      [&](const Allocation& m) { return m.host == host; });
      for (auto n = held; n < (host ? _unmatched_host : _unmatched_device); ++n) {
        void* p = nullptr;
        check(host ? cudaMallocHost(&p, 256) : cudaMalloc(&p, 256), "cudaMalloc (a free's buffer)");
        _reserve.push_back({p, host});
      }
    }
  }
  int _unmatched_host = 0, _unmatched_device = 0;  ///< frees of an iteration without an earlier malloc
  std::vector<Allocation> _reserve;                ///< their buffers, allocated outside execute
  PluginContext _ctx;
  std::vector<std::unique_ptr<RecordBuffer>> _records;  ///< per action; kernels only
  std::vector<std::size_t> _slots;                      ///< action index of each kernel this iteration
  std::vector<Allocation> _allocations;
  void *_host = nullptr, *_dev_a = nullptr, *_dev_b = nullptr;
  std::uint64_t* _sink = nullptr;
  int _whole_sm_bytes = 0;  ///< dynamic shared memory of a gpurt_whole_sm block
};

}  // namespace

void register_spin_plugins(PluginRegistry& registry) {
  for (const char* name : {"timer_spin", "timer_spin_default_stream", "counter_spin", "sharedmem_timer_spin",
                           "multikernel", "stream_action"}) {
    registry.add(name, [] { return std::make_unique<ProgramPlugin>(); });
  }
}

}  // namespace gpurt::gpu
