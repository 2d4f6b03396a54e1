// The per-task bound of each method for one allocation: RTGPU §5 and the two §6 baselines.
// The baselines are readings of the seed's §6.2.1 paragraphs (docs/rtgpu.md choices 4-5): the
// analyses of [47]/[23] and of STGM [38] themselves were searched for and not found.
#include <algorithm>

#include <fmt/format.h>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/analysis/rtgpu_gcaps.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

// Fills response/schedulable/reason from R1 and R2 (Theorem 5.6: R = min(R1, R2)).
void conclude(RtgpuTaskBounds& b, Nanos deadline) {
  if (b.r1 && b.r2) {
    b.response = std::min(*b.r1, *b.r2);
  } else if (b.r1) {
    b.response = b.r1;
  } else {
    b.response = b.r2;
  }
  b.schedulable = b.response && *b.response <= deadline;
  if (b.schedulable) return;
  b.reason = b.response ? "the response bound min(R1, R2) exceeds the deadline"
                        : "R1 and R2 both exceed the deadline (iteration stopped there)";
}

// Self-suspension baseline: device segment j = ML^{2j} + G^j (whole GPU) + ML^{2j+1}.
std::vector<TimeBounds> device_segments(const RtgpuTask& t, std::span<const TimeBounds> gpu) {
  std::vector<TimeBounds> d;
  for (std::size_t j = 0; j < gpu.size(); ++j) {
    d.push_back({t.copy[2 * j].lo + gpu[j].lo + t.copy[2 * j + 1].lo,
                 t.copy[2 * j].hi + gpu[j].hi + t.copy[2 * j + 1].hi});
  }
  return d;
}

// The task as the non-preemptive "device" (bus + GPU as one resource) sees it: the same
// shape as Lemma 5.2's bus view with one device segment per GPU segment and the CPU
// segments CL^1..CL^{m-2} as the suspensions between them.
SuspendingTask device_view(const RtgpuTask& t, std::span<const TimeBounds> device) {
  SuspendingTask v;
  const std::size_t n = device.size();  // m − 1
  if (n == 0) return v;
  Nanos span{0};
  for (std::size_t j = 0; j < n; ++j) {
    v.exec.push_back(device[j].hi);
    span = saturating_add(span, device[j].hi);
    if (j + 1 < n) {
      v.gap.push_back(t.cpu[j + 1].lo);
      span = saturating_add(span, t.cpu[j + 1].lo);
    }
  }
  v.first_job_gap = t.period - t.deadline + t.cpu.back().lo + t.cpu.front().lo;
  v.later_job_gap = std::max(Nanos{0}, t.period - span);
  return v;
}

RtgpuTaskBounds bounds_rtgpu(const RtgpuSystem& s, std::span<const std::size_t> order, std::size_t rank,
                             std::span<const int> by_rank, bool whole_gpu) {
  const int v = s.virtual_sms_per_sm;
  auto virtual_of = [&](std::size_t r) { return v * (whole_gpu ? s.platform.sms : by_rank[r]); };
  const RtgpuTask& k = s.tasks[order[rank]];
  const Nanos limit = k.deadline;
  std::vector<SuspendingTask> hp_resource, hp_cpu;
  for (std::size_t r = 0; r < rank; ++r) {
    const RtgpuTask& i = s.tasks[order[r]];
    const auto gpu = gpu_response_bounds(i, virtual_of(r));
    hp_resource.push_back(whole_gpu ? device_view(i, device_segments(i, gpu)) : bus_view(i, gpu));
    hp_cpu.push_back(cpu_view(i, gpu));
  }
  // Lower-priority blocking on the non-preemptive resource (Lemma 5.3's max over lp(k)).
  Nanos blocking{0};
  for (std::size_t r = rank + 1; r < order.size(); ++r) {
    const RtgpuTask& i = s.tasks[order[r]];
    if (whole_gpu) {
      for (const TimeBounds& d : device_segments(i, gpu_response_bounds(i, virtual_of(r)))) {
        blocking = std::max(blocking, d.hi);
      }
    } else {
      for (const TimeBounds& c : i.copy) blocking = std::max(blocking, c.hi);
    }
  }
  RtgpuTaskBounds b;
  b.gpu = gpu_response_bounds(k, virtual_of(rank));
  b.lower = end_to_end_lower_bound(k, b.gpu);
  Nanos suspension{0};
  bool suspension_known = true;
  if (whole_gpu) {
    for (const TimeBounds& d : device_segments(k, b.gpu)) {
      b.copy_hi.push_back(copy_response_bound(d.hi, hp_resource, blocking, limit));
    }
  } else {
    for (const TimeBounds& c : k.copy)
      b.copy_hi.push_back(copy_response_bound(c.hi, hp_resource, blocking, limit));
    for (const TimeBounds& g : b.gpu)
      suspension = saturating_add(suspension, g.hi);  // federated: no GPU interference
  }
  for (const auto& c : b.copy_hi) {
    if (c) {
      suspension = saturating_add(suspension, *c);
    } else {
      suspension_known = false;
    }
  }
  Nanos cpu_sum{0};
  for (const TimeBounds& c : k.cpu) {
    cpu_sum = saturating_add(cpu_sum, c.hi);
    b.cpu_hi.push_back(cpu_response_bound(c.hi, hp_cpu, limit));
  }
  if (suspension_known) {
    b.r1 = end_to_end_r1(suspension, b.cpu_hi);
    b.r2 = end_to_end_r2(suspension, cpu_sum, hp_cpu, limit);
  }
  conclude(b, k.deadline);
  if (!suspension_known) {
    b.reason = fmt::format("a {} segment's response bound (Lemma 5.3) exceeds the deadline",
                           whole_gpu ? "device" : "copy");
  }
  return b;
}

// STGM [38] with busy waiting: the CPU is held through copies and kernels, so each task is a
// plain sporadic task with C_i = Σ CL^ + Σ ML^ + Σ GR^ (federated GPU, Lemma 5.1) under the
// classic analysis. Each copy can still wait for one lower-priority copy already on the
// non-preemptive bus (a preempted busy-waiting task's copy keeps running), so C_i carries
// B_i = (2m_i − 2) · (longest lower-priority copy), for higher-priority tasks too because
// they busy-wait through their own blocking.
RtgpuTaskBounds bounds_stgm(const RtgpuSystem& s, std::span<const std::size_t> order, std::size_t rank,
                            std::span<const int> by_rank) {
  const int v = s.virtual_sms_per_sm;
  auto demand = [&](std::size_t r, std::vector<TimeBounds>* gpu_out) {
    const RtgpuTask& t = s.tasks[order[r]];
    const auto gpu = gpu_response_bounds(t, v * by_rank[r]);
    Nanos c{0}, longest_lower{0};
    for (const TimeBounds& x : t.cpu) c = saturating_add(c, x.hi);
    for (const TimeBounds& x : t.copy) c = saturating_add(c, x.hi);
    for (const TimeBounds& g : gpu) c = saturating_add(c, g.hi);
    for (std::size_t q = r + 1; q < order.size(); ++q) {
      for (const TimeBounds& x : s.tasks[order[q]].copy) longest_lower = std::max(longest_lower, x.hi);
    }
    if (gpu_out) *gpu_out = gpu;
    return saturating_add(c, saturating_mul(static_cast<std::int64_t>(t.copy.size()), longest_lower));
  };
  std::vector<FpTask> higher;
  for (std::size_t r = 0; r < rank; ++r) higher.push_back({demand(r, nullptr), s.tasks[order[r]].period});
  const RtgpuTask& k = s.tasks[order[rank]];
  RtgpuTaskBounds b;
  const Nanos c = demand(rank, &b.gpu);
  b.lower = end_to_end_lower_bound(k, b.gpu);
  b.r1 = fp_response_time(c, Nanos{0}, higher, k.deadline);
  b.r2 = b.r1;
  conclude(b, k.deadline);
  return b;
}

}  // namespace

RtgpuTaskBounds rtgpu_task_bounds(const RtgpuSystem& s, std::span<const std::size_t> order, std::size_t rank,
                                  std::span<const int> by_rank, RtgpuMethod method) {
  switch (method) {
    case RtgpuMethod::rtgpu:
      return bounds_rtgpu(s, order, rank, by_rank, false);
    case RtgpuMethod::self_suspension:
      return bounds_rtgpu(s, order, rank, by_rank, true);
    case RtgpuMethod::stgm:
      return bounds_stgm(s, order, rank, by_rank);
    case RtgpuMethod::gcaps_rr:
      return gcaps_rr_task_bounds(s, order, rank);
  }
  throw Error("rtgpu_task_bounds: unknown method");
}

std::vector<RtgpuTaskBounds> analyse_rtgpu_allocation(const RtgpuSystem& s, RtgpuMethod method,
                                                      std::span<const int> physical_sms) {
  if (physical_sms.size() != s.tasks.size()) throw Error("analyse_rtgpu_allocation: one SM count per task");
  const auto order = priority_order(s);
  std::vector<int> by_rank(order.size());
  for (std::size_t r = 0; r < order.size(); ++r) {
    by_rank[r] = physical_sms[order[r]];
    const bool gpu = !s.tasks[order[r]].gpu.empty();
    if (gpu ? by_rank[r] < 1 : by_rank[r] < 0)
      throw Error("analyse_rtgpu_allocation: every task with a GPU segment needs at least one SM");
  }
  std::vector<RtgpuTaskBounds> out(order.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    out[order[r]] = rtgpu_task_bounds(s, order, r, by_rank, method);
  return out;
}

double rtgpu_throughput_gain(const RtgpuSystem& s, std::span<const int> physical_sms) {
  if (physical_sms.size() != s.tasks.size()) throw Error("rtgpu_throughput_gain: one SM count per task");
  if (s.platform.sms < 1) throw Error("rtgpu_throughput_gain: the platform has no SM");
  double gain = 0;
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    if (physical_sms[i] < (s.tasks[i].gpu.empty() ? 0 : 1))
      throw Error("rtgpu_throughput_gain: every task with a GPU segment needs at least one SM");
    double work = 0, stretched = 0;
    for (const RtgpuGpuSegment& g : s.tasks[i].gpu) {
      work += static_cast<double>(g.work.hi.count());
      stretched += static_cast<double>(g.work.hi.count()) * g.alpha;
    }
    if (!(stretched > 0)) continue;  // no GPU work: nothing to interleave
    gain += static_cast<double>(physical_sms[i]) / s.platform.sms *
            (s.virtual_sms_per_sm * work / stretched - 1.0);
  }
  return gain;
}

}  // namespace gpurt
