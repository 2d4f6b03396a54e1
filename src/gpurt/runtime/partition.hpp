// Partition backends behind one interface: "give me a stream whose kernels run only on these
// units". A unit is what an SMLP or k-exclusion lock hands out (gpurt_mask); its size in SMs
// depends on the backend:
//   green-context       CUDA green contexts (driver API, CUDA >= 12.4): the SM resource is split
//                       once into groups of the minimum partition size (8 SMs on Hopper); a stream
//                       per unit set is created on first use and cached.
//   libsmctrl           per-stream TPC masks through libsmctrl, loaded with dlopen at run time
//                       when the user has it installed (never vendored): 1 unit = 1 TPC.
//   persistent-threads  cooperative SM pinning (RTGPU seed §4.1, §4.4): the stream is a plain
//                       one; kernels must call gpurt::pinned_for_each (pinning.cuh) with
//                       device_mask(mask), and blocks on other SMs exit. 1 unit = 1 SM.
//   amd-cu-mask         AMD streams with hipExtStreamCreateWithCUMask (amd_hip.hpp), the HIP
//                       runtime loaded with dlopen: 1 unit = 1 CU. Mask layouts: amd_cu_mask.hpp.
//
// Built without CUDA (-DGPURT_CUDA=OFF or no nvcc), make_partitioner throws PartitionError
// "gpurt was built without CUDA" for the NVIDIA backends and partition_backends() says so; the
// AMD backend needs no compiler support and works in either build.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/runtime/gpurt.h"

namespace gpurt {

/// A backend is unavailable here or a driver call failed; what() names the call and the reason.
class PartitionError : public Error {
 public:
  using Error::Error;
};

enum class PartitionKind { green_context, libsmctrl, persistent_threads, amd_cu_mask };

const char* to_string(PartitionKind kind) noexcept;

/// What one backend offers on one device.
struct PartitionBackendInfo {
  std::string name;        ///< to_string(kind): "green-context", ..., "amd-cu-mask"
  bool available = false;  ///< usable in this process now
  int unit_sms = 0;        ///< SMs (CUs for AMD) per unit; 0 when unknown
  int units = 0;           ///< units on the device (H); 0 when unknown
  std::string note;        ///< why it is unavailable, or a caveat
};

/// Every backend gpurt knows, for CUDA device `device`. Never throws.
std::vector<PartitionBackendInfo> partition_backends(int device = 0);

/// SMs the persistent-thread helper runs on: SM s is bit s % 64 of bits[s / 64].
struct SmMask {
  std::uint64_t bits[4];
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual PartitionKind kind() const noexcept = 0;
  /// Units on the device (H).
  virtual int units() const noexcept = 0;
  /// SMs per unit.
  virtual int unit_sms() const noexcept = 0;
  /// True when the restriction holds only for kernels that cooperate (persistent threads).
  virtual bool cooperative() const noexcept { return false; }
  /// A stream (a cudaStream_t / CUstream, as void*) whose kernels run only on `mask`'s units,
  /// with CUDA stream priority `priority` (lower is more urgent, as cudaStreamCreateWithPriority;
  /// the driver clamps it to the device's range). Created on first use for a (unit set,
  /// priority) and cached, so asking again is a lookup. The stream is owned by the Partitioner
  /// and valid until it is destroyed. Throws PartitionError for an empty mask, a unit >= units(),
  /// a priority the backend cannot give (amd-cu-mask: only 0), or a driver failure. Not
  /// thread-safe: one per thread, or lock.
  virtual void* stream(const gpurt_mask& mask, int priority) = 0;
  /// The same at the default priority 0.
  void* stream(const gpurt_mask& mask) { return stream(mask, 0); }
  /// The SMs of `mask` for pinned_for_each (persistent-threads); other backends throw.
  virtual SmMask device_mask(const gpurt_mask& mask) const;
  /// Streams created so far (cache size; one per unit set and priority).
  virtual int cached_streams() const noexcept = 0;
};

/// The backend `kind` on device `device` (a CUDA device; for amd_cu_mask a HIP device). Throws
/// PartitionError when it is unavailable.
std::unique_ptr<Partitioner> make_partitioner(PartitionKind kind, int device = 0);

/// Throws PartitionError unless `mask` is non-empty and within 0..units-1.
void check_unit_mask(const gpurt_mask& mask, int units);

}  // namespace gpurt
