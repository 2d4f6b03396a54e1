// RTGPU CPU/copy/GPU segmented tasks (RTGPU seed §5.1, eq. (4)): a task alternates CPU
// segments, host/device copies and GPU kernels, CL^0, ML^0, G^0, ML^1, CL^1, ..., CL^{m-1}.
// File kind "gpurt/rtgpu@1".
#pragma once

#include <string>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"

namespace gpurt {

/// A duration known only within [lo, hi] (the seed's check and hat bounds).
struct TimeBounds {
  Nanos lo{0};  ///< lower bound (best case); rounded down at load
  Nanos hi{0};  ///< upper bound (worst case); rounded up at load
};

/// One GPU segment G_i^j = (GW, GL, α) (RTGPU §4.2, §5.1).
struct RtgpuGpuSegment {
  /// Total work GW in [lo, hi], as time on ONE virtual SM (Lemma 5.1 divides it by 2·GN_i).
  TimeBounds work;
  /// Critical-path (launch) overhead upper bound GL^; its lower bound is 0 (Lemma 5.1).
  Nanos overhead{0};
  /// Worst interleaved-execution ratio α >= 1 (§4.3); the best case is 1.
  double alpha = 1.0;
};

/// One task τ_i with m_i CPU segments, 2·m_i − 2 copy segments and m_i − 1 GPU segments.
struct RtgpuTask {
  std::string name;
  Nanos period{0};    ///< T_i (minimum inter-arrival time)
  Nanos deadline{0};  ///< D_i <= T_i (constrained deadline); defaults to T_i
  /// Fixed priority: smaller is higher, 1 the highest; unique. Deadline-monotonic ranks
  /// (1..n, ties by file order) when the file gives none.
  int priority = 0;
  std::vector<TimeBounds> cpu;       ///< CL_i^j, j = 0..m_i−1
  std::vector<TimeBounds> copy;      ///< ML_i^j, j = 0..2m_i−3 (may be 0: see docs/rtgpu.md)
  std::vector<RtgpuGpuSegment> gpu;  ///< G_i^j, j = 0..m_i−2
  int segments() const { return static_cast<int>(cpu.size()); }  ///< m_i
};

/// A file of kind "gpurt/rtgpu@1".
struct RtgpuSystem {
  Platform platform;  ///< its `sms` physical SMs are GN, the SMs the allocation hands out
  TimeUnit time_unit = TimeUnit::ms;
  int virtual_sms_per_sm = 2;    ///< 2: self-interleaving persistent threads (§4.3)
  std::vector<RtgpuTask> tasks;  ///< in file order
};

/// Parses and validates a "gpurt/rtgpu@1" document; `file` names it in errors.
/// Throws InputError "FILE: PATH = VALUE: PROBLEM".
RtgpuSystem parse_rtgpu_system(const Json& document, const std::string& file);
/// Loads and validates a "gpurt/rtgpu@1" file.
RtgpuSystem load_rtgpu_system(const std::string& path);
/// The file form (times in the system's unit, explicit priorities); parse reads it back.
Json to_json(const RtgpuSystem& system);
/// Checks the invariants the parser enforces (for systems built in code, e.g. by a generator).
/// Throws gpurt::Error naming the task and field.
void validate(const RtgpuSystem& system);
/// Task indices (into system.tasks) from highest to lowest priority.
std::vector<std::size_t> priority_order(const RtgpuSystem& system);

}  // namespace gpurt
