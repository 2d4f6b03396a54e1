// A further baseline for the RTGPU experiments: NVIDIA's default time-sliced round-robin GPU
// context scheduling as analysed in GCAPS (Y. Wang, C. Liu, D. Wong, H. Kim, "GCAPS: GPU
// Context-Aware Preemptive Priority-Based Scheduling for Real-Time Tasks", ECRTS 2024, §6.2),
// self-suspension mode, on the RTGPU task model with every task on one CPU core.
#pragma once

#include <cstddef>
#include <span>

#include "gpurt/analysis/rtgpu_lemmas.hpp"
#include "gpurt/model/rtgpu_task.hpp"

namespace gpurt {

/// The two constants of GCAPS eq. (3). Defaults: GCAPS §7.1's evaluation values (the driver's
/// default time slice of 1024 µs; θ = 200 µs per TSG context switch).
struct GcapsRrParams {
  Nanos slice{1'024'000};      ///< L, the TSG time slice
  Nanos switch_cost{200'000};  ///< θ, one GPU context switch
};

/// GCAPS eq. (3): I(ν, G) = (L + θ) · ν · ⌈G / L⌉, the most a pure GPU segment of length G
/// waits for the time slices of ν other GPU contexts.
Nanos gcaps_interleave(int contexts, Nanos gpu, const GcapsRrParams& params);

/// The bounds of the task of priority rank `rank` (0 = highest; `order` from priority_order).
/// Mapping (docs/rtgpu.md choice 7): C_i = Σ CL^, one GPU segment per kernel with
/// Ge_{i,j} = ML^{2j} + GR^j (Lemma 5.1 on the whole GPU: the running context owns every SM
/// during its slice) + ML^{2j+1}, Gm_{i,j} = 0 (the model has no CPU time for launching).
/// R_i = C_i + G_i + I^ie_i + Σ_{h ∈ hp(i)} ⌈(R_i + J_h)/T_h⌉ · C_h with J_h = R_h − C_h
/// (eqs. (1), (5), (8); Lemmas 2, 3, 6 make I^dp, B^C and I^id zero).
RtgpuTaskBounds gcaps_rr_task_bounds(const RtgpuSystem& system, std::span<const std::size_t> order,
                                     std::size_t rank, const GcapsRrParams& params = {});

}  // namespace gpurt
