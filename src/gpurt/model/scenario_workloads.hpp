// Readers of model/scenario.cpp for matrix_multiply, random_walk and cufft (internal to the parser).
#pragma once

#include <cstdint>
#include <optional>

#include "gpurt/core/json.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt::detail {

/// Fills inst.matrix_width, block_x/y, skip_copy, block_count and the program (copies and
/// the kernel). `threads` is the benchmark's thread_count node. Throws InputError.
void read_matrix_multiply(const JsonNode& info, const JsonNode& threads, ScenarioInstance& inst,
                          const SimOptions& sim);

/// random_walk's reads per thread when a config gives no additional_info (the default of the
/// cuda_scheduling_examiner's random_walk plugin).
inline constexpr std::int64_t kDefaultWalkReads = 1000;

/// Fills inst.walk_reads and the program (one kernel) from `info` (the benchmark's
/// additional_info; nullopt: kDefaultWalkReads). `b` is the benchmark entry. Throws InputError.
void read_random_walk(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                      const SimOptions& sim);

/// cufft: the kernels of one execution (the cuFFT timing model, model/cufft_model.hpp) from
/// additional_info {"size", "batch"}, in waves of the SMs inst.sm_mask leaves. Throws InputError.
void read_cufft(const JsonNode& info, ScenarioInstance& inst, const Platform& p);

}  // namespace gpurt::detail
