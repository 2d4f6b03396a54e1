// partition.hpp without CUDA: backends are listed as unavailable, with the reason.
#include "gpurt/runtime/partition.hpp"

namespace gpurt {

namespace {
constexpr const char* kNoCuda = "gpurt was built without CUDA (nvcc not found or -DGPURT_CUDA=OFF)";
}  // namespace

std::vector<PartitionBackendInfo> partition_backends(int) {
  std::vector<PartitionBackendInfo> out;
  for (PartitionKind k :
       {PartitionKind::green_context, PartitionKind::libsmctrl, PartitionKind::persistent_threads}) {
    out.push_back({to_string(k), false, 0, 0, kNoCuda});
  }
  out.push_back(
      {"amd-cu-mask", false, 1, 0,
       "needs a HIP compiler at build time (none found); SE-packed/SE-distributed masks: amd_cu_mask.hpp"});
  return out;
}

std::unique_ptr<Partitioner> make_partitioner(PartitionKind, int) { throw PartitionError(kNoCuda); }

}  // namespace gpurt
