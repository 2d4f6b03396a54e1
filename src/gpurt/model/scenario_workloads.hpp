// Readers of model/scenario.cpp for matrix_multiply and random_walk (internal to the parser).
#pragma once

#include "gpurt/core/json.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt::detail {

/// Fills inst.matrix_width, block_x/y, skip_copy, block_count and the program (copies and
/// the kernel). `threads` is the benchmark's thread_count node. Throws InputError.
void read_matrix_multiply(const JsonNode& info, const JsonNode& threads, ScenarioInstance& inst,
                          const SimOptions& sim);

/// Fills inst.walk_reads and the program (one kernel). `b` is the benchmark entry. Throws
/// InputError.
void read_random_walk(const JsonNode& info, const JsonNode& b, ScenarioInstance& inst, const SimOptions& sim);

}  // namespace gpurt::detail
