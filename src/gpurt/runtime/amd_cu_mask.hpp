// AMD CU masks for partitions (Dissertation §4.2.3.1, Fig. 4.8; §6.1.3): pure functions, so they
// are tested on any machine and shared by the HIP backend and the simulator.
//
// The amdgpu driver maps bit i of the flat HIP CU mask (hipExtStreamCreateWithCUMask) to shader
// engine i % num_ses: CU j of SE s is bit j * num_ses + s. Two ways to lay out a partition:
//   SE-packed       fill one SE before the next (as few SEs as possible); SEs in the order
//                   0, 2, 4, ..., 1, 3, ..., so that a two-way split of a 4-SE GPU gives SEs {0, 2}
//                   and {1, 3} -- the even/odd bit masks of the Dissertation's Table 4.2;
//   SE-distributed  spread over all SEs as evenly as possible: consecutive flat bits.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurt/runtime/gpurt.h"

namespace gpurt {

enum class AmdCuLayout { se_packed, se_distributed };

/// A GPU's CU arrangement. Radeon VII: 60 CUs, 4 SEs.
struct AmdCuTopology {
  int cus = 0;
  int ses = 0;
};

/// The mask of `count` CUs starting at position `first` of the layout's CU order.
/// Throws gpurt::Error if cus is not a positive multiple of ses, cus > 256, or the range leaves
/// 0..cus-1.
gpurt_mask amd_cu_mask(AmdCuTopology topo, AmdCuLayout layout, int first, int count);

/// `parts` disjoint partitions covering every CU, sizes differing by at most one (larger first);
/// partition i is what a k-exclusion slot i maps to (Dissertation §6.1.3, Fig. 6.1).
std::vector<gpurt_mask> amd_partition_masks(AmdCuTopology topo, AmdCuLayout layout, int parts);

/// The shader engine of CU bit `bit`.
inline int amd_se_of_bit(AmdCuTopology topo, int bit) { return bit % topo.ses; }

/// The mask as hipExtStreamCreateWithCUMask takes it: 32-bit words, CU i is bit i % 32 of word i / 32.
std::vector<std::uint32_t> amd_hip_cu_mask_words(const gpurt_mask& mask, int cus);

}  // namespace gpurt
