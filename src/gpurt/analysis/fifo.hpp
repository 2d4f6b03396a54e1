// FIFO model seed §V: the utilisation condition of Theorem 1. The seed (a work-in-progress
// paper) proves only that response times CAN be unbounded when U_sum >= m − b_max + 1; it
// gives no response-time bound below that limit (see docs/rtgpu.md, "FIFO model").
#pragma once

#include <cstdint>
#include <string>

#include "gpurt/model/fifo_task.hpp"

namespace gpurt {

struct FifoResult {
  double total_utilization = 0;  ///< U_sum = Σ C_i / T_i, in GPU threads
  int max_block = 0;             ///< b_max, the largest block size among the tasks
  std::int64_t gpu_threads = 0;  ///< m
  double limit = 0;              ///< m − b_max + 1
  /// U_sum >= m − b_max + 1: the region where Theorem 1 exhibits unbounded response times
  /// (with b_max > 1; b_max = 1 is the malleable model, where only U_sum <= m matters).
  /// Decided on the exact rational U_sum, not on the rounded total_utilization.
  bool at_or_above_limit = false;
  /// U_sum >= m − b_max + 1 whatever b_max (Theorem 1 applies only with b_max > 1).
  bool reaches_limit = false;
  bool overloaded = false;  ///< U_sum > m (exactly): some backlog grows without bound
};

/// Pure; never fails on a parsed system.
FifoResult analyse_fifo(const FifoSystem& system);

}  // namespace gpurt
