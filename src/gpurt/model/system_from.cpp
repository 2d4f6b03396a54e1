// Each existing task model read into a gpurt/system@1 system, keeping every number the model
// has, so that the matching derivation (system_derive.cpp) gives the model back unchanged --
// but for one case a system cannot hold: an smlp@1 task with a period and no deadline (unchecked
// there) comes back with D = T, the implicit deadline every model of a system takes.
#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "gpurt/model/system.hpp"

namespace gpurt {

namespace {
__extension__ typedef __int128 Wide;  // GCC and Clang: a time times a wave count
}  // namespace

namespace {

SystemSegment timed(SegmentKind kind, TimeBounds time) {
  SystemSegment s;
  s.kind = kind;
  s.time = time;
  return s;
}

SystemSegment kernel_segment(SystemKernel kernel) {
  SystemSegment s;
  s.kind = SegmentKind::kernel;
  s.kernel = std::move(kernel);
  return s;
}

}  // namespace

// SMLP: CPU time before and after the kernel (simulate-system's cpu_before/cpu_after) become CPU
// segments with lo = hi; the kernel keeps L(i,k), ρ_i and S_i.
System from_smlp(const SmlpSystem& smlp) {
  System s;
  s.platform = smlp.platform;
  s.time_unit = smlp.time_unit;
  s.rho = smlp.rho;
  for (std::size_t i = 0; i < smlp.tasks.size(); ++i) {
    const SmlpTask& task = smlp.tasks[i];
    const SmlpTaskTiming timing = i < smlp.timing.size() ? smlp.timing[i] : SmlpTaskTiming{};
    SystemTask t{task.name, timing.period, task.deadline, std::nullopt, {}, timing.copy_wait};
    if (timing.cpu_before > Nanos{0})
      t.segments.push_back(timed(SegmentKind::cpu, {timing.cpu_before, timing.cpu_before}));
    SystemKernel k;
    k.wcet_by_units = task.wcet_by_units;
    k.rho = task.rho;
    k.allowed_units = task.allowed_units;
    t.segments.push_back(kernel_segment(std::move(k)));
    if (timing.cpu_after > Nanos{0})
      t.segments.push_back(timed(SegmentKind::cpu, {timing.cpu_after, timing.cpu_after}));
    s.tasks.push_back(std::move(t));
  }
  return s;
}

// RTGPU (eq. 4): CL^0, ML^0, G^0, ML^1, CL^1, ...; the copy before a kernel is written as h2d,
// the one after as d2h (RTGPU does not distinguish them), zero-length copies included.
System from_rtgpu(const RtgpuSystem& rtgpu) {
  System s;
  s.platform = rtgpu.platform;
  s.time_unit = rtgpu.time_unit;
  s.virtual_sms_per_sm = rtgpu.virtual_sms_per_sm;
  for (const RtgpuTask& task : rtgpu.tasks) {
    SystemTask t{task.name,
                 task.period,
                 task.deadline,
                 task.priority > 0 ? std::optional<int>(task.priority) : std::nullopt,
                 {},
                 Nanos{0}};
    t.segments.push_back(timed(SegmentKind::cpu, task.cpu.at(0)));
    for (std::size_t j = 0; j < task.gpu.size(); ++j) {
      t.segments.push_back(timed(SegmentKind::h2d, task.copy.at(2 * j)));
      SystemKernel k;
      k.work = task.gpu[j].work;
      k.overhead = task.gpu[j].overhead;
      k.alpha = task.gpu[j].alpha;
      t.segments.push_back(kernel_segment(std::move(k)));
      t.segments.push_back(timed(SegmentKind::d2h, task.copy.at(2 * j + 1)));
      t.segments.push_back(timed(SegmentKind::cpu, task.cpu.at(j + 1)));
    }
    s.tasks.push_back(std::move(t));
  }
  return s;
}

// PBS: one kernel per task with its shape, C and slowdown; the batch table as is.
System from_pbs(const PbsSystem& pbs) {
  System s;
  s.platform = pbs.platform;
  s.time_unit = pbs.time_unit;
  for (const PbsTask& task : pbs.tasks) {
    SystemTask t{task.name, task.period, task.deadline, std::nullopt, {}, Nanos{0}};
    SystemKernel k;
    k.blocks = task.blocks;
    k.threads = task.threads;
    k.registers = task.registers;
    k.shared_memory = task.shared_memory;
    k.wcet = task.wcet;
    k.slowdown = task.slowdown;
    t.segments.push_back(kernel_segment(std::move(k)));
    s.tasks.push_back(std::move(t));
  }
  s.batches = pbs.batches;
  return s;
}

// FIFO: the model has no platform, only m and b_lim; the system gets a one-pool platform of m
// threads (as examples/platforms/fifo-4096.json: only threads limit how many blocks are resident)
// and keeps m and b_lim as overrides. C_i is kept as the kernel's workload. Its wcet, the kernel
// alone on the whole GPU, is the block time C_i / (g_i·b_i) times its waves ⌈g_i / ⌊m / b_i⌋⌉
// (every thread busy alike; the FIFO seed §III), rounded up once.
System from_fifo(const FifoSystem& fifo) {
  System s;
  s.time_unit = fifo.time_unit;
  Platform& p = s.platform;
  p.id = fmt::format("fifo-{}", fifo.gpu_threads);
  p.name = fmt::format("FIFO-model GPU: one pool of {} threads", fifo.gpu_threads);
  p.sms = 1;
  p.max_threads = static_cast<int>(std::min<std::int64_t>(fifo.gpu_threads, INT_MAX));
  p.max_blocks = p.max_threads;
  p.registers = 100'000'000;
  p.shared_memory = 100'000'000;
  p.max_threads_per_block = std::max(1, fifo.max_block);
  s.gpu_threads = fifo.gpu_threads;
  s.max_block = fifo.max_block;
  for (const FifoTask& task : fifo.tasks) {
    SystemTask t{task.name, task.period, std::nullopt, std::nullopt, {}, Nanos{0}};
    SystemKernel k;
    k.blocks = task.grid;
    k.threads = task.block;
    k.workload = task.wcet;
    const std::int64_t threads = std::int64_t{task.grid} * task.block;
    const std::int64_t resident = std::max<std::int64_t>(1, fifo.gpu_threads / task.block);
    const std::int64_t waves = ceil_div(std::int64_t{task.grid}, resident);
    // The fifo@1 reader bounds C_i / (g_i·b_i) by 10^15 ns and waves <= g_i <= 2^30: no overflow in
    // 128 bits; a wcet past the system reader's limit is refused where the system is read back.
    const Wide whole = (static_cast<Wide>(task.wcet.count()) * waves + threads - 1) / threads;
    k.wcet = Nanos{static_cast<std::int64_t>(whole)};
    t.segments.push_back(kernel_segment(std::move(k)));
    s.tasks.push_back(std::move(t));
  }
  return s;
}

}  // namespace gpurt
