// k-exclusion locking with one GPU partition per slot (Dissertation §6.1: a k-exclusion lock
// whose slots map to disjoint partitions of one GPU), FIFO queue: a response-time bound.
// Pure function of an SMLP task system (it supplies L(i,k) and the CPU segments).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/smlp_task.hpp"

namespace gpurt {

struct KxOptions {
  int k = 2;  ///< slots; slot s holds H/k units, one more for the first H mod k (1 <= k <= H)
  /// The lock is held for the whole job (CPU before, kernel, CPU after), as
  /// `simulate-system --job-lock`; otherwise only around the kernel.
  bool job_level_lock = false;
};

struct KxTaskResult {
  std::string name;
  Nanos hold{0};      ///< h_i: longest time a job holds a slot (over the slot sizes)
  Nanos blocking{0};  ///< ceil(Σ_{j≠i} h_j / k): longest wait for a slot
  Nanos response_bound{0};
  std::optional<Nanos> deadline;
  bool schedulable = true;
};

struct KxResult {
  int k = 0;
  std::vector<int> slot_units;  ///< units of each slot
  bool schedulable = true;
  std::vector<KxTaskResult> tasks;
};

/// The bound, for tasks whose jobs do not overlap (each completes before its next release):
/// a waiting request has every slot busy (FIFO grants the head whenever a slot is free) with
/// requests of other tasks, each at most once (a task's later request queues behind), so
/// k · wait <= Σ_{j≠i} h_j. Response = wait + hold (+ CPU before and after for a kernel-level
/// lock). Throws Error if k is outside 1..H or a sum overflows.
KxResult analyse_kx(const SmlpSystem& system, const KxOptions& options);

}  // namespace gpurt
