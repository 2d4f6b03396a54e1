// RTGPU seed §5.2-5.5: the per-segment bounds of one task for a given SM allocation.
// Each function transcribes one lemma; rtgpu.hpp builds the analysis and the searches on them.
// Bounds round in the safe direction: upper bounds up, lower bounds down.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpurt/analysis/self_suspension.hpp"
#include "gpurt/model/rtgpu_task.hpp"

namespace gpurt {

/// Lemma 5.1: response time of GPU segment G on `virtual_sms` (= 2·GN_i) dedicated virtual SMs:
/// lo = GW_lo / (2GN_i) (rounded down), hi = (GW_hi·α − GL^) / (2GN_i) + GL^ (rounded up).
TimeBounds gpu_response_bounds(const RtgpuGpuSegment& segment, int virtual_sms);
/// Lemma 5.1 for every GPU segment of `task`.
std::vector<TimeBounds> gpu_response_bounds(const RtgpuTask& task, int virtual_sms);

/// Lemma 5.2's MS_i(j): minimum inter-arrival time on the bus between copies ML_i^j and
/// ML_i^{j+1}, counted from the window's first copy (j >= 0), given the task's GPU bounds.
Nanos bus_min_inter_arrival(const RtgpuTask& task, std::span<const TimeBounds> gpu, std::int64_t j);
/// Lemma 5.4's CS_i(j): minimum inter-arrival time on the CPU between CL_i^j and CL_i^{j+1}.
Nanos cpu_min_inter_arrival(const RtgpuTask& task, std::span<const TimeBounds> gpu, std::int64_t j);

/// The task as the bus sees it (Lemma 5.2): copies execute (upper bounds), CPU and GPU
/// segments suspend (lower bounds). MW_i^h(t) = segment_workload(bus_view(...), h, t).
SuspendingTask bus_view(const RtgpuTask& task, std::span<const TimeBounds> gpu);
/// The task as the CPU sees it (Lemma 5.4): CPU segments execute, copies and GPU segments
/// suspend. CW_i^h(t) = segment_workload(cpu_view(...), h, t).
SuspendingTask cpu_view(const RtgpuTask& task, std::span<const TimeBounds> gpu);

/// Lemma 5.2: MW_i^h(t).
Nanos bus_workload(const SuspendingTask& bus, std::size_t h, Nanos t);
/// Lemma 5.4: CW_i^h(t).
Nanos cpu_workload(const SuspendingTask& cpu, std::size_t h, Nanos t);

/// Lemma 5.3, eq. (5): MR^_k^j = ML^_k^j + Σ_{i∈hp(k)} max_h MW_i^h(MR^_k^j) + B_k, where
/// B_k = max over lower-priority copies ML^_i^h (non-preemptive bus). nullopt past `limit`.
std::optional<Nanos> copy_response_bound(Nanos copy_hi, std::span<const SuspendingTask> higher_bus,
                                         Nanos lower_blocking, Nanos limit);
/// B_k of Lemma 5.3: the longest copy (upper bound) of any task in `lower`.
Nanos copy_blocking(std::span<const RtgpuTask* const> lower);

/// Lemma 5.5, eq. (6): CR^_k^j = CL^_k^j + Σ_{i∈hp(k)} max_h CW_i^h(CR^_k^j). nullopt past `limit`.
std::optional<Nanos> cpu_response_bound(Nanos cpu_hi, std::span<const SuspendingTask> higher_cpu,
                                        Nanos limit);

/// Theorem 5.6, eq. (7): R1 = Σ suspension upper bounds + Σ_j CR^_k^j (nullopt if any is).
std::optional<Nanos> end_to_end_r1(Nanos suspension_hi, std::span<const std::optional<Nanos>> cpu_response);
/// Theorem 5.6, eq. (8): the least R2 = Σ suspension upper bounds + Σ CL^_k + Σ_hp max_h CW_i^h(R2).
std::optional<Nanos> end_to_end_r2(Nanos suspension_hi, Nanos cpu_hi_sum,
                                   std::span<const SuspendingTask> higher_cpu, Nanos limit);

/// The §5.5 lower bound on the end-to-end response time: every segment at its lower bound
/// (CPU CL_lo, copies ML_lo, GPU Lemma 5.1 lo) with no interference. See docs/rtgpu.md.
Nanos end_to_end_lower_bound(const RtgpuTask& task, std::span<const TimeBounds> gpu);

/// Everything the analysis finds for one task under one allocation.
struct RtgpuTaskBounds {
  std::vector<TimeBounds> gpu;                ///< Lemma 5.1 (device segments for self-suspension)
  std::vector<std::optional<Nanos>> copy_hi;  ///< Lemma 5.3 (nullopt: past the deadline)
  std::vector<std::optional<Nanos>> cpu_hi;   ///< Lemma 5.5
  std::optional<Nanos> r1, r2, response;      ///< Theorem 5.6; response = min(R1, R2)
  Nanos lower{0};                             ///< end_to_end_lower_bound
  bool schedulable = false;                   ///< response <= deadline
  std::string reason;                         ///< why not; empty when schedulable
};

}  // namespace gpurt
