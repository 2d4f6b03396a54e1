// GCAPS (ECRTS 2024) §6.2.2, default round-robin TSG scheduling with self-suspending GPU
// segments, on the RTGPU model. GCAPS's model (§4): tasks are alternating CPU and GPU segments on
// partitioned cores; a GPU segment is Gm (CPU work to issue it) plus Ge (copies and kernel, no
// CPU); different processes share the GPU only by time-slicing their contexts (TSGs), one at a
// time, round-robin, each for at most one slice L plus a switch θ. Here all tasks share one core,
// which is the RTGPU seed's CPU.
#include "gpurt/analysis/rtgpu_gcaps.hpp"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

struct GcapsView {
  Nanos cpu{0};            // C_i
  std::vector<Nanos> gpu;  // Ge_{i,j}, one per GPU segment (η^g_i of them)
};

GcapsView view(const RtgpuSystem& s, const RtgpuTask& t) {
  GcapsView v;
  for (const TimeBounds& c : t.cpu) v.cpu = saturating_add(v.cpu, c.hi);
  const std::vector<TimeBounds> gr = gpu_response_bounds(t, s.virtual_sms_per_sm * s.platform.sms);
  for (std::size_t j = 0; j < gr.size(); ++j)
    v.gpu.push_back(saturating_add(saturating_add(t.copy[2 * j].hi, gr[j].hi), t.copy[2 * j + 1].hi));
  return v;
}

}  // namespace

Nanos gcaps_interleave(int contexts, Nanos gpu, const GcapsRrParams& p) {
  if (p.slice <= Nanos{0} || p.switch_cost < Nanos{0})
    throw Error("gcaps: the time slice must be > 0, θ >= 0");
  if (contexts <= 0 || gpu <= Nanos{0}) return Nanos{0};
  // Eq. (3): each of the ⌈G/L⌉ slices the segment needs can wait for ν other slices with a switch.
  return saturating_mul(contexts,
                        saturating_mul(ceil_div(gpu.count(), p.slice.count()), p.slice + p.switch_cost));
}

RtgpuTaskBounds gcaps_rr_task_bounds(const RtgpuSystem& s, std::span<const std::size_t> order,
                                     std::size_t rank, const GcapsRrParams& p) {
  // ν_i of Lemma 1: the OTHER tasks that use the GPU (η^g_k > 0).
  int gpu_tasks = 0;
  for (std::size_t q = 0; q < order.size(); ++q) gpu_tasks += s.tasks[order[q]].gpu.empty() ? 0 : 1;
  std::vector<GcapsView> hp;
  std::vector<Nanos> jitter;  // J_h = R_h − (C_h + Gm_h), eq. (8)
  RtgpuTaskBounds b;
  for (std::size_t r = 0; r <= rank; ++r) {
    const RtgpuTask& t = s.tasks[order[r]];
    const GcapsView v = view(s, t);
    const int others = gpu_tasks - (t.gpu.empty() ? 0 : 1);
    // Eq. (1) with Lemma 5 (I^ie, eq. (5)), Lemmas 2, 3, 6 (I^dp = B^C = I^id = 0).
    Nanos base = v.cpu;
    for (Nanos g : v.gpu) base = saturating_add(base, saturating_add(g, gcaps_interleave(others, g, p)));
    // Lemma 7, eq. (8): P^C_i = Σ_{h ∈ hpp(i)} ⌈(R_i + J_h)/T_h⌉ · (C_h + Gm_h), Gm = 0 here.
    const std::optional<Nanos> response = least_fixed_point(base, t.deadline, [&](Nanos resp) {
      Nanos sum{0};
      for (std::size_t h = 0; h < hp.size(); ++h) {
        const std::int64_t jobs =
            ceil_div(saturating_add(resp, jitter[h]).count(), s.tasks[order[h]].period.count());
        sum = saturating_add(sum, saturating_mul(jobs, hp[h].cpu));
      }
      return sum;
    });
    if (r == rank) {
      b.gpu = gpu_response_bounds(t, s.virtual_sms_per_sm * s.platform.sms);
      b.lower = end_to_end_lower_bound(t, b.gpu);
      b.r1 = b.r2 = b.response = response;
      b.schedulable = response && *response <= t.deadline;
      if (!b.schedulable) b.reason = "the GCAPS round-robin bound (eq. (1)) exceeds the deadline";
      return b;
    }
    if (!response) {
      // J_h needs R_h; without it no bound below follows (the task is reported "not analysable"),
      // but its own GPU bounds and lower bound (Lemma 5.1 on the whole GPU) still do.
      const RtgpuTask& mine = s.tasks[order[rank]];
      b.gpu = gpu_response_bounds(mine, s.virtual_sms_per_sm * s.platform.sms);
      b.lower = end_to_end_lower_bound(mine, b.gpu);
      b.reason = fmt::format("higher-priority task {} has no GCAPS bound", t.name);
      return b;
    }
    hp.push_back(v);
    jitter.push_back(*response - v.cpu);
  }
  throw Error("gcaps_rr_task_bounds: rank out of range");
}

}  // namespace gpurt
