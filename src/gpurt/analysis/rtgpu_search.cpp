// SM allocation searches for RTGPU (§5.5, Algorithm 2) and the result assembly.
//
// Exactness of the `exact` search for method rtgpu. Write A = (GN_1..GN_n) in priority order
// and R_k(A) for task k's Theorem 5.6 bound.
//  (a) R_k depends only on GN_1..GN_k: lower-priority tasks enter R_k only through their copy
//      lengths (Lemma 5.3's blocking), which no allocation changes.
//  (b) R_k is non-increasing in GN_k: GN_k enters only through GR^_k (Lemma 5.1, non-increasing
//      in GN_k, rounding included), added in eq. (7) and to the constant of eq. (8)'s fixed
//      point; every fixed point here is the least one of a non-decreasing map, so a smaller
//      constant gives a smaller or equal fixed point.
//  (c) R_k is non-decreasing in GN_i for i ∈ hp(k): GN_i enters only through GR_lo_i, a
//      suspension LOWER bound in MS_i and CS_i (Lemmas 5.2, 5.4). W_i^h(t) equals
//      Σ_j min(L^_j, max(0, t − start_j)) with start_j the segment's place in Lemma 2.1's packed
//      sequence, so it is non-increasing in every start. A smaller GR_lo_i shrinks the gaps
//      inside a job and the job's span; the last-case gap T − span grows by the same amount, so
//      a later job still starts max(T, span) after the previous one: no start moves later and
//      interference does not drop.
// The search gives task 1 the least GN_1 with R_1 <= D_1, then task 2 the least GN_2 given GN_1,
// and so on (binary search, valid by (b)). Claim: if any feasible allocation F exists, the
// search's G satisfies G_k <= F_k for every k, so Σ G <= Σ F <= GN and the search succeeds.
// Induction on k: by (c) and G_i <= F_i for i < k, R_k(G_1..G_{k-1}, F_k) <= R_k(F_1..F_k) <= D_k,
// so F_k is admissible when the search picks G_k, and G_k, the least admissible, is <= F_k.
// Conversely the search only returns allocations it has checked task by task, which by (a)
// stay valid as lower-priority tasks are added. Hence exact ⇔ brute force.
// The same argument makes §5.5's greedy (add an SM to every task that misses) exact as well
// under this analysis: it never raises a task past the least count its current higher-priority
// allocation needs, and by (c) that count only grows towards the search's.
// STGM is different: a busy-waiting higher-priority task with more SMs holds the CPU for less
// time, so (c) reverses; its exact search is a depth-first search in priority order that
// prunes a prefix as soon as its last task misses (sound by (a)).
//
// A task without a GPU segment (m_i = 1: CPU work only) gets no SM (§5.2 allocates SMs to GPU
// segments): GN_i = 0 in every search, and the SMs go to the other tasks.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/analysis/self_suspension.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

std::string_view to_string(RtgpuMethod m) {
  switch (m) {
    case RtgpuMethod::rtgpu:
      return "rtgpu";
    case RtgpuMethod::self_suspension:
      return "self-suspension";
    case RtgpuMethod::stgm:
      return "stgm";
    case RtgpuMethod::gcaps_rr:
      return "gcaps-rr";
  }
  return "?";
}

std::string_view to_string(RtgpuSearch s) {
  switch (s) {
    case RtgpuSearch::brute:
      return "brute";
    case RtgpuSearch::greedy:
      return "greedy";
    case RtgpuSearch::exact:
      return "exact";
  }
  return "?";
}

namespace {

struct Search {
  const RtgpuSystem& s;
  RtgpuMethod method;
  std::vector<std::size_t> order;
  int total;                           // GN
  std::int64_t limit;                  // the most analyses to run (RtgpuOptions::analysis_limit)
  std::int64_t tried = 0;              // analyses run
  std::vector<int> gpu_after;          // per rank: tasks with a GPU segment of lower priority
  std::optional<RtgpuSearch> running;  // the search under way (for the limit's message); none:
                                       // a method that checks one allocation

  Search(const RtgpuSystem& system, RtgpuMethod m, std::vector<std::size_t> o, int sms, std::int64_t lim)
      : s(system), method(m), order(std::move(o)), total(sms), limit(lim), gpu_after(order.size(), 0) {
    for (std::size_t r = order.size(); r-- > 1;) gpu_after[r - 1] = gpu_after[r] + (uses_gpu(r) ? 1 : 0);
  }
  bool uses_gpu(std::size_t rank) const { return !s.tasks[order[rank]].gpu.empty(); }
  int gpu_tasks() const { return gpu_after.empty() ? 0 : gpu_after[0] + (uses_gpu(0) ? 1 : 0); }

  bool task_ok(std::size_t rank, std::span<const int> by_rank) {
    AnalysisBudget::check();
    if (++tried > limit) {
      if (running == RtgpuSearch::exact && method != RtgpuMethod::rtgpu) {
        throw Error(fmt::format(
            "the {} search of {} stopped after {} task analyses without an answer ({} tasks, {} SMs): its "
            "depth-first search is exponential in the tasks; use the greedy search (--search greedy), or "
            "raise the limit (--max-analyses)",
            to_string(RtgpuSearch::exact), to_string(method), limit, n(), total));
      }
      throw Error(fmt::format(
          "the {} of {} stopped after {} task analyses without an answer ({} tasks, {} SMs; --max-analyses "
          "raises the limit)",
          running ? fmt::format("{} search", to_string(*running)) : std::string("analysis"),
          to_string(method), limit, n(), total));
    }
    return rtgpu_task_bounds(s, order, rank, by_rank, method).schedulable;
  }
  bool all_ok(std::span<const int> by_rank) {
    for (std::size_t r = 0; r < order.size(); ++r) {
      if (!task_ok(r, by_rank)) return false;
    }
    return true;
  }
  std::size_t n() const { return order.size(); }
  // The most SMs rank k can take leaving one for each lower-priority task that uses the GPU;
  // none for a task without GPU segments.
  int room(std::size_t k, int used) const { return uses_gpu(k) ? total - used - gpu_after[k] : 0; }

  // Least g in [1, hi] with task_ok, given task_ok at hi (monotone by (b)); 0 for a task
  // without GPU segments.
  int least(std::size_t k, std::vector<int>& by_rank, int hi) {
    int lo = std::min(1, hi);
    while (lo < hi) {
      by_rank[k] = lo + (hi - lo) / 2;
      if (task_ok(k, by_rank)) {
        hi = by_rank[k];
      } else {
        lo = by_rank[k] + 1;
      }
    }
    by_rank[k] = hi;
    return hi;
  }

  bool minimal(std::vector<int>& by_rank) {
    int used = 0;
    for (std::size_t k = 0; k < n(); ++k) {
      by_rank[k] = room(k, used);
      if (!task_ok(k, by_rank)) return false;  // even the most SMs do not help: infeasible by the proof
      used += least(k, by_rank, by_rank[k]);
    }
    return true;
  }

  bool depth_first(std::vector<int>& by_rank, std::size_t k, int used) {
    if (k == n()) return true;
    const int hi = room(k, used);
    by_rank[k] = hi;
    if (!task_ok(k, by_rank)) return false;
    for (int g = least(k, by_rank, hi); g <= hi; ++g) {
      by_rank[k] = g;
      if (depth_first(by_rank, k + 1, used + g)) return true;
    }
    by_rank[k] = hi;
    return false;
  }

  bool greedy(std::vector<int>& by_rank) {
    int used = gpu_tasks();
    for (;;) {
      std::vector<std::size_t> missing;
      for (std::size_t r = 0; r < n(); ++r) {
        if (!task_ok(r, by_rank)) {
          // Under rtgpu no SM can help a task without GPU segments: more SMs above it only
          // shorten the suspensions that interfere ((c) above). Under STGM they shorten the
          // busy-waiting of the tasks above it, so the others still get their SM.
          if (!uses_gpu(r) && method == RtgpuMethod::rtgpu) return false;
          missing.push_back(r);
        }
      }
      if (missing.empty()) return true;
      std::erase_if(missing, [&](std::size_t r) { return !uses_gpu(r); });
      if (missing.empty()) {
        // Only tasks without GPU segments miss: give the GPU tasks above them SMs, top first.
        for (std::size_t r = 0; r < n(); ++r)
          if (uses_gpu(r)) missing.push_back(r);
        if (missing.empty()) return false;  // no task uses the GPU: no SM can help
      }
      if (used == total) return false;
      for (std::size_t r : missing) {
        if (used == total) break;
        ++by_rank[r];
        ++used;
      }
    }
  }

  bool brute(std::vector<int>& by_rank, std::size_t k, int used) {
    if (k == n()) return all_ok(by_rank);
    if (!uses_gpu(k)) {
      by_rank[k] = 0;
      return brute(by_rank, k + 1, used);
    }
    for (int g = 1; g <= room(k, used); ++g) {
      by_rank[k] = g;
      if (brute(by_rank, k + 1, used + g)) return true;
    }
    return false;
  }
};

// C(GN, n): allocations with every GN_i >= 1 and Σ GN_i <= GN; saturates at `cap` + 1.
std::int64_t brute_force_size(int total, std::size_t n, std::int64_t cap) {
  if (static_cast<std::int64_t>(n) > total) return 0;
  long double c = 1;
  for (std::size_t i = 0; i < n; ++i) {
    c = c * static_cast<long double>(total - static_cast<int>(i)) / static_cast<long double>(i + 1);
    if (c > static_cast<long double>(cap)) return cap + 1;
  }
  return static_cast<std::int64_t>(c + 0.5L);
}

}  // namespace

RtgpuResult analyse_rtgpu(const RtgpuSystem& system, const RtgpuOptions& options) {
  validate(system);
  const AnalysisBudget budget(options.max_seconds);
  Search search(system, options.method, priority_order(system), system.platform.sms, options.analysis_limit);
  const std::size_t n = search.n();
  const int gpu_tasks = search.gpu_tasks();
  std::vector<int> by_rank(n, 1);
  for (std::size_t r = 0; r < n; ++r)
    if (!search.uses_gpu(r)) by_rank[r] = 0;
  bool found = false;
  if (uses_whole_gpu(options.method)) {
    // No allocation: every kernel runs on the whole GPU, one at a time.
    std::fill(by_rank.begin(), by_rank.end(), system.platform.sms);
    found = search.all_ok(by_rank);
  } else if (gpu_tasks <= search.total) {
    search.running = options.search;
    switch (options.search) {
      case RtgpuSearch::brute: {
        const std::int64_t size =
            brute_force_size(search.total, static_cast<std::size_t>(gpu_tasks), options.brute_force_limit);
        if (size > options.brute_force_limit) {
          throw Error(fmt::format(
              "brute force would try more than {} allocations ({} SMs, {} tasks with GPU segments); use the "
              "exact search",
              options.brute_force_limit, search.total, gpu_tasks));
        }
        found = search.brute(by_rank, 0, 0);
        if (!found) search.minimal(by_rank);  // report where the exact search stops
        break;
      }
      case RtgpuSearch::greedy:
        found = search.greedy(by_rank);
        break;
      case RtgpuSearch::exact:
        found = options.method == RtgpuMethod::rtgpu ? search.minimal(by_rank)
                                                     : search.depth_first(by_rank, 0, 0);
        break;
    }
    if (!found) {
      // Keep the prefix the search settled; give every later task one SM (none without GPU work).
      int used = 0;
      for (std::size_t r = 0; r < n; ++r) {
        by_rank[r] = search.uses_gpu(r) ? std::clamp(by_rank[r], 1, std::max(1, search.room(r, used))) : 0;
        used += by_rank[r];
      }
    }
  }
  RtgpuResult result;
  result.method = options.method;
  result.search = options.search;
  result.physical_sms = system.platform.sms;
  result.virtual_sms_per_sm = system.virtual_sms_per_sm;
  result.allocation_found = found;
  result.allocations_tried = search.tried;
  result.tasks.resize(n);
  bool all = true;
  std::string first_miss;  // the highest-priority task that misses, once one does
  for (std::size_t r = 0; r < n; ++r) {
    const RtgpuTask& t = system.tasks[search.order[r]];
    RtgpuTaskResult& out = result.tasks[search.order[r]];
    out.name = t.name;
    out.priority = t.priority;
    out.physical_sms = by_rank[r];
    out.virtual_sms = by_rank[r] * system.virtual_sms_per_sm;
    out.deadline = t.deadline;
    out.bounds = rtgpu_task_bounds(system, search.order, r, by_rank, options.method);
    if (gpu_tasks > search.total && !uses_whole_gpu(options.method)) {
      out.bounds.schedulable = false;
      out.bounds.reason =
          fmt::format("{} tasks with GPU segments but only {} SMs: federated scheduling needs one each",
                      gpu_tasks, search.total);
    }
    if (!first_miss.empty()) {
      // Its interference terms use the response bounds of the task that misses, which are not
      // bounds of a schedule that misses a deadline.
      out.analysable = false;
      out.bounds.schedulable = false;
      out.bounds.reason = fmt::format("not analysable (a higher-priority task misses: {})", first_miss);
    } else if (!out.bounds.schedulable) {
      first_miss = t.name;
    }
    all = all && out.bounds.schedulable;
  }
  result.schedulable = found && all;
  return result;
}

}  // namespace gpurt
