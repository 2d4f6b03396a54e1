// AMD CU-mask backend: HIP runtime through dlopen, topology from the KFD sysfs files.
#include "gpurt/runtime/amd_hip.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "gpurt/runtime/amd_cu_mask.hpp"

namespace gpurt {

namespace {

// The few HIP entry points used, declared from the HIP API (hipError_t is an int-sized enum,
// hipStream_t a pointer), so no HIP header is needed to build.
using HipError = int;
using HipGetDeviceCount = HipError (*)(int*);
using HipSetDevice = HipError (*)(int);
using HipStreamCreateWithCUMask = HipError (*)(void** stream, std::uint32_t words, const std::uint32_t* mask);
using HipStreamDestroy = HipError (*)(void*);
using HipGetErrorString = const char* (*)(HipError);

struct HipApi {
  HipGetDeviceCount get_device_count = nullptr;
  HipSetDevice set_device = nullptr;
  HipStreamCreateWithCUMask create_stream = nullptr;
  HipStreamDestroy destroy_stream = nullptr;
  HipGetErrorString error_string = nullptr;

  std::string describe(HipError e) const {
    return fmt::format("error {} ({})", e, error_string != nullptr ? error_string(e) : "?");
  }
};

template <class F>
F symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (p == nullptr) throw PartitionError(fmt::format("libamdhip64.so has no {}", name));
  return reinterpret_cast<F>(p);
}

// Loaded once per process and never unloaded (the HIP runtime does not support unloading).
const HipApi& hip_api() {
  static const HipApi api = [] {
    void* lib = nullptr;
    for (const char* name : kHipRuntimeNames) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) break;
    }
    if (lib == nullptr) {
      throw PartitionError("the HIP runtime (libamdhip64.so) is not installed: no AMD GPU support");
    }
    HipApi a;
    a.get_device_count = symbol<HipGetDeviceCount>(lib, "hipGetDeviceCount");
    a.set_device = symbol<HipSetDevice>(lib, "hipSetDevice");
    a.create_stream = symbol<HipStreamCreateWithCUMask>(lib, "hipExtStreamCreateWithCUMask");
    a.destroy_stream = symbol<HipStreamDestroy>(lib, "hipStreamDestroy");
    a.error_string = symbol<HipGetErrorString>(lib, "hipGetErrorString");
    return a;
  }();
  return api;
}

// "key value" lines. Values the CU count does not need may be 64-bit unsigned (hive_id,
// unique_id) or otherwise unreadable as long long: such lines are skipped, not fatal.
std::map<std::string, long long, std::less<>> parse_properties(std::string_view text) {
  std::map<std::string, long long, std::less<>> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    long long value = 0;
    if (fields >> key >> value) out[key] = value;
  }
  return out;
}

class AmdCuMasks final : public Partitioner {
 public:
  AmdCuMasks(const HipApi& api, int device, AmdCuTopology topo) : _api(api), _device(device), _topo(topo) {}
  AmdCuMasks(const AmdCuMasks&) = delete;
  AmdCuMasks& operator=(const AmdCuMasks&) = delete;
  ~AmdCuMasks() override {
    for (auto& [mask, stream] : _streams) _api.destroy_stream(stream);
  }

  PartitionKind kind() const noexcept override { return PartitionKind::amd_cu_mask; }
  int units() const noexcept override { return _topo.cus; }
  int unit_sms() const noexcept override { return 1; }
  int cached_streams() const noexcept override { return static_cast<int>(_streams.size()); }

  using Partitioner::stream;
  void* stream(const gpurt_mask& mask, int priority) override {
    check_unit_mask(mask, units());
    if (priority != 0) {
      throw PartitionError(fmt::format(
          "stream priority {}: HIP creates CU-masked streams only at the default priority (0)", priority));
    }
    const std::array<std::uint64_t, 4> key{mask.bits[0], mask.bits[1], mask.bits[2], mask.bits[3]};
    if (auto it = _streams.find(key); it != _streams.end()) return it->second;
    if (const HipError e = _api.set_device(_device); e != 0)
      throw PartitionError(fmt::format("hipSetDevice({}): {}", _device, _api.describe(e)));
    const std::vector<std::uint32_t> words = amd_hip_cu_mask_words(mask, _topo.cus);
    void* s = nullptr;
    if (const HipError e = _api.create_stream(&s, static_cast<std::uint32_t>(words.size()), words.data());
        e != 0)
      throw PartitionError(fmt::format("hipExtStreamCreateWithCUMask: {}", _api.describe(e)));
    _streams.emplace(key, s);
    return s;
  }

 private:
  const HipApi& _api;
  int _device;
  AmdCuTopology _topo;
  std::map<std::array<std::uint64_t, 4>, void*> _streams;
};

}  // namespace

std::optional<AmdCuTopology> kfd_node_topology(std::string_view properties) {
  const auto p = parse_properties(properties);
  const auto get = [&](std::string_view key) -> long long {
    auto it = p.find(key);
    if (it == p.end()) throw Error(fmt::format("KFD node properties lack \"{}\"", key));
    return it->second;
  };
  const long long simds = get("simd_count");
  if (simds == 0) return std::nullopt;  // a CPU node
  const long long per_cu = get("simd_per_cu"), arrays = get("array_count"),
                  arrays_per_se = get("simd_arrays_per_engine");
  if (per_cu <= 0 || arrays_per_se <= 0 || simds % per_cu != 0 || arrays % arrays_per_se != 0) {
    throw Error(
        fmt::format("KFD node: simd_count {}, simd_per_cu {}, array_count {}, simd_arrays_per_engine {}: "
                    "not a whole number of CUs and SEs",
                    simds, per_cu, arrays, arrays_per_se));
  }
  const AmdCuTopology topo{static_cast<int>(simds / per_cu), static_cast<int>(arrays / arrays_per_se)};
  check_topology(topo);
  return topo;
}

std::vector<AmdCuTopology> kfd_gpu_topologies(const std::string& nodes_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(nodes_dir, ec)) return {};
  std::vector<int> nodes;
  for (const auto& entry : fs::directory_iterator(nodes_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      nodes.push_back(std::stoi(name));
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<AmdCuTopology> out;
  for (int n : nodes) {
    std::ifstream in(fmt::format("{}/{}/properties", nodes_dir, n));
    std::stringstream text;
    text << in.rdbuf();
    if (auto topo = kfd_node_topology(text.str())) out.push_back(*topo);
  }
  return out;
}

std::unique_ptr<Partitioner> make_amd_partitioner(int device) {
  const HipApi& api = hip_api();
  int count = 0;
  if (const HipError e = api.get_device_count(&count); e != 0 || count == 0) {
    throw PartitionError(
        fmt::format("no AMD GPU: {}", e != 0 ? api.describe(e) : "hipGetDeviceCount found none"));
  }
  if (device < 0 || device >= count) throw PartitionError(fmt::format("no HIP device {}", device));
  const std::vector<AmdCuTopology> gpus = kfd_gpu_topologies();
  if (static_cast<std::size_t>(device) >= gpus.size()) {
    throw PartitionError(
        fmt::format("HIP device {} has no KFD topology node (found {} GPU nodes)", device, gpus.size()));
  }
  return std::make_unique<AmdCuMasks>(api, device, gpus[static_cast<std::size_t>(device)]);
}

PartitionBackendInfo amd_backend_info(int device) {
  PartitionBackendInfo info{"amd-cu-mask", false, 1, 0, ""};
  try {
    const auto p = make_amd_partitioner(device);
    info.available = true;
    info.units = p->units();
    info.note = "HIP CU masks; SE-packed/SE-distributed layouts: amd_cu_mask.hpp";
  } catch (const Error& e) {
    info.note = e.what();
  }
  return info;
}

}  // namespace gpurt
