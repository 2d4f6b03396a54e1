// Uniprocessor fixed-priority building blocks: the classic response-time analysis and the
// multi-segment self-suspension workload function that RTGPU §2.2 summarises from its ref. [23]
// (Lemmas 2.1-2.3). Pure functions; times in nanoseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpurt/core/time.hpp"

namespace gpurt {

/// A sporadic task for the classic analysis: WCET C_j and period T_j.
struct FpTask {
  Nanos wcet{0};
  Nanos period{0};
};

/// Classic fixed-priority response-time analysis (Joseph & Pandya 1986; Audsley et al. 1993):
/// the least R with R = C + B + Σ_{j ∈ higher} ceil(R / T_j)·C_j, iterated from C + B.
/// nullopt when the iteration passes `limit` (e.g. the deadline). Periods must be > 0.
std::optional<Nanos> fp_response_time(Nanos wcet, Nanos blocking, std::span<const FpTask> higher,
                                      Nanos limit);

/// A task as ONE resource sees it (RTGPU §2.2): n execution segments on the resource with
/// suspensions (time spent elsewhere) between them, in the form Lemma 2.1 needs.
struct SuspendingTask {
  std::vector<Nanos> exec;  ///< L^_i^j, upper bounds of the execution segments, j = 0..n-1
  std::vector<Nanos> gap;   ///< S_i(j), j = 0..n-2: minimum separation after segment j, same job
  Nanos first_job_gap{0};   ///< S_i(n-1): after the last segment of the FIRST job in the window
  Nanos later_job_gap{0};   ///< S_i(j), j ≡ n-1 (mod n), j > n-1: after a later job's last segment
};

/// S_i(j) for any j >= 0: the minimum inter-arrival time between execution segments j and j+1
/// counted from the window's first segment (Lemma 2.1's three cases).
Nanos min_inter_arrival(const SuspendingTask& task, std::int64_t j);

/// Lemma 2.1 (also Lemmas 5.2 and 5.4, which instantiate it): W_i^h(t), the most execution
/// the task can place in a window of length t that starts with its segment h:
/// Σ_{j=h}^{l} L^(j mod n) + min(L^((l+1) mod n), t − Σ_{j=h}^{l}(L^(j mod n) + S_i(j))),
/// l the largest index with Σ_{j=h}^{l}(L^(j mod n) + S_i(j)) <= t.
/// 0 for a task with no segment on the resource. h < n.
Nanos segment_workload(const SuspendingTask& task, std::size_t h, Nanos t);

/// max over h ∈ [0, n-1] of segment_workload(task, h, t): the term Lemmas 2.2, 5.3, 5.5 sum.
Nanos max_segment_workload(const SuspendingTask& task, Nanos t);

/// Total interference max_h W_i^h(t), summed over `higher` (Lemma 2.2's sum).
Nanos total_interference(std::span<const SuspendingTask> higher, Nanos t);

/// A workload function near a window length t: its value at t, its slope just right of t (each
/// W_i^h rises by 1 ns per ns inside a segment and stays flat in a gap), and `next_break` > t,
/// up to which every W_i^h involved stays linear (kUnboundedTime: never changes again).
struct WorkloadPiece {
  Nanos value{0};
  std::int64_t slope{0};
  Nanos next_break{kUnboundedTime};
};

/// segment_workload with its slope and next breakpoint: inside a segment the slope is 1 until
/// the segment ends (segments that follow with no gap, and so no change of slope, included);
/// in a gap it is 0 until the next segment starts.
WorkloadPiece segment_workload_piece(const SuspendingTask& task, std::size_t h, Nanos t);

/// total_interference with the slope of its sum just right of t (each task's max over h takes
/// the steepest of the h that attain it) and the first breakpoint of any W_i^h.
WorkloadPiece interference_piece(std::span<const SuspendingTask> higher, Nanos t);

/// Least fixed point of R = base + total_interference(higher, R), as least_fixed_point finds it
/// but stepping over every stretch where the interference rises at least as fast as R: there
/// base + I(x) − x never falls (each task's max of linear pieces is convex up to the next
/// breakpoint), so no fixed point lies before the breakpoint and the iterate jumps to it. A
/// higher-priority segment of 10 s no longer costs 10^10 steps of 1 ns (it ran into
/// kMaxFixedPointSteps and answered "no bound"); the steps left are bounded by the breakpoints
/// passed. nullopt as least_fixed_point.
std::optional<Nanos> least_interference_fixed_point(Nanos base, std::span<const SuspendingTask> higher,
                                                    Nanos limit);

/// Iterations least_fixed_point takes at most: each moves R up by at least 1 ns, so only a
/// higher-priority load that (nearly) fills its resource comes near it (about half a second).
inline constexpr std::int64_t kMaxFixedPointSteps = 10'000'000;

/// A wall-clock limit on the analyses this thread runs while it is in scope (RtgpuOptions::
/// max_seconds): least_fixed_point and the RTGPU allocation searches call check(), which throws
/// gpurt::Error once the limit has passed. Nested budgets keep the sooner end. 0 seconds: none.
class AnalysisBudget {
 public:
  explicit AnalysisBudget(double seconds);
  ~AnalysisBudget();
  AnalysisBudget(const AnalysisBudget&) = delete;
  AnalysisBudget& operator=(const AnalysisBudget&) = delete;
  /// Throws gpurt::Error naming the limit when this thread's budget has run out.
  static void check();

 private:
  std::int64_t _outer_end;
  double _outer_seconds;
};

/// Least fixed point of R = base + f(R) for a non-decreasing f >= 0, iterated from `base`;
/// nullopt once an iterate exceeds `limit`, or after kMaxFixedPointSteps iterates (then no
/// bound within `limit` was found: the safe answer, since the least fixed point, if any, lies
/// above every iterate), or once an iterate reaches kUnboundedTime (the sums saturate there).
template <class F>
std::optional<Nanos> least_fixed_point(Nanos base, Nanos limit, F&& f) {
  Nanos r = base;
  for (std::int64_t step = 0; r <= limit && step < kMaxFixedPointSteps; ++step) {
    if (step % 64 == 63) AnalysisBudget::check();
    const Nanos next = saturating_add(base, f(r));
    if (next >= kUnboundedTime) return std::nullopt;  // beyond any deadline a file can give
    if (next == r) return r;
    r = next;
  }
  return std::nullopt;
}

}  // namespace gpurt
