// AMD CU masks for partitions (Dissertation §4.2.3.1, Fig. 4.8; §6.1.3) as the runtime's
// gpurt_mask. The layouts themselves (SE-packed, SE-distributed) are pure functions in
// model/amd_cu_layout.hpp, shared with the simulator's compute_unit_mask.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurt/model/amd_cu_layout.hpp"
#include "gpurt/runtime/gpurt.h"

namespace gpurt {

/// The mask of `count` CUs starting at position `first` of the layout's CU order.
/// Throws gpurt::Error if cus is not a positive multiple of ses, cus > 256, or the range leaves
/// 0..cus-1.
gpurt_mask amd_cu_mask(AmdCuTopology topo, AmdCuLayout layout, int first, int count);

/// `parts` disjoint partitions covering every CU, sizes differing by at most one (larger first);
/// partition i is what a k-exclusion slot i maps to (Dissertation §6.1.3, Fig. 6.1).
std::vector<gpurt_mask> amd_partition_masks(AmdCuTopology topo, AmdCuLayout layout, int parts);

/// The mask as hipExtStreamCreateWithCUMask takes it: 32-bit words, CU i is bit i % 32 of word i / 32.
std::vector<std::uint32_t> amd_hip_cu_mask_words(const gpurt_mask& mask, int cus);

}  // namespace gpurt
