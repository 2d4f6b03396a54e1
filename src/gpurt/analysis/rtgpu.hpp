// RTGPU (RTGPU seed §5): federated GPU allocation on virtual SMs with fixed-priority CPU and
// bus analysis, the two baselines of §6 (self-suspension, STGM: readings of the seed's text, their
// papers' analyses were not found), GCAPS's round-robin analysis (rtgpu_gcaps.hpp), and the
// allocation searches.
// Pure functions of a task system; see docs/rtgpu.md for formulas and choices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/analysis/rtgpu_lemmas.hpp"
#include "gpurt/model/rtgpu_task.hpp"

namespace gpurt {

enum class RtgpuMethod {
  rtgpu,            ///< §5: federated GPU, FP bus (Lemmas 5.2-5.3), FP CPU (5.4-5.5), Theorem 5.6
  self_suspension,  ///< §6 baseline [47]: copy+kernel+copy as one non-preemptive suspension, whole GPU
  stgm,             ///< §6 baseline [38]: federated GPU, CPU busy-waits through copies and kernels
  gcaps_rr,  ///< GCAPS (ECRTS 2024) §6.2.2: default time-sliced round-robin GPU, whole GPU, suspending
};
/// True for the methods without an SM allocation (every kernel on the whole GPU).
constexpr bool uses_whole_gpu(RtgpuMethod m) {
  return m == RtgpuMethod::self_suspension || m == RtgpuMethod::gcaps_rr;
}
enum class RtgpuSearch {
  brute,   ///< Algorithm 2: every allocation GN_i >= 1, Σ GN_i <= GN (the reference)
  greedy,  ///< §5.5: start at 1 SM each, add one SM to every task that misses its deadline
  exact,   ///< rtgpu: minimal SMs per task in priority order (exact, see rtgpu_search.cpp);
           ///< stgm: depth-first search in priority order with pruning (exact)
};
std::string_view to_string(RtgpuMethod method);
std::string_view to_string(RtgpuSearch search);

struct RtgpuOptions {
  RtgpuMethod method = RtgpuMethod::rtgpu;
  RtgpuSearch search = RtgpuSearch::exact;
  /// Brute force refuses (throws gpurt::Error) when it would try more allocations than this.
  std::int64_t brute_force_limit = 20'000'000;
  /// Any search stops with gpurt::Error after this many task analyses: STGM's exact depth-first
  /// search is exponential in the tasks when a low-priority task cannot meet its deadline.
  std::int64_t analysis_limit = 2'000'000;
  /// Any analysis stops with gpurt::Error after this many seconds of wall-clock time (checked
  /// between task analyses and within their fixed-point iterations; 0: no limit): a set of
  /// hundreds of tasks of hundreds of segments takes hours (the cost grows about as the fifth
  /// power of the count).
  double max_seconds = 30;
};

/// One task's outcome under the reported allocation.
struct RtgpuTaskResult {
  std::string name;
  int priority = 0;
  int physical_sms = 0;  ///< GN_i (self-suspension: the whole GPU, shared)
  int virtual_sms = 0;   ///< 2·GN_i (virtual_sms_per_sm · GN_i)
  Nanos deadline{0};
  RtgpuTaskBounds bounds;  ///< bounds.response: Theorem 5.6 (or the baseline's bound)
  /// False when a higher-priority task misses its deadline: the interference terms then rest on
  /// bounds that do not hold (docs/rtgpu.md choice 1), so this task's numbers prove nothing and
  /// it counts as not schedulable.
  bool analysable = true;
};

struct RtgpuResult {
  bool schedulable = false;
  RtgpuMethod method = RtgpuMethod::rtgpu;
  RtgpuSearch search = RtgpuSearch::exact;
  int physical_sms = 0;  ///< GN, the platform's SMs
  int virtual_sms_per_sm = 2;
  /// True when the search found an allocation under which every task meets its deadline.
  /// When false, `tasks` shows the allocation where the search gave up (see docs/rtgpu.md).
  bool allocation_found = false;
  std::int64_t allocations_tried = 0;  ///< full or per-task analyses the search ran
  std::vector<RtgpuTaskResult> tasks;  ///< in file order
};

/// Analyses `system` with `options.method`, searching an SM allocation with `options.search`
/// (self-suspension has no allocation: every kernel gets the whole GPU). Throws gpurt::Error on
/// an invalid system or a brute force over its limit.
RtgpuResult analyse_rtgpu(const RtgpuSystem& system, const RtgpuOptions& options = {});

/// The bounds of every task (file order) for one fixed allocation `physical_sms` (file order,
/// each >= 1). The allocation is not checked against the GPU size.
std::vector<RtgpuTaskBounds> analyse_rtgpu_allocation(const RtgpuSystem& system, RtgpuMethod method,
                                                      std::span<const int> physical_sms);

/// RTGPU eq. (10), the GPU throughput the virtual-SM model gains over whole physical SMs under
/// the allocation `physical_sms` (file order, each >= 1): Σ_i (GN_i / GN) · (v·ΣGW_i / Σ α·GW_i − 1),
/// v = virtual_sms_per_sm, GW at its upper bound. On GN_i SMs a kernel takes GW/GN_i without
/// interleaving and α·GW/(v·GN_i) with it (Lemma 5.1's terms), so a task whose kernels share one α
/// gains v/α − 1 (the seed's 2/α − 1); a task with several kernels weighs them by their work.
/// SMs no task holds gain nothing. Throws gpurt::Error for a wrong allocation size or a count < 1.
double rtgpu_throughput_gain(const RtgpuSystem& system, std::span<const int> physical_sms);

/// The bounds of the task with priority rank `rank` (0 = highest; `order` from priority_order)
/// when ranks 0..rank hold by_rank[0..rank] physical SMs. Under every method a task's bounds
/// depend only on its own and higher-priority allocations (lower-priority tasks enter through
/// their copy lengths alone), which the searches rely on.
RtgpuTaskBounds rtgpu_task_bounds(const RtgpuSystem& system, std::span<const std::size_t> order,
                                  std::size_t rank, std::span<const int> by_rank, RtgpuMethod method);

}  // namespace gpurt
