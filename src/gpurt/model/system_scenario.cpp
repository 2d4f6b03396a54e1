// gpurt/system@1 → examiner-style scenario (issue 18; docs/report.md "Benchmarking a system").
#include "gpurt/model/system_scenario.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/occupancy.hpp"

namespace gpurt {

namespace {

// Blocks of `shape` one SM holds at once (the simulator's own fit rule, model/occupancy).
int blocks_per_sm(const Platform& platform, const BlockShape& shape) {
  Device device(platform);
  int n = 0;
  while (device.fits(0, shape)) {
    device.occupy(0, shape);
    ++n;
  }
  return n;
}

// a + b with both bounded by kMaxScenarioTime (the scenario's limit on every time).
Nanos add_time(Nanos a, Nanos b, const std::string& file, const std::string& where) {
  std::int64_t s = 0;
  if (__builtin_add_overflow(a.count(), b.count(), &s) || s > kMaxScenarioTime.count())
    throw InputError(file, where, "", "CPU time exceeds the scenario limit of 10^6 s");
  return Nanos{s};
}

}  // namespace

Scenario system_scenario(const System& system, Nanos horizon, const std::string& file) {
  if (horizon.count() <= 0) throw InputError(file, "--horizon must be > 0");
  const Platform& p = system.platform;
  Scenario s;
  s.name = file;
  s.source = file;
  for (std::size_t ti = 0; ti < system.tasks.size(); ++ti) {
    const SystemTask& task = system.tasks[ti];
    const std::string at = fmt::format("tasks[{}]", ti);
    ScenarioInstance inst;
    inst.plugin = "stream_action";
    inst.label = task.name;
    inst.log_name = task.name + ".json";
    const std::optional<Nanos> period = task.period ? task.period : task.deadline;
    if (!period)
      throw InputError(file, at + ".period", task.name, "a benchmarked task needs a period or deadline");
    inst.period = *period;
    // Jobs released at 0, T, 2T, ... < horizon (the report's release rule).
    inst.max_iterations = ceil_div(horizon.count(), period->count());
    Nanos delay{0};
    bool gpu_pending = false;  // GPU work issued since the last stream synchronize
    for (std::size_t si = 0; si < task.segments.size(); ++si) {
      const SystemSegment& seg = task.segments[si];
      const std::string where = fmt::format("{}.segments[{}]", at, si);
      if (seg.kind == SegmentKind::cpu) {
        // CPU work runs after the GPU work before it: synchronize first (FFT/SMLP seed §II-B:
        // a job's segments run in order).
        if (gpu_pending) {
          HostAction sync;
          sync.kind = HostAction::Kind::sync_stream;
          sync.delay = delay;
          sync.label = "sync";
          inst.actions.push_back(sync);
          delay = Nanos{0};
          gpu_pending = false;
        }
        delay = add_time(delay, seg.time.hi, file, where);
        continue;
      }
      HostAction a;
      a.delay = delay;
      delay = Nanos{0};
      gpu_pending = true;
      if (seg.kind == SegmentKind::kernel) {
        const SystemKernel& k = seg.kernel;
        const Derived<Nanos> c = kernel_whole_gpu_wcet(system, k);
        if (!c.applies()) throw InputError(file, where + ".kernel", "", c.why);
        a.kind = HostAction::Kind::kernel;
        a.label = task.name;
        a.kernel.name = task.name;
        const bool shaped = k.blocks > 0 && k.threads > 0;
        // Without a shape: blocks of the largest launchable size, as many as fill every SM once.
        const int threads = std::min(p.max_threads, p.max_threads_per_block);
        a.kernel.blocks = shaped ? k.blocks : p.sms * std::max(1, p.max_threads / threads);
        a.kernel.shape.threads = shaped ? k.threads : threads;
        a.kernel.shape.shared_memory = shaped ? k.shared_memory : 0;
        a.kernel.shape.registers = shaped ? k.registers * k.threads : 0;
        const std::int64_t resident = std::int64_t{p.sms} * blocks_per_sm(p, a.kernel.shape);
        if (resident <= 0) throw InputError(file, where + ".kernel", "", "a block does not fit on an SM");
        // C is the whole kernel on the whole GPU: its blocks run in `waves` rounds, each block
        // C / waves (rounded down, so the kernel alone never takes longer than C).
        const std::int64_t waves = ceil_div(a.kernel.blocks, resident);
        a.kernel.block_time = Nanos{std::max<std::int64_t>(1, c.model->count() / waves)};
        a.kernel.wcet_time = true;  // a worst case: the performance model may only shorten it
      } else {
        a.kind = HostAction::Kind::copy;
        a.label = std::string(to_string(seg.kind));
        a.direction =
            seg.kind == SegmentKind::h2d ? CopyDirection::host_to_device : CopyDirection::device_to_host;
        // Rounded up, less a rounding error of the product (5 us · 12e9 B/s is 60000 bytes).
        const double bytes =
            std::ceil(static_cast<double>(seg.time.hi.count()) * 1e-9 * s.sim.copy_bandwidth - 1e-6);
        if (!(bytes <= 1e15)) throw InputError(file, where, "", "copy time too long to benchmark");
        a.bytes = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes));
      }
      inst.actions.push_back(a);
    }
    if (gpu_pending || delay.count() > 0) {
      // Trailing CPU work: sleep after the last synchronize, then a no-op synchronize.
      HostAction sync;
      sync.kind = HostAction::Kind::sync_stream;
      sync.label = "sync";
      if (gpu_pending) {
        inst.actions.push_back(sync);
      }
      if (delay.count() > 0) {
        sync.delay = delay;
        inst.actions.push_back(sync);
      }
    }
    s.instances.push_back(std::move(inst));
  }
  return s;
}

}  // namespace gpurt
