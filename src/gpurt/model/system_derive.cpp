// Each seed's model derived from a gpurt/system@1 system, or the reason it does not apply
// (docs/report.md "System format" states every rule below). Each derived model is checked by
// the model's own reader (through its file form), so it holds every invariant a file would.
#include <algorithm>
#include <array>
#include <numeric>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/system.hpp"
#include "gpurt/model/task_limits.hpp"

namespace gpurt {

namespace {

constexpr std::int64_t kMaxNanos = std::int64_t{1} << 62;
__extension__ typedef __int128 Wide;  // GCC and Clang: products of a time and a count

template <class M>
Derived<M> no(std::string why) {
  return Derived<M>{std::nullopt, std::move(why)};
}

std::string where(const SystemTask& t, std::size_t segment) {
  return fmt::format("task \"{}\" segment {}", t.name, segment);
}

// a + b, or nullopt past 2^62 ns.
std::optional<Nanos> add(Nanos a, Nanos b) {
  if (b.count() > kMaxNanos - a.count()) return std::nullopt;
  return a + b;
}

// RTGPU seed Lemma 5.1, upper bound (as analysis/rtgpu_lemmas.cpp gpu_response_bounds, which the
// model layer may not call): GL^ + ceil((GW^·α − GL^) / virtual SMs).
std::optional<Nanos> lemma51_hi(const SystemKernel& k, std::int64_t virtual_sms) {
  const auto inflated = scale_up(k.work->hi, k.alpha);
  if (!inflated) return std::nullopt;
  const Nanos parallel = std::max(Nanos{0}, *inflated - k.overhead);
  return k.overhead + Nanos{ceil_div(parallel.count(), virtual_sms)};
}

// Blocks of the kernel's shape one SM holds (the PBS occupancy rule, pbs_task.hpp).
std::int64_t blocks_per_sm(const Platform& p, const SystemKernel& k) {
  return max_resident_blocks(p, BlockShape{k.threads, k.shared_memory, k.registers * k.threads}) / p.sms;
}

// Checks a derived model with its own reader: the model, or the reader's complaint.
template <class M, class Parse>
Derived<M> checked(const M& model, std::string_view label, Parse parse) {
  try {
    return Derived<M>{parse(to_json(model), std::string(label)), {}};
  } catch (const Error& e) {
    return no<M>(e.what());
  }
}

// A task of one kernel and no other work with a time: PBS and FIFO (both seeds model a task as
// one kernel launch, released periodically).
// Times in the file's own unit (the report shows them beside numbers in that unit).
std::string in_unit(Nanos t, TimeUnit unit) {
  return fmt::format("{} {}", from_nanos(t, unit), to_string(unit));
}

std::optional<std::string> single_kernel(const SystemTask& t, std::string_view model, TimeUnit unit) {
  if (t.kernels() != 1) {
    return fmt::format("{} takes one kernel per task; task \"{}\" has {}", model, t.name, t.kernels());
  }
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    const SystemSegment& s = t.segments[i];
    if (s.kind != SegmentKind::kernel && s.time.hi > Nanos{0}) {
      return fmt::format("{} takes kernels without CPU or copy work; {} is {} work of up to {}", model,
                         where(t, i), to_string(s.kind), in_unit(s.time.hi, unit));
    }
  }
  return std::nullopt;
}

const SystemKernel& the_kernel(const SystemTask& t) {
  return std::find_if(t.segments.begin(), t.segments.end(),
                      [](const SystemSegment& s) { return s.kind == SegmentKind::kernel; })
      ->kernel;
}

}  // namespace

Derived<Nanos> kernel_whole_gpu_wcet(const System& s, const SystemKernel& k) {
  if (k.wcet) return Derived<Nanos>{*k.wcet, {}};
  const auto units = static_cast<std::size_t>(s.platform.units());
  if (k.wcet_by_units.size() == units) return Derived<Nanos>{k.wcet_by_units.back(), {}};
  if (k.work) {
    if (auto hi = lemma51_hi(k, std::int64_t{s.virtual_sms_per_sm} * s.platform.sms))
      return Derived<Nanos>{*hi, {}};
    return no<Nanos>("the work bound GW·α does not fit in 64-bit nanoseconds");
  }
  if (k.workload && k.blocks > 0 && k.threads > 0) {
    // Every thread busy alike: a block runs workload / (blocks·threads), and the grid runs in
    // ceil(B / (SMs·fit)) waves of such blocks on the whole GPU (fit: its blocks per SM).
    const std::int64_t fit = blocks_per_sm(s.platform, k);
    if (fit == 0) return no<Nanos>("a block of this shape does not fit on one SM");
    const std::int64_t waves = ceil_div(std::int64_t{k.blocks}, std::int64_t{s.platform.sms} * fit);
    const std::int64_t threads = std::int64_t{k.blocks} * k.threads;
    const Wide whole = (static_cast<Wide>(k.workload->count()) * waves + threads - 1) / threads;
    // The reader bounds one thread's share by 10^15 ns; its waves may take longer than a time may.
    if (whole > static_cast<Wide>(kMaxTaskTime.count()))
      return no<Nanos>(fmt::format("the workload's {} waves on the whole GPU take past 10^15 ns", waves));
    return Derived<Nanos>{Nanos{static_cast<std::int64_t>(whole)}, {}};
  }
  return no<Nanos>(fmt::format(
      "no whole-GPU WCET: give \"wcet\", \"wcet_by_units\" with all {} units, \"work\", or \"workload\" with "
      "\"blocks\" and \"threads\"",
      units));
}

Derived<std::vector<Nanos>> kernel_wcet_by_units(const System& s, const SystemKernel& k) {
  using D = Derived<std::vector<Nanos>>;
  if (!k.wcet_by_units.empty()) return D{k.wcet_by_units, {}};
  const Platform& p = s.platform;
  std::vector<Nanos> l;
  if (k.work) {
    // RTGPU Lemma 5.1 with the k units' SMs as GN: an upper bound on the kernel on k units.
    for (int units = 1; units <= p.units(); ++units) {
      const auto hi = lemma51_hi(k, std::int64_t{s.virtual_sms_per_sm} * units * p.partition_unit);
      if (!hi) return no<std::vector<Nanos>>("the work bound GW·α does not fit in 64-bit nanoseconds");
      l.push_back(*hi);
    }
    return D{l, {}};
  }
  if (k.blocks == 0 || k.threads == 0) {
    return no<std::vector<Nanos>>(
        "no \"wcet_by_units\" or \"work\", and no \"blocks\" and \"threads\" to derive L(i,k) from \"wcet\"");
  }
  const auto whole = kernel_whole_gpu_wcet(s, k);
  if (!whole.applies()) return no<std::vector<Nanos>>(whole.why);
  const std::int64_t fit = blocks_per_sm(p, k);
  if (fit == 0) return no<std::vector<Nanos>>("a block of this shape does not fit on one SM");
  // Waves: on n SMs the grid runs in ceil(B / (n·fit)) rounds of equal length, C being the time
  // of the rounds on every SM; L(i,k) = C · waves(k units' SMs) / waves(all SMs), rounded up.
  auto waves = [&](std::int64_t sms) { return ceil_div(k.blocks, sms * fit); };
  const std::int64_t all = waves(p.sms);
  for (int units = 1; units <= p.units(); ++units) {
    const Wide t = static_cast<Wide>(whole.model->count()) * waves(std::int64_t{units} * p.partition_unit);
    const Wide v = (t + all - 1) / all;
    if (v > kMaxNanos) return no<std::vector<Nanos>>(fmt::format("L(i,{}) exceeds 2^62 ns", units));
    l.push_back(Nanos{static_cast<std::int64_t>(v)});
  }
  return D{l, {}};
}

std::string declared_interference(const System& system) {
  for (const SystemTask& t : system.tasks)
    for (const SystemSegment& seg : t.segments)
      if (seg.kind == SegmentKind::kernel && seg.kernel.slowdown != 1.0)
        return fmt::format("task \"{}\" declares a slowdown of {} beside other kernels (PBS)", t.name,
                           seg.kernel.slowdown);
  if (!system.batches.empty())
    return fmt::format("the file gives {} PBS batch completion times (kernels slower together)",
                       system.batches.size());
  return "";
}

namespace {
// The copy engine a copy uses: one for both directions on a GPU with one engine, else one per
// direction (CUDA's host-to-device and device-to-host engines).
std::size_t copy_engine_of(const System& s, SegmentKind kind) {
  return s.platform.copy_engines >= 2 && kind == SegmentKind::d2h ? 1 : 0;
}
}  // namespace

namespace {
// A declared copy wait (a task's "copy_wait") is a number only the SMLP-family bounds add; a
// model that analyses the copies itself, or none, would drop it and promise too much.
std::optional<std::string> declared_copy_wait(const System& s, std::string_view model) {
  for (const SystemTask& t : s.tasks)
    if (t.copy_wait > Nanos{0})
      return fmt::format(
          "task \"{}\" declares a copy_wait of {} for copies the file does not hold, which {} "
          "has no place for",
          t.name, in_unit(t.copy_wait, s.time_unit), model);
  return std::nullopt;
}
}  // namespace

std::vector<Nanos> copy_waits(const System& s) {
  // The longest copy each task puts on each engine.
  std::vector<std::array<Nanos, 2>> longest(s.tasks.size(), {Nanos{0}, Nanos{0}});
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    for (const SystemSegment& seg : s.tasks[i].segments)
      if (seg.kind == SegmentKind::h2d || seg.kind == SegmentKind::d2h) {
        Nanos& l = longest[i][copy_engine_of(s, seg.kind)];
        l = std::max(l, seg.time.hi);
      }
  // A copy waits, on its engine, at most for one copy of each other task: a task's jobs run one
  // after another and its copies in order, so each other task has at most one copy queued or
  // being copied ahead of it, whatever order the engine serves them in (it never idles while one
  // waits).
  std::vector<Nanos> waits(s.tasks.size(), Nanos{0});
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    waits[i] = s.tasks[i].copy_wait;  // declared: copies the file does not hold
    for (const SystemSegment& seg : s.tasks[i].segments) {
      if (seg.kind != SegmentKind::h2d && seg.kind != SegmentKind::d2h) continue;
      if (seg.time.hi == Nanos{0}) continue;  // no copy, no request
      for (std::size_t j = 0; j < s.tasks.size(); ++j)
        if (j != i) waits[i] = saturating_add(waits[i], longest[j][copy_engine_of(s, seg.kind)]);
    }
  }
  return waits;
}

Derived<SmlpSystem> to_smlp(const System& s) {
  SmlpSystem m;
  m.platform = s.platform;
  m.time_unit = s.time_unit;
  m.rho = s.rho;
  const std::vector<Nanos> waits = copy_waits(s);
  // SMLP's priority policy ranks tasks by list order: with priorities, highest first.
  std::vector<std::size_t> order(s.tasks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.tasks[a].priority.value_or(0) < s.tasks[b].priority.value_or(0);
  });
  for (std::size_t i : order) {
    const SystemTask& t = s.tasks[i];
    if (t.kernels() != 1) {
      return no<SmlpSystem>(
          fmt::format("SMLP models one kernel per job; task \"{}\" has {}", t.name, t.kernels()));
    }
    SmlpTask task;
    SmlpTaskTiming timing;
    task.name = t.name;
    task.deadline = t.deadline ? t.deadline : t.period;  // implicit deadline (D = T) when none is given
    timing.period = t.period;
    bool after = false;
    // CPU and copy work before the kernel is cpu_before, after it cpu_after (worst cases).
    for (std::size_t j = 0; j < t.segments.size(); ++j) {
      const SystemSegment& seg = t.segments[j];
      if (seg.kind == SegmentKind::kernel) {
        const auto l = kernel_wcet_by_units(s, seg.kernel);
        if (!l.applies()) return no<SmlpSystem>(fmt::format("{} (kernel): {}", where(t, j), l.why));
        task.wcet_by_units = *l.model;
        task.rho = seg.kernel.rho;
        task.allowed_units = seg.kernel.allowed_units;
        after = true;
        continue;
      }
      Nanos& sum = after ? timing.cpu_after : timing.cpu_before;
      const auto total = add(sum, seg.time.hi);
      if (!total)
        return no<SmlpSystem>(fmt::format("task \"{}\": CPU and copy time exceeds 2^62 ns", t.name));
      sum = *total;
    }
    if (timing.copy_wait = waits[i]; timing.copy_wait >= kUnboundedTime)
      return no<SmlpSystem>(fmt::format("task \"{}\": its copies' wait exceeds 2^62 ns", t.name));
    m.tasks.push_back(std::move(task));
    m.timing.push_back(timing);
  }
  return checked(m, "SMLP model", parse_smlp_system);
}

Derived<RtgpuSystem> to_rtgpu(const System& s) {
  RtgpuSystem m;
  m.platform = s.platform;
  m.time_unit = s.time_unit;
  m.virtual_sms_per_sm = s.virtual_sms_per_sm;
  if (s.platform.max_blocks < s.virtual_sms_per_sm) {
    // Each virtual SM is one persistent block: an SM must hold that many at once (§4.3).
    return no<RtgpuSystem>(
        fmt::format("RTGPU runs {} persistent blocks per SM (virtual_sms_per_sm) and {} holds {}",
                    s.virtual_sms_per_sm, s.platform.id, s.platform.max_blocks));
  }
  if (auto why = declared_copy_wait(s, "RTGPU")) return no<RtgpuSystem>(*why);
  for (const SystemTask& t : s.tasks) {
    if (!t.period) return no<RtgpuSystem>(fmt::format("RTGPU needs a period; task \"{}\" has none", t.name));
    RtgpuTask task;
    task.name = t.name;
    task.period = *t.period;
    task.deadline = t.deadline.value_or(*t.period);
    task.priority = t.priority.value_or(0);
    // RTGPU eq. 4: CL (ML G ML CL)*. Adjacent CPU segments add up, as do adjacent copies; a
    // kernel without a copy before or after it gets a [0, 0] copy.
    TimeBounds cpu, copy;
    bool have_cpu = false, have_copy = false, after_kernel = false;
    auto sum = [](TimeBounds& acc, const TimeBounds& b) {
      const auto lo = add(acc.lo, b.lo), hi = add(acc.hi, b.hi);
      if (!lo || !hi) return false;
      acc = {*lo, *hi};
      return true;
    };
    for (std::size_t j = 0; j < t.segments.size(); ++j) {
      const SystemSegment& seg = t.segments[j];
      const std::string at = where(t, j);
      if (seg.kind == SegmentKind::cpu) {
        if (have_copy && !after_kernel) {
          return no<RtgpuSystem>(
              fmt::format("RTGPU has no copy between two CPU segments; {} follows one", at));
        }
        if (after_kernel) {
          task.copy.push_back(copy);
          copy = {};
          have_copy = after_kernel = false;
        }
        if (!sum(cpu, seg.time)) return no<RtgpuSystem>(at + ": CPU time exceeds 2^62 ns");
        have_cpu = true;
      } else if (seg.kind != SegmentKind::kernel) {
        if (!have_cpu && !after_kernel)
          return no<RtgpuSystem>(fmt::format("RTGPU jobs start with CPU work; {} is a copy", at));
        if (!sum(copy, seg.time)) return no<RtgpuSystem>(at + ": copy time exceeds 2^62 ns");
        have_copy = true;
      } else {
        if (!have_cpu) {
          return no<RtgpuSystem>(fmt::format(
              "RTGPU needs CPU work before every kernel (and between two); {} has none before it", at));
        }
        if (!seg.kernel.work) {
          return no<RtgpuSystem>(fmt::format(
              "RTGPU needs each kernel's \"work\" (GW on one virtual SM, RTGPU §4.2); {} (kernel) has "
              "none, and gpurt does not derive it from measured WCETs",
              at));
        }
        task.cpu.push_back(cpu);
        task.copy.push_back(copy);
        task.gpu.push_back(RtgpuGpuSegment{*seg.kernel.work, seg.kernel.overhead, seg.kernel.alpha});
        cpu = copy = {};
        have_cpu = have_copy = false;
        after_kernel = true;
      }
    }
    if (after_kernel || have_copy) {
      return no<RtgpuSystem>(fmt::format("RTGPU jobs end with CPU work; task \"{}\" ends with a {}", t.name,
                                         to_string(t.segments.back().kind)));
    }
    task.cpu.push_back(cpu);
    m.tasks.push_back(std::move(task));
  }
  if (m.tasks.front().priority == 0) {
    // Deadline-monotonic, ties by file order (as gpurt/rtgpu@1 without priorities).
    std::vector<std::size_t> order(m.tasks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return m.tasks[a].deadline < m.tasks[b].deadline; });
    for (std::size_t rank = 0; rank < order.size(); ++rank)
      m.tasks[order[rank]].priority = static_cast<int>(rank + 1);
  }
  return checked(m, "RTGPU model", parse_rtgpu_system);
}

Derived<PbsSystem> to_pbs(const System& s) {
  PbsSystem m;
  m.platform = s.platform;
  m.time_unit = s.time_unit;
  if (auto why = declared_copy_wait(s, "PBS")) return no<PbsSystem>(*why);
  for (const SystemTask& t : s.tasks) {
    if (auto why = single_kernel(t, "PBS", s.time_unit)) return no<PbsSystem>(*why);
    if (!t.period) return no<PbsSystem>(fmt::format("PBS needs a period; task \"{}\" has none", t.name));
    const SystemKernel& k = the_kernel(t);
    if (k.blocks == 0 || k.threads == 0) {
      return no<PbsSystem>(
          fmt::format("PBS needs each kernel's \"blocks\" and \"threads\"; task \"{}\" lacks them", t.name));
    }
    const auto c = kernel_whole_gpu_wcet(s, k);
    if (!c.applies()) return no<PbsSystem>(fmt::format("task \"{}\": {}", t.name, c.why));
    m.tasks.push_back(PbsTask{t.name, *t.period, t.deadline.value_or(*t.period), *c.model, k.blocks,
                              k.threads, k.registers, k.shared_memory, k.slowdown});
  }
  m.batches = s.batches;
  return checked(m, "PBS model", parse_pbs_system);
}

Derived<FifoSystem> to_fifo(const System& s) {
  FifoSystem m;
  m.time_unit = s.time_unit;
  m.gpu_threads = s.gpu_threads.value_or(std::int64_t{s.platform.sms} * s.platform.max_threads);
  m.max_block = static_cast<int>(
      std::min<std::int64_t>(s.max_block.value_or(s.platform.max_threads_per_block), m.gpu_threads));
  if (auto why = declared_copy_wait(s, "the FIFO model")) return no<FifoSystem>(*why);
  for (const SystemTask& t : s.tasks) {
    if (auto why = single_kernel(t, "the FIFO model", s.time_unit)) return no<FifoSystem>(*why);
    if (!t.period)
      return no<FifoSystem>(fmt::format("the FIFO model needs a period; task \"{}\" has none", t.name));
    if (t.deadline && *t.deadline != *t.period) {
      return no<FifoSystem>(
          fmt::format("the FIFO model's Theorem 1 assumes implicit deadlines (D = T); task \"{}\" "
                      "has D = {}, T = {}",
                      t.name, in_unit(*t.deadline, s.time_unit), in_unit(*t.period, s.time_unit)));
    }
    const SystemKernel& k = the_kernel(t);
    if (k.blocks == 0 || k.threads == 0) {
      return no<FifoSystem>(fmt::format(
          "the FIFO model needs each kernel's \"blocks\" and \"threads\"; task \"{}\" lacks them", t.name));
    }
    Nanos workload{0};
    if (k.workload) {
      workload = *k.workload;
    } else {
      // C_i = g_i · b_i · C: every thread busy for the whole kernel time (an upper bound).
      const auto c = kernel_whole_gpu_wcet(s, k);
      if (!c.applies()) return no<FifoSystem>(fmt::format("task \"{}\": {}", t.name, c.why));
      const Wide w = static_cast<Wide>(c.model->count()) * k.blocks * k.threads;
      if (w > kMaxNanos)
        return no<FifoSystem>(fmt::format("task \"{}\": workload g·b·C exceeds 2^62 ns", t.name));
      workload = Nanos{static_cast<std::int64_t>(w)};
    }
    m.tasks.push_back(FifoTask{t.name, workload, *t.period, k.blocks, k.threads});
  }
  return checked(m, "FIFO model", parse_fifo_system);
}

}  // namespace gpurt
