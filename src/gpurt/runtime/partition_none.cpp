// partition.hpp without CUDA: backends are listed as unavailable, with the reason.
#include "gpurt/runtime/amd_hip.hpp"
#include "gpurt/runtime/partition.hpp"

namespace gpurt {

namespace {
constexpr const char* kNoCuda = "gpurt was built without CUDA (nvcc not found or -DGPURT_CUDA=OFF)";
}  // namespace

std::vector<PartitionBackendInfo> partition_backends(int device) {
  std::vector<PartitionBackendInfo> out;
  for (PartitionKind k :
       {PartitionKind::green_context, PartitionKind::libsmctrl, PartitionKind::persistent_threads}) {
    out.push_back({to_string(k), false, 0, 0, kNoCuda});
  }
  out.push_back(amd_backend_info(device));
  return out;
}

std::unique_ptr<Partitioner> make_partitioner(PartitionKind kind, int device) {
  if (kind == PartitionKind::amd_cu_mask) return make_amd_partitioner(device);
  throw PartitionError(kNoCuda);
}

}  // namespace gpurt
