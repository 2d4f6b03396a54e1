// Parallel Batch Scheduler analyses (PBS seed): GPUSched, the exact schedule-graph search of §3,
// and the EDFserial / EDFParallel baselines of §6. Pure functions of a gpurt/pbs@1 system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/pbs_task.hpp"

namespace gpurt {

enum class PbsPolicy {
  gpusched,            ///< §3, fast exact search (urgency-ordered DFS, hashed domination)
  gpusched_reference,  ///< §3, plain Algorithm 1: every permutation, breadth-first, for testing
  edf_serial,          ///< §6: one job at a time, earliest deadline first
  edf_parallel,        ///< §6: every ready job that keeps the batch eligible, in EDF order
};
std::string_view to_string(PbsPolicy policy);
/// "gpusched", "gpusched-reference", "edf-serial", "edf-parallel"; nullopt otherwise.
std::optional<PbsPolicy> parse_pbs_policy(std::string_view text);

/// Which domination merges GPUSched makes (§3.5).
enum class PbsMerge {
  dominated,  ///< Merge/Split for every Δ >= 0 (the seed's GPUSched; default)
  identical,  ///< only identical vertices (Δ = 0) are merged
  /// None at all: plain Algorithm 1 depth first where every eligible submission order of every
  /// ready subset is its own vertex and no vertex is merged, so the graph is the tree of schedule
  /// prefixes (the "without merging" curve of the seed's Figure 5c). Exponential; for counting.
  none,
};

struct PbsOptions {
  PbsPolicy policy = PbsPolicy::gpusched;
  /// GPUSched: do not stop at the first schedulable path; search on for the table that ends
  /// earliest. Frames whose earliest possible end of the whole table (a lower bound from the jobs
  /// left) is no earlier than the best table found are not explored (branch and bound), so the
  /// count of schedulable end vertices is of those found; whole_graph explores them too.
  bool explore_all = false;
  /// With explore_all: no bound, explore the whole schedule graph and count every schedulable
  /// end vertex (what the seed's Figure 5c counts).
  bool whole_graph = false;
  /// GPUSched: give up after creating this many vertices (result.complete = false). Also
  /// bounds memory: the fast search keeps at most one memo entry per vertex created.
  std::uint64_t max_vertices = 100'000'000;
  /// GPUSched: give up after this much wall time, in seconds (result.complete = false);
  /// 0 = no limit. Checked once per vertex and while listing eligible batches.
  double max_seconds = 0;
  /// GPUSched (fast): which merges to make (PbsMerge::none runs the unmerged tree walk).
  PbsMerge merge = PbsMerge::dominated;
  /// EDFserial / EDFParallel: refuse (gpurt::Error) a hyperperiod of more jobs than this; their
  /// memory follows the jobs (about 0.5 KiB a job with the table). GPUSched has its own cap.
  std::int64_t max_jobs = 1'000'000;
};

/// Job k of a task (k = 0, 1, ...; it arrives at k·period).
struct PbsJobRef {
  int task = 0;
  std::int64_t job = 0;
  bool operator==(const PbsJobRef&) const = default;
};

/// One scheduling frame of a table: the batch, in submission order, started at `start`;
/// the frame ends when its last job does, at `end`.
struct PbsFrame {
  Nanos start{0}, end{0};
  std::vector<PbsJobRef> jobs;
};

struct PbsStats {
  std::uint64_t vertices_created = 0;  ///< vertices made by expansion and Split
  std::uint64_t vertices_merged = 0;   ///< new vertices dominated by an explored one (Merge)
  std::uint64_t vertices_split = 0;    ///< dominated vertices explored because domination broke (Split)
  std::uint64_t vertices_pruned = 0;   ///< frames that miss a deadline
  std::uint64_t vertices_bounded = 0;  ///< explore-all: frames that cannot end the table earlier
  std::uint64_t fast_forwards = 0;     ///< idle intervals skipped (FastForward)
  std::uint64_t edges = 0;             ///< batches expanded (vertex -> successor)
  std::uint64_t schedulable_end_vertices = 0;
  std::uint64_t oracle_queries = 0, oracle_simulations = 0;
  std::uint64_t peak_memory_bytes = 0;  ///< estimate of the graph and caches at their largest
  double seconds = 0;                   ///< wall time of the analysis
};

struct PbsResult {
  PbsPolicy policy = PbsPolicy::gpusched;
  bool schedulable = false;
  /// False when GPUSched stopped at max_vertices or max_seconds without an answer (schedulable
  /// is then false but not proven; with explore_all, also when a schedule was found but the
  /// table is not proven the earliest-ending one).
  bool complete = true;
  /// Why complete is false: "max-vertices" or "max-seconds"; empty when complete.
  std::string stopped_by;
  Nanos hyperperiod{0};
  /// The schedule table: GPUSched's first schedulable path (empty when unschedulable); for a
  /// baseline, its schedule up to and including the frame of its first deadline miss.
  std::vector<PbsFrame> table;
  /// Baselines: the first job to miss its deadline (earliest finishing frame, then EDF order).
  std::optional<PbsJobRef> first_miss;
  /// Baselines: every job that finishes late when the baseline runs to the hyperperiod.
  std::vector<PbsJobRef> misses;
  PbsStats stats;
};

/// Analyses `system` under `options.policy`. Throws gpurt::Error when the system breaks the
/// model's invariants (parse_pbs_system enforces them for files).
PbsResult analyse_pbs(const PbsSystem& system, const PbsOptions& options = {});

/// Checks a table against the model: frames in order and not overlapping, each batch eligible
/// and ready at its start (arrived, in job order, PBS work-conserving at the batch level), its
/// length the batch completion time, every job of the hyperperiod once and by its deadline.
/// Returns the first problem found, or an empty string.
std::string check_pbs_table(const PbsSystem& system, const std::vector<PbsFrame>& table);

}  // namespace gpurt
