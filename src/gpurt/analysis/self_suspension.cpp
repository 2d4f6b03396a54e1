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

WorkloadPiece segment_workload_piece(const SuspendingTask& task, std::size_t h, Nanos t) {
  const std::size_t n = task.exec.size();
  if (n == 0) return {};
  // One later job (segments j ≡ 0..n-1 past the first job) spans exactly this much time.
  Nanos cycle_len = task.later_job_gap, cycle_work{0};
  for (std::size_t q = 0; q < n; ++q) {
    cycle_work = saturating_add(cycle_work, task.exec[q]);
    cycle_len = saturating_add(cycle_len, saturating_add(task.exec[q], q + 1 < n ? task.gap[q] : Nanos{0}));
  }
  if (cycle_work == Nanos{0}) return {};  // no execution at all on this resource
  if (t < Nanos{0}) return {Nanos{0}, 0, Nanos{0}};
  Nanos used{0}, work{0};  // used = Σ_{j=h}^{l} (L^ + S), work = Σ_{j=h}^{l} L^
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
    if (step > t - used) {  // segment l+1, truncated by t (used <= t: no overflow)
      const Nanos into = t - used;
      if (into >= l) return {work + l, 0, saturating_add(used, step)};  // in the gap after it
      // Inside the segment: the slope stays 1 through every following segment that starts with
      // no gap. After 2n of them the rest repeats the later jobs' pattern: all gaps are 0, and
      // the task runs without end.
      Nanos end = saturating_add(used, l);
      for (std::int64_t k = j, steps = 0; min_inter_arrival(task, k) == Nanos{0}; ++k) {
        if (++steps > 2 * sn || end >= kUnboundedTime) {
          end = kUnboundedTime;
          break;
        }
        end = saturating_add(end, task.exec[static_cast<std::size_t>((k + 1) % sn)]);
      }
      return {work + into, 1, end};
    }
    used += step;
    work += l;
    ++j;
  }
}

Nanos segment_workload(const SuspendingTask& task, std::size_t h, Nanos t) {
  if (t <= Nanos{0}) return Nanos{0};
  return segment_workload_piece(task, h, t).value;
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

WorkloadPiece interference_piece(std::span<const SuspendingTask> higher, Nanos t) {
  WorkloadPiece sum;
  for (const SuspendingTask& task : higher) {
    WorkloadPiece best;
    for (std::size_t h = 0; h < task.exec.size(); ++h) {
      const WorkloadPiece p = segment_workload_piece(task, h, t);
      if (p.value > best.value || (p.value == best.value && p.slope > best.slope)) {
        best.value = p.value;
        best.slope = p.slope;
      }
      sum.next_break = std::min(sum.next_break, p.next_break);
    }
    sum.value = saturating_add(sum.value, best.value);
    sum.slope += best.slope;
  }
  return sum;
}

std::optional<Nanos> least_interference_fixed_point(Nanos base, std::span<const SuspendingTask> higher,
                                                    Nanos limit) {
  Nanos r = base;
  for (std::int64_t step = 0; r <= limit && step < kMaxFixedPointSteps; ++step) {
    if (step % 64 == 63) AnalysisBudget::check();
    const WorkloadPiece p = interference_piece(higher, r);
    const Nanos next = saturating_add(base, p.value);
    if (next >= kUnboundedTime) return std::nullopt;  // beyond any deadline a file can give
    if (next == r) return r;
    // next > r here: base + I(r) − r > 0 and, with a slope of 1 or more, stays so up to the break.
    r = p.slope >= 1 && p.next_break > next ? p.next_break : next;
  }
  return std::nullopt;
}

}  // namespace gpurt
