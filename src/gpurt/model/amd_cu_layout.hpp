// AMD CU layouts for partitions (Dissertation §4.2.3.1, Fig. 4.8; §6.1.3): pure functions shared
// by the simulator (compute_unit_mask in configs) and the runtime (HIP CU masks, amd_cu_mask.hpp).
//
// The amdgpu driver maps bit i of the flat HIP CU mask to shader engine i % num_ses: CU j of SE s
// is bit j * num_ses + s. Two ways to lay out a partition:
//   SE-packed       fill one SE before the next (as few SEs as possible); SEs in the order
//                   0, 2, 4, ..., 1, 3, ..., so that a two-way split of a 4-SE GPU gives SEs {0, 2}
//                   and {1, 3} -- the even/odd bit masks of the Dissertation's Table 4.2;
//   SE-distributed  spread over all SEs as evenly as possible: consecutive flat bits.
#pragma once

#include <string_view>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/model/platform.hpp"

namespace gpurt {

enum class AmdCuLayout { se_packed, se_distributed };

/// "se-packed" / "se-distributed".
std::string_view to_string(AmdCuLayout layout);

/// A GPU's CU arrangement. Radeon VII: 60 CUs, 4 SEs.
struct AmdCuTopology {
  int cus = 0;
  int ses = 0;
};

/// Throws gpurt::Error unless cus is a positive multiple of ses.
void check_topology(AmdCuTopology topo);

/// The flat mask bit (HIP CU index) of the CU at `position` (0..cus-1) of the layout's order.
int amd_cu_bit_at(AmdCuTopology topo, AmdCuLayout layout, int position);

/// The CUs (one flag per flat bit, size cus) of `count` CUs starting at position `first` of the
/// layout's order. Throws gpurt::Error if the range leaves 0..cus-1.
std::vector<bool> amd_cu_set(AmdCuTopology topo, AmdCuLayout layout, int first, int count);

/// The shader engine of flat CU bit `bit`.
inline int amd_se_of_bit(AmdCuTopology topo, int bit) { return bit % topo.ses; }

/// The topology of an AMD platform (sms CUs, shader_engines SEs).
AmdCuTopology amd_topology(const Platform& platform);

/// Reads a config's `compute_unit_mask` (the HIP port of the examiner): an array of booleans
/// (entry i enables CU i), a string of '0'/'1' characters (character i enables CU i, as in the
/// Dissertation's Table 4.2), or a hexadecimal string "0x..." (bit i enables CU i); CUs past the
/// end of a short mask are enabled. gpurt extension: {"layout": "se-packed" | "se-distributed",
/// "first": F, "count": N} enables N CUs from position F of that layout. CU i is the flat HIP
/// bit i, on SE i % shader_engines. Returns one flag per CU. Throws InputError for a platform
/// that is not AMD, a mask naming absent CUs, or one enabling no CU.
std::vector<bool> parse_compute_unit_mask(const JsonNode& node, const Platform& platform);

}  // namespace gpurt
