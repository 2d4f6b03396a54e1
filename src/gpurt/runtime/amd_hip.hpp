// AMD CU-mask partitions on a real AMD GPU (Dissertation §4.2.3, §6.1.3): streams created with
// hipExtStreamCreateWithCUMask, whose kernels run only on the CUs of the mask.
//
// The HIP runtime (libamdhip64.so) is loaded with dlopen when the backend is first asked for,
// so gpurt needs no HIP compiler to build it and a machine without ROCm simply reports the
// backend unavailable. The CU count and shader-engine count come from the amdgpu driver's KFD
// topology in sysfs, not from hipDeviceProp_t, whose layout changes between ROCm releases.
//
// Units are CUs, numbered as the HIP CU mask numbers them (flat bit i; on SE i % SEs, see
// model/amd_cu_layout.hpp); build partition masks with amd_cu_mask / amd_partition_masks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/model/amd_cu_layout.hpp"
#include "gpurt/runtime/partition.hpp"

namespace gpurt {

/// The CU topology of one KFD node from its `properties` text ("key value" lines):
/// CUs = simd_count / simd_per_cu, SEs = array_count / simd_arrays_per_engine. nullopt for a
/// CPU node (simd_count 0). Throws gpurt::Error for a GPU node whose numbers are inconsistent
/// (missing keys, a zero divisor, CUs not a multiple of SEs).
std::optional<AmdCuTopology> kfd_node_topology(std::string_view properties);

/// The GPU nodes under a KFD topology folder, in node order — the order in which the HIP runtime
/// numbers devices when HIP_VISIBLE_DEVICES is unset. Empty when the folder does not exist.
std::vector<AmdCuTopology> kfd_gpu_topologies(
    const std::string& nodes_dir = "/sys/class/kfd/kfd/topology/nodes");

/// The file names under which the HIP runtime is looked for, in order (dlopen's search path).
inline constexpr const char* kHipRuntimeNames[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};

/// The AMD backend on HIP device `device` (units = its CUs, unit_sms = 1). Streams are created
/// per distinct mask on first use and cached. Throws PartitionError when libamdhip64.so cannot
/// be loaded, lacks hipExtStreamCreateWithCUMask, or the device does not exist.
std::unique_ptr<Partitioner> make_amd_partitioner(int device = 0);

/// The "amd-cu-mask" line of partition_backends(). Never throws.
PartitionBackendInfo amd_backend_info(int device = 0);

}  // namespace gpurt
