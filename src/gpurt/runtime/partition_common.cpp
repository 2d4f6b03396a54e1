// Parts of partition.hpp that do not depend on CUDA.
#include <fmt/format.h>

#include "gpurt/runtime/partition.hpp"

namespace gpurt {

const char* to_string(PartitionKind kind) noexcept {
  switch (kind) {
    case PartitionKind::green_context:
      return "green-context";
    case PartitionKind::libsmctrl:
      return "libsmctrl";
    case PartitionKind::persistent_threads:
      return "persistent-threads";
    case PartitionKind::amd_cu_mask:
      return "amd-cu-mask";
  }
  return "?";
}

void check_unit_mask(const gpurt_mask& mask, int units) {
  bool any = false;
  for (int w = 0; w < 4; ++w) {
    for (std::uint64_t bits = mask.bits[w]; bits != 0; bits &= bits - 1) {
      const int u = w * 64 + __builtin_ctzll(bits);
      if (u >= units) throw PartitionError(fmt::format("unit {} is outside 0..{}", u, units - 1));
      any = true;
    }
  }
  if (!any) throw PartitionError("the unit mask is empty");
}

SmMask Partitioner::device_mask(const gpurt_mask&) const {
  throw PartitionError(fmt::format("{} partitions need no device mask: their streams are restricted already",
                                   to_string(kind())));
}

}  // namespace gpurt
