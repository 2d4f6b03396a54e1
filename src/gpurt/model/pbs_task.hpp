// Periodic kernel tasks for the Parallel Batch Scheduler (PBS seed §2.2, §2.5; file kind
// "gpurt/pbs@1"). Each task is one GPU kernel with a launch shape; the completion time of a
// batch of jobs comes from an explicit table (the seed's Figure 1) or, failing that, from a
// per-task slowdown factor applied when a job shares the GPU with other jobs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt {

/// One kernel task τ_i. Job k (k = 0, 1, ...) arrives at k·period and must finish by
/// k·period + deadline.
struct PbsTask {
  std::string name;
  Nanos period{0};                 ///< T(τ_i) > 0
  Nanos deadline{0};               ///< D(τ_i), 0 < D <= T (constrained deadlines; see docs/pbs.md)
  Nanos wcet{0};                   ///< C(τ_i): all blocks in parallel, no interference; > 0
  int blocks = 0;                  ///< B(τ_i): blocks of the grid
  int threads = 0;                 ///< TH(τ_i): threads per block
  int registers = 0;               ///< Regs(τ_i): 32-bit registers per thread (0: not modelled)
  std::int64_t shared_memory = 0;  ///< Smem(τ_i): bytes of shared memory per block
  double slowdown = 1.0;           ///< >= 1: C is multiplied by it in a batch of two or more jobs

  /// What one block holds on its SM (registers per block = threads × per-thread).
  BlockShape shape() const;
};

/// One row of the explicit batch table: the completion time (latest finish, measured from the
/// frame start) of a batch holding exactly these tasks' jobs, in any submission order.
struct PbsBatchTime {
  std::vector<int> tasks;  ///< indices into PbsSystem::tasks, ascending, >= 2 distinct
  Nanos completion{0};     ///< > 0
};

/// A file of kind "gpurt/pbs@1".
struct PbsSystem {
  Platform platform;
  TimeUnit time_unit = TimeUnit::us;  ///< the unit the file used; results are printed in it
  std::vector<PbsTask> tasks;
  std::vector<PbsBatchTime> batches;
};

/// Blocks of `shape` that fit on an empty `platform` (every SM filled to its tightest limit):
/// a kernel with more blocks can never start at once, so it can never be in an eligible batch.
std::int64_t max_resident_blocks(const Platform& platform, const BlockShape& shape);

/// The most GPU time the jobs of one hyperperiod may need (Σ jobs × wcet × slowdown): 2^60 ns.
inline constexpr std::int64_t kMaxHyperperiodWork = std::int64_t{1} << 60;

/// Hyperperiod H = lcm of the periods, in nanoseconds. Throws gpurt::Error when it does not fit
/// in 62 bits, when a task would have more than `max_jobs_per_task` jobs in it, or when its jobs
/// need more than kMaxHyperperiodWork.
Nanos pbs_hyperperiod(const PbsSystem& system, std::int64_t max_jobs_per_task = 1'000'000);

/// Parses and validates a "gpurt/pbs@1" document; `file` names it in errors.
/// Throws InputError naming file, JSON path and value.
PbsSystem parse_pbs_system(const Json& document, const std::string& file);
/// Loads and validates a "gpurt/pbs@1" file.
PbsSystem load_pbs_system(const std::string& path);
/// The file form of a system (times in its time_unit); parse_pbs_system reads it back.
Json to_json(const PbsSystem& system);

}  // namespace gpurt
