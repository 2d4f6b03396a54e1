#include "gpurt/analysis/self_suspension.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/time.hpp"

namespace gpurt {

namespace {
// This thread's budget: when it ends (CLOCK_MONOTONIC ns; 0: no budget) and its length.
thread_local std::int64_t t_budget_end = 0;
thread_local double t_budget_seconds = 0;
}  // namespace

AnalysisBudget::AnalysisBudget(double seconds) : _outer_end(t_budget_end), _outer_seconds(t_budget_seconds) {
  if (!(seconds > 0)) return;
  const std::int64_t end =
      monotonic_ns() + static_cast<std::int64_t>(std::min(seconds, 1e9) * 1e9);  // 1e9 s: about 31 years
  if (t_budget_end == 0 || end < t_budget_end) {
    t_budget_end = end;
    t_budget_seconds = seconds;
  }
}

AnalysisBudget::~AnalysisBudget() {
  t_budget_end = _outer_end;
  t_budget_seconds = _outer_seconds;
}

void AnalysisBudget::check() {
  if (t_budget_end != 0 && monotonic_ns() > t_budget_end)
    throw Error(fmt::format("the analysis ran past its time limit of {} s (--max-seconds raises it; 0: none)",
                            t_budget_seconds));
}

std::optional<Nanos> fp_response_time(Nanos wcet, Nanos blocking, std::span<const FpTask> higher,
                                      Nanos limit) {
  for (const FpTask& t : higher) {
    if (t.period <= Nanos{0}) throw Error("fp_response_time: a period must be > 0");
  }
  // A higher-priority utilisation of 1 or more leaves no fixed point: Σ ceil(R/T_j)·C_j >= R.
  long double load = 0;
  for (const FpTask& t : higher) load += static_cast<long double>(t.wcet.count()) / t.period.count();
  if (load >= 1 && saturating_add(wcet, blocking) > Nanos{0}) return std::nullopt;
  // R^{(0)} = C + B; R^{(k+1)} = C + B + Σ ceil(R^{(k)} / T_j)·C_j (Joseph & Pandya 1986).
  return least_fixed_point(saturating_add(wcet, blocking), limit, [&](Nanos r) {
    Nanos interference{0};
    for (const FpTask& t : higher)
      interference =
          saturating_add(interference, saturating_mul(ceil_div(r.count(), t.period.count()), t.wcet));
    return interference;
  });
}

Nanos min_inter_arrival(const SuspendingTask& task, std::int64_t j) {
  const auto n = static_cast<std::int64_t>(task.exec.size());
  const std::int64_t position = j % n;
  if (position != n - 1) return task.gap[static_cast<std::size_t>(position)];  // within one job
  if (j == n - 1) return task.first_job_gap;  // the first job's last segment (deadline-delayed)
  return task.later_job_gap;                  // a later job's last segment
}

Nanos segment_workload(const SuspendingTask& task, std::size_t h, Nanos t) {
  const std::size_t n = task.exec.size();
  if (n == 0 || t <= Nanos{0}) return Nanos{0};
  // One later job (segments j ≡ 0..n-1 past the first job) spans exactly this much time.
  Nanos cycle_len = task.later_job_gap, cycle_work{0};
  for (std::size_t q = 0; q < n; ++q) {
    cycle_work = saturating_add(cycle_work, task.exec[q]);
    cycle_len = saturating_add(cycle_len, saturating_add(task.exec[q], q + 1 < n ? task.gap[q] : Nanos{0}));
  }
  if (cycle_work == Nanos{0}) return Nanos{0};  // no execution at all on this resource
  Nanos used{0}, work{0};                       // used = Σ_{j=h}^{l} (L^ + S), work = Σ_{j=h}^{l} L^
  auto j = static_cast<std::int64_t>(h);
  const auto sn = static_cast<std::int64_t>(n);
  for (;;) {
    if (j >= sn && j % sn == 0) {
      // Whole later jobs repeat identically: take all that fit at once. Equivalent to stepping
      // through them one segment at a time, since every prefix of them still fits.
      const std::int64_t jobs = (t - used) / cycle_len;
      used += jobs * cycle_len;
      work += jobs * cycle_work;
      j += jobs * sn;
    }
    const Nanos l = task.exec[static_cast<std::size_t>(j % sn)];
    const Nanos step = saturating_add(l, min_inter_arrival(task, j));
    if (used + step > t) return work + std::min(l, t - used);  // segment l+1, truncated by t
    used += step;
    work += l;
    ++j;
  }
}

Nanos max_segment_workload(const SuspendingTask& task, Nanos t) {
  Nanos best{0};
  for (std::size_t h = 0; h < task.exec.size(); ++h) best = std::max(best, segment_workload(task, h, t));
  return best;
}

Nanos total_interference(std::span<const SuspendingTask> higher, Nanos t) {
  Nanos sum{0};
  for (const SuspendingTask& task : higher) sum = saturating_add(sum, max_segment_workload(task, t));
  return sum;
}

}  // namespace gpurt
