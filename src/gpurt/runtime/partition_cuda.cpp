// partition.hpp with CUDA: green contexts, libsmctrl, persistent threads.
//
// The driver API is reached through cudaGetDriverEntryPointByVersion, not by linking libcuda:
// libgpurt then loads on machines without an NVIDIA driver (CI), and a missing driver is a
// PartitionError at run time instead of a loader failure.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <array>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "gpurt/runtime/amd_hip.hpp"
#include "gpurt/runtime/partition.hpp"

namespace gpurt {

namespace {

using MaskKey = std::array<std::uint64_t, 4>;
using StreamKey = std::pair<MaskKey, int>;  // unit set, stream priority

MaskKey key_of(const gpurt_mask& m) { return {m.bits[0], m.bits[1], m.bits[2], m.bits[3]}; }

void check_rt(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw PartitionError(fmt::format("{}: {}", what, cudaGetErrorString(status)));
}

// A driver function at the version that introduced it (cudaTypedefs.h names each PFN_..._vNNNNN):
// asking for a symbol at a version older than its first one fails with
// cudaDriverEntryPointVersionNotSufficent even on a driver that has it.
template <typename Fn>
Fn entry(const char* symbol, int version = 12040) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(symbol, &p, static_cast<unsigned>(version), cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr) {
    throw PartitionError(fmt::format("CUDA driver has no {} (needs a CUDA >= {}.{} driver): {}", symbol,
                                     version / 1000, version % 1000 / 10, cudaGetErrorString(e)));
  }
  return reinterpret_cast<Fn>(p);
}

// The driver calls green contexts need, loaded once.
struct Driver {
  CUresult (*device_get)(CUdevice*, int) = entry<decltype(device_get)>("cuDeviceGet");
  CUresult (*get_dev_resource)(CUdevice, CUdevResource*, CUdevResourceType) =
      entry<decltype(get_dev_resource)>("cuDeviceGetDevResource");
  CUresult (*split_by_count)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned,
                             unsigned) = entry<decltype(split_by_count)>("cuDevSmResourceSplitByCount");
  CUresult (*generate_desc)(CUdevResourceDesc*, CUdevResource*,
                            unsigned) = entry<decltype(generate_desc)>("cuDevResourceGenerateDesc");
  CUresult (*green_create)(CUgreenCtx*, CUdevResourceDesc, CUdevice,
                           unsigned) = entry<decltype(green_create)>("cuGreenCtxCreate");
  CUresult (*green_stream)(CUstream*, CUgreenCtx, unsigned,
                           int) = entry<decltype(green_stream)>("cuGreenCtxStreamCreate",
                                                                12050);  // PFN_..._v12050
  CUresult (*green_destroy)(CUgreenCtx) = entry<decltype(green_destroy)>("cuGreenCtxDestroy");
  CUresult (*stream_destroy)(CUstream) = entry<decltype(stream_destroy)>("cuStreamDestroy");
  CUresult (*error_string)(CUresult, const char**) = entry<decltype(error_string)>("cuGetErrorString");

  void check(CUresult r, const char* what) const {
    if (r == CUDA_SUCCESS) return;
    const char* s = "unknown error";
    error_string(r, &s);
    throw PartitionError(fmt::format("{}: {}", what, s));
  }
};

class GreenContexts final : public Partitioner {
 public:
  explicit GreenContexts(int device) {
    check_rt(cudaSetDevice(device), "cudaSetDevice");
    check_rt(cudaFree(nullptr), "CUDA initialisation");
    _drv.check(_drv.device_get(&_dev, device), "cuDeviceGet");
    CUdevResource all{};
    _drv.check(_drv.get_dev_resource(_dev, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    // One unit = the smallest group the driver can give: minSmPartitionSize, rounded up to the
    // co-scheduling alignment (8 SMs on Hopper).
    unsigned size = std::max(all.sm.minSmPartitionSize, 1U);
    const unsigned align = std::max(all.sm.smCoscheduledAlignment, 1U);
    size = (size + align - 1) / align * align;
    unsigned groups = 0;
    _drv.check(_drv.split_by_count(nullptr, &groups, &all, nullptr, 0, size), "cuDevSmResourceSplitByCount");
    if (groups == 0) throw PartitionError("cuDevSmResourceSplitByCount: no SM group");
    groups = std::min(groups, static_cast<unsigned>(GPURT_MAX_UNITS));
    _groups.resize(groups);
    CUdevResource remaining{};
    _drv.check(_drv.split_by_count(_groups.data(), &groups, &all, &remaining, 0, size),
               "cuDevSmResourceSplitByCount");
    _groups.resize(groups);
    _unit_sms = static_cast<int>(_groups.front().sm.smCount);
  }
  ~GreenContexts() override {
    for (auto& [key, stream] : _streams) _drv.stream_destroy(stream);
    for (auto& [key, ctx] : _contexts) _drv.green_destroy(ctx);
  }
  PartitionKind kind() const noexcept override { return PartitionKind::green_context; }
  int units() const noexcept override { return static_cast<int>(_groups.size()); }
  int unit_sms() const noexcept override { return _unit_sms; }
  int cached_streams() const noexcept override { return static_cast<int>(_streams.size()); }

  using Partitioner::stream;
  void* stream(const gpurt_mask& mask, int priority) override {
    check_unit_mask(mask, units());
    const StreamKey key{key_of(mask), priority};
    if (auto it = _streams.find(key); it != _streams.end()) return it->second;
    CUstream s = nullptr;
    _drv.check(_drv.green_stream(&s, context(mask), CU_STREAM_NON_BLOCKING, priority),
               "cuGreenCtxStreamCreate");
    _streams.emplace(key, s);
    return s;
  }

 private:
  // The green context of a unit set: one per set, shared by its streams of every priority.
  CUgreenCtx context(const gpurt_mask& mask) {
    const MaskKey key = key_of(mask);
    if (auto it = _contexts.find(key); it != _contexts.end()) return it->second;
    std::vector<CUdevResource> chosen;
    for (int u = 0; u < units(); ++u) {
      if (((mask.bits[u / 64] >> (u % 64)) & 1U) != 0) chosen.push_back(_groups[static_cast<std::size_t>(u)]);
    }
    CUdevResourceDesc desc{};
    _drv.check(_drv.generate_desc(&desc, chosen.data(), static_cast<unsigned>(chosen.size())),
               "cuDevResourceGenerateDesc");
    CUgreenCtx ctx = nullptr;
    _drv.check(_drv.green_create(&ctx, desc, _dev, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    _contexts.emplace(key, ctx);
    return ctx;
  }

  Driver _drv;
  CUdevice _dev{};
  std::vector<CUdevResource> _groups;
  int _unit_sms = 0;
  std::map<MaskKey, CUgreenCtx> _contexts;
  std::map<StreamKey, CUstream> _streams;
};

// A stream belongs to the calling thread's current device: a partitioner used from another thread
// (or after cudaSetDevice elsewhere) creates its streams on its own device, then restores the
// thread's.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    check_rt(cudaGetDevice(&_previous), "cudaGetDevice");
    if (_previous != device) check_rt(cudaSetDevice(device), "cudaSetDevice");
  }
  ~OnDevice() { cudaSetDevice(_previous); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int _previous = 0;
};

// libsmctrl's stream mask: a set bit DISABLES a TPC (libsmctrl.h); _ext takes 128 TPCs.
__extension__ typedef unsigned __int128 U128;

class Libsmctrl final : public Partitioner {
 public:
  explicit Libsmctrl(int device) : _device(device) {
    check_rt(cudaSetDevice(device), "cudaSetDevice");
    _lib = dlopen("libsmctrl.so", RTLD_NOW | RTLD_LOCAL);
    if (_lib == nullptr) throw PartitionError(fmt::format("libsmctrl is not installed: {}", dlerror()));
    _set_mask = reinterpret_cast<void (*)(void*, U128)>(dlsym(_lib, "libsmctrl_set_stream_mask_ext"));
    auto tpc_info =
        reinterpret_cast<int (*)(std::uint32_t*, int)>(dlsym(_lib, "libsmctrl_get_tpc_info_cuda"));
    if (_set_mask == nullptr || tpc_info == nullptr) {
      dlclose(_lib);
      throw PartitionError("libsmctrl.so lacks libsmctrl_set_stream_mask_ext or libsmctrl_get_tpc_info_cuda");
    }
    std::uint32_t tpcs = 0;
    if (const int r = tpc_info(&tpcs, device); r != 0 || tpcs == 0) {
      dlclose(_lib);
      throw PartitionError(fmt::format("libsmctrl_get_tpc_info_cuda failed ({})", r));
    }
    _tpcs = static_cast<int>(std::min<std::uint32_t>(tpcs, 128));
    int sms = 0;
    check_rt(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    _unit_sms = sms / static_cast<int>(tpcs);
  }
  ~Libsmctrl() override {
    for (auto& [key, s] : _cache) cudaStreamDestroy(s);
    dlclose(_lib);
  }
  PartitionKind kind() const noexcept override { return PartitionKind::libsmctrl; }
  int units() const noexcept override { return _tpcs; }
  int unit_sms() const noexcept override { return _unit_sms; }
  int cached_streams() const noexcept override { return static_cast<int>(_cache.size()); }

  using Partitioner::stream;
  void* stream(const gpurt_mask& mask, int priority) override {
    check_unit_mask(mask, units());
    const StreamKey key{key_of(mask), priority};
    if (auto it = _cache.find(key); it != _cache.end()) return it->second;
    const OnDevice on(_device);
    cudaStream_t s = nullptr;
    check_rt(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority),
             "cudaStreamCreateWithPriority");
    const U128 enabled = (static_cast<U128>(mask.bits[1]) << 64) | mask.bits[0];
    _set_mask(s, ~enabled);
    _cache.emplace(key, s);
    return s;
  }

 private:
  int _device = 0;
  void* _lib = nullptr;
  void (*_set_mask)(void*, U128) = nullptr;
  int _tpcs = 0;
  int _unit_sms = 0;
  std::map<StreamKey, cudaStream_t> _cache;
};

class PersistentThreads final : public Partitioner {
 public:
  explicit PersistentThreads(int device) : _device(device) {
    check_rt(cudaSetDevice(device), "cudaSetDevice");
    check_rt(cudaDeviceGetAttribute(&_sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    _sms = std::min(_sms, GPURT_MAX_UNITS);
  }
  ~PersistentThreads() override {
    for (auto& [key, s] : _streams) cudaStreamDestroy(s);
  }
  PartitionKind kind() const noexcept override { return PartitionKind::persistent_threads; }
  int units() const noexcept override { return _sms; }
  int unit_sms() const noexcept override { return 1; }
  bool cooperative() const noexcept override { return true; }
  int cached_streams() const noexcept override { return static_cast<int>(_streams.size()); }
  using Partitioner::stream;
  void* stream(const gpurt_mask& mask, int priority) override {
    check_unit_mask(mask, units());
    // The mask is enforced by the kernel (pinned_for_each), not the stream, but each unit set
    // still gets its own: with one stream per priority, two jobs holding disjoint units would
    // queue behind each other (and each one's synchronisation would wait for the other's work).
    const StreamKey key{key_of(mask), priority};
    if (auto it = _streams.find(key); it != _streams.end()) return it->second;
    const OnDevice on(_device);
    cudaStream_t s = nullptr;
    check_rt(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority),
             "cudaStreamCreateWithPriority");
    _streams.emplace(key, s);
    return s;
  }
  SmMask device_mask(const gpurt_mask& mask) const override {
    check_unit_mask(mask, units());
    return SmMask{{mask.bits[0], mask.bits[1], mask.bits[2], mask.bits[3]}};
  }

 private:
  int _device = 0;
  int _sms = 0;
  std::map<StreamKey, cudaStream_t> _streams;
};

}  // namespace

std::unique_ptr<Partitioner> make_partitioner(PartitionKind kind, int device) {
  if (kind == PartitionKind::amd_cu_mask) return make_amd_partitioner(device);
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    throw PartitionError(
        fmt::format("no CUDA device: {}", e != cudaSuccess ? cudaGetErrorString(e) : "none present"));
  }
  if (device < 0 || device >= count) throw PartitionError(fmt::format("no CUDA device {}", device));
  switch (kind) {
    case PartitionKind::green_context:
      return std::make_unique<GreenContexts>(device);
    case PartitionKind::libsmctrl:
      return std::make_unique<Libsmctrl>(device);
    case PartitionKind::persistent_threads:
      return std::make_unique<PersistentThreads>(device);
    case PartitionKind::amd_cu_mask:
      break;  // handled above
  }
  throw PartitionError("unknown partition backend");
}

std::vector<PartitionBackendInfo> partition_backends(int device) {
  std::vector<PartitionBackendInfo> out;
  for (PartitionKind k :
       {PartitionKind::green_context, PartitionKind::libsmctrl, PartitionKind::persistent_threads}) {
    PartitionBackendInfo info{to_string(k), false, 0, 0, ""};
    try {
      const auto p = make_partitioner(k, device);
      info.available = true;
      info.units = p->units();
      info.unit_sms = p->unit_sms();
      if (p->cooperative()) info.note = "kernels must use gpurt::pinned_for_each (pinning.cuh)";
    } catch (const Error& e) {
      info.note = e.what();
    }
    out.push_back(std::move(info));
  }
  out.push_back(amd_backend_info(device));
  return out;
}

}  // namespace gpurt
