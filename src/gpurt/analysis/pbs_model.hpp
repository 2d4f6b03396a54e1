// The pieces every PBS policy shares (PBS seed §2): the jobs of one hyperperiod, the
// eligibility oracle (Definition 2.3) and batch completion times (§2.5).
//
// The oracle is the simulator's block allocator: a batch is submitted, in order, to a fresh
// gpurt::Device through gpurt::RoundRobinPlacement, and is eligible iff every block of
// every job is placed (all jobs start at once). There is no second model of block placement.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/pbs_task.hpp"

namespace gpurt {

/// A set of tasks as bits (bit i = task i); PbsSystem has at most 32 tasks.
using TaskMask = std::uint32_t;

/// Eligibility oracle with a cache keyed by the ordered sequence of task shapes (tasks with the
/// same blocks, threads, registers and shared memory share a shape), so equal shapes in another
/// task system position reuse the answer. Not thread-safe (one per search).
class PbsOracle {
 public:
  explicit PbsOracle(const PbsSystem& system);

  /// Definition 2.3: do the jobs of `order` (task indices, submission order, one stream each)
  /// all start at once on an idle GPU?
  bool eligible(std::span<const int> order);

  /// Every non-empty subset of `ready` that has at least one eligible order, each with one such
  /// order (a witness). The successor of a vertex depends only on the set (its completion time
  /// and the executed set do not depend on the order), so one witness per set is enough.
  /// Cached per `ready` mask.
  struct Batch {
    TaskMask set = 0;
    std::vector<int> order;
  };
  /// `check`, when set, is called about every 256 allocator runs of a walk not yet cached with
  /// the bytes that walk holds so far, and may throw to abandon it (nothing partial is
  /// cached): the searches' time and memory budget.
  const std::vector<Batch>& eligible_subsets(TaskMask ready,
                                             const std::function<void(std::size_t)>& check = {});

  std::uint64_t queries() const noexcept { return _queries; }
  std::uint64_t simulations() const noexcept { return _simulations; }
  /// Bytes held by the caches (approximate).
  std::size_t memory_bytes() const noexcept { return _bytes; }

 private:
  const PbsSystem* _system;
  std::vector<char> _shape_id;  // per task: index of its distinct shape
  std::unordered_map<std::string, bool> _cache;
  std::unordered_map<TaskMask, std::vector<Batch>> _subsets;
  std::uint64_t _queries = 0, _simulations = 0;
  std::size_t _bytes = 0;
};

/// The job arithmetic of one hyperperiod, in integer nanoseconds. Job k of task i arrives at
/// k·T_i and has absolute deadline k·T_i + D_i; task i has H / T_i jobs.
struct PbsJobs {
  explicit PbsJobs(const PbsSystem& system);
  /// An explicit job list instead (for job-level examples such as the seed's Example 3.12):
  /// job k of task i arrives at arrivals[i][k] and is due at dues[i][k]; arrivals ascending
  /// and dues[i][k] <= arrivals[i][k+1], so a task has at most one job ready before a miss.
  /// h is the latest deadline. Throws gpurt::Error when the lists break that.
  PbsJobs(const PbsSystem& system, std::vector<std::vector<std::int64_t>> arrivals,
          std::vector<std::vector<std::int64_t>> dues);

  int n = 0;           ///< tasks
  std::int64_t h = 0;  ///< hyperperiod
  std::vector<std::int64_t> period, deadline, wcet, wcet_slowed;
  std::vector<std::int32_t> jobs;  ///< per task, H / T_i
  std::int64_t total_jobs = 0;

  std::int64_t arrival(int task, std::int64_t k) const {
    return _arrivals[static_cast<std::size_t>(task)][static_cast<std::size_t>(k)];
  }
  std::int64_t due(int task, std::int64_t k) const {
    return _dues[static_cast<std::size_t>(task)][static_cast<std::size_t>(k)];
  }

  /// Ready tasks at `t` when task i has completed `done[i]` jobs: its next job exists and has
  /// arrived (with D <= T at most one job per task is ready before a miss).
  TaskMask ready(std::int64_t t, std::span<const std::int32_t> done) const;
  /// The earliest arrival after `t` of a next job that has not arrived; -1 when none.
  std::int64_t next_arrival(std::int64_t t, std::span<const std::int32_t> done) const;

  /// Completion time of a batch (§2.5): the table entry for exactly this set when the file has
  /// one, else C alone for one job, else the latest of ceil(C_i · slowdown_i).
  std::int64_t completion(TaskMask set) const;
  /// The file's completion-time entries (set -> time).
  const std::unordered_map<TaskMask, std::int64_t>& batch_table() const { return _table; }

 private:
  std::unordered_map<TaskMask, std::int64_t> _table;
  std::vector<std::vector<std::int64_t>> _arrivals, _dues;
};

struct PbsOptions;
struct PbsResult;
/// GPUSched (fast or reference, per options.policy) over an explicit job list.
PbsResult analyse_pbs_jobs(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options);

}  // namespace gpurt
