#include "gpurt/analysis/rtgpu_lemmas.hpp"

#include <algorithm>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {
std::size_t at(std::int64_t j) { return static_cast<std::size_t>(j); }
}  // namespace

TimeBounds gpu_response_bounds(const RtgpuGpuSegment& g, int virtual_sms) {
  if (virtual_sms < 1) throw Error("gpu_response_bounds: need at least one virtual SM");
  const std::int64_t v = virtual_sms;
  // Worst-case virtual work GW^·α, rounded up to whole nanoseconds, with α the decimal the file
  // writes (a binary product lost the ceiling: 100000000000002 · 1.0001 is 100010000000002.0002).
  const auto inflated = scale_up(g.work.hi, g.alpha);
  if (!inflated) throw Error("gpu_response_bounds: GW·alpha does not fit in 64-bit nanoseconds");
  TimeBounds r;
  r.lo = Nanos{g.work.lo.count() / v};  // best case: no overhead, no interleaving slowdown
  // GL^ is a constant launch cost, not parallelised and not inflated by α; the rest of the
  // (inflated) work is embarrassingly parallel on the 2GN_i virtual SMs.
  const Nanos parallel = std::max(Nanos{0}, *inflated - g.overhead);
  r.hi = g.overhead + Nanos{ceil_div(parallel.count(), v)};
  return r;
}

std::vector<TimeBounds> gpu_response_bounds(const RtgpuTask& task, int virtual_sms) {
  std::vector<TimeBounds> out;
  out.reserve(task.gpu.size());
  for (const RtgpuGpuSegment& g : task.gpu) out.push_back(gpu_response_bounds(g, virtual_sms));
  return out;
}

Nanos bus_min_inter_arrival(const RtgpuTask& task, std::span<const TimeBounds> gpu, std::int64_t j) {
  const auto n = static_cast<std::int64_t>(task.copy.size());  // 2m_i − 2
  const std::int64_t m = task.segments();
  if (n == 0) throw Error("bus_min_inter_arrival: task \"" + task.name + "\" has no copy segment");
  const std::int64_t r = j % n;
  if (r != n - 1) {
    // After ML^{2q} comes G^q; after ML^{2q+1} comes CL^{q+1}: their lower bounds separate the copies.
    return r % 2 == 0 ? gpu[at(r / 2)].lo : task.cpu[at((r + 1) / 2)].lo;
  }
  if (j == n - 1) {
    // Last copy of the first job in the window: that job may finish as late as its deadline,
    // then the next job needs at least CL_lo^{m-1} (this job) and CL_lo^0 (next job) first.
    return task.period - task.deadline + task.cpu[at(m - 1)].lo + task.cpu[0].lo;
  }
  // A later job: T minus the copy span of a job whose segments all took their extreme lengths.
  Nanos span{0};
  for (const TimeBounds& c : task.copy) span = saturating_add(span, c.hi);
  for (std::int64_t q = 1; q <= m - 2; ++q) span = saturating_add(span, task.cpu[at(q)].lo);
  for (const TimeBounds& g : gpu) span = saturating_add(span, g.lo);
  // Clamped at 0 (the seed leaves T < span open): a sequential job's segments cannot overlap.
  return std::max(Nanos{0}, task.period - span);
}

Nanos cpu_min_inter_arrival(const RtgpuTask& task, std::span<const TimeBounds> gpu, std::int64_t j) {
  const std::int64_t m = task.segments();
  const std::int64_t r = j % m;
  if (r != m - 1) {
    // Between CL^r and CL^{r+1}: copy ML^{2r}, kernel G^r, copy ML^{2r+1}, each at its lower bound.
    return task.copy[at(2 * r)].lo + gpu[at(r)].lo + task.copy[at(2 * r + 1)].lo;
  }
  if (j == m - 1) return task.period - task.deadline;  // the first job finished at its deadline
  Nanos span{0};
  for (const TimeBounds& c : task.cpu) span = saturating_add(span, c.hi);
  for (const TimeBounds& c : task.copy) span = saturating_add(span, c.lo);
  for (const TimeBounds& g : gpu) span = saturating_add(span, g.lo);
  return std::max(Nanos{0}, task.period - span);  // clamped at 0 as in bus_min_inter_arrival
}

SuspendingTask bus_view(const RtgpuTask& task, std::span<const TimeBounds> gpu) {
  SuspendingTask v;
  const auto n = static_cast<std::int64_t>(task.copy.size());
  if (n == 0) return v;  // m_i = 1: the task never uses the bus
  for (const TimeBounds& c : task.copy) v.exec.push_back(c.hi);
  for (std::int64_t j = 0; j + 1 < n; ++j) v.gap.push_back(bus_min_inter_arrival(task, gpu, j));
  v.first_job_gap = bus_min_inter_arrival(task, gpu, n - 1);
  v.later_job_gap = bus_min_inter_arrival(task, gpu, 2 * n - 1);
  return v;
}

SuspendingTask cpu_view(const RtgpuTask& task, std::span<const TimeBounds> gpu) {
  SuspendingTask v;
  const std::int64_t m = task.segments();
  for (const TimeBounds& c : task.cpu) v.exec.push_back(c.hi);
  for (std::int64_t j = 0; j + 1 < m; ++j) v.gap.push_back(cpu_min_inter_arrival(task, gpu, j));
  v.first_job_gap = cpu_min_inter_arrival(task, gpu, m - 1);
  v.later_job_gap = cpu_min_inter_arrival(task, gpu, 2 * m - 1);
  return v;
}

Nanos bus_workload(const SuspendingTask& bus, std::size_t h, Nanos t) { return segment_workload(bus, h, t); }
Nanos cpu_workload(const SuspendingTask& cpu, std::size_t h, Nanos t) { return segment_workload(cpu, h, t); }

std::optional<Nanos> copy_response_bound(Nanos copy_hi, std::span<const SuspendingTask> higher_bus,
                                         Nanos lower_blocking, Nanos limit) {
  // A copy of length 0 is no copy (the one-copy model, RTGPU §6.1, writes its absent second copy
  // so): it makes no bus request, so nothing blocks or interferes with it; it was charged the
  // lower-priority blocking and the interference. The simulator skips it too (sim/rtgpu_sim.cpp).
  if (copy_hi == Nanos{0}) return Nanos{0};
  // eq. (5) as printed: the blocking term sits outside the workload's argument and the whole
  // segment is exposed to interference (safe, if slightly more pessimistic than the usual
  // non-preemptive form that only exposes the queueing time).
  return least_interference_fixed_point(saturating_add(copy_hi, lower_blocking), higher_bus, limit);
}

Nanos copy_blocking(std::span<const RtgpuTask* const> lower) {
  Nanos b{0};
  for (const RtgpuTask* t : lower) {
    for (const TimeBounds& c : t->copy) b = std::max(b, c.hi);
  }
  return b;
}

std::optional<Nanos> cpu_response_bound(Nanos cpu_hi, std::span<const SuspendingTask> higher_cpu,
                                        Nanos limit) {
  return least_interference_fixed_point(cpu_hi, higher_cpu, limit);
}

std::optional<Nanos> end_to_end_r1(Nanos suspension_hi, std::span<const std::optional<Nanos>> cpu_response) {
  Nanos r = suspension_hi;
  for (const auto& c : cpu_response) {
    if (!c) return std::nullopt;
    r = saturating_add(r, *c);
  }
  if (r >= kUnboundedTime) return std::nullopt;  // past every deadline: no bound to report
  return r;
}

std::optional<Nanos> end_to_end_r2(Nanos suspension_hi, Nanos cpu_hi_sum,
                                   std::span<const SuspendingTask> higher_cpu, Nanos limit) {
  return least_interference_fixed_point(saturating_add(suspension_hi, cpu_hi_sum), higher_cpu, limit);
}

Nanos end_to_end_lower_bound(const RtgpuTask& task, std::span<const TimeBounds> gpu) {
  Nanos r{0};
  for (const TimeBounds& c : task.cpu) r = saturating_add(r, c.lo);
  for (const TimeBounds& c : task.copy) r = saturating_add(r, c.lo);
  for (const TimeBounds& g : gpu) r = saturating_add(r, g.lo);
  return r;
}

}  // namespace gpurt
