// RTGPU seed §5 on the simulator. The driver plays the host side the seed's analysis assumes:
//  - one CPU (§5.4: "a uniprocessor"), preemptive fixed priority over the ready CPU segments;
//  - one bus (§3.2: one copy at a time, non-preemptive), the highest-priority waiting copy
//    issued to copy engine 0 whenever the bus is free (§5.3);
//  - each task's kernels on its own stream masked to its GN_i dedicated SMs (§5.2): GL (the
//    launch overhead, §4.2 eq. 3 / Lemma 5.1) and then 2GN_i persistent blocks, one per
//    virtual SM, that each run the kernel's parallel part (GW·α − GL) / 2GN_i.
// Scheduling decisions are taken once per instant, after every event of that instant (a
// "settle" timer), so that simultaneous releases and completions compete by priority.
#include "gpurt/sim/rtgpu_sim.hpp"

#include <algorithm>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

enum class Step : std::uint8_t { cpu, copy, gpu };
enum class TimerKind : std::uint8_t { release, cpu_done, launch, settle };

struct Timer {
  TimerKind kind;
  std::size_t task;
  bool live = true;
};

struct TaskState {
  const RtgpuTask* task = nullptr;
  std::size_t rank = 0;  ///< 0 = highest priority
  int stream = -1;
  int first_sm = 0, sms = 0;
  std::deque<Nanos> releases;  ///< released jobs not yet complete (front: the active one)
  std::int64_t released = 0;
  bool active = false;
  std::size_t step = 0;  ///< index into the job's steps CL^0, ML^0, G^0, ML^1, CL^1, ...
  Nanos remaining{0};    ///< CPU step: execution left
  bool cpu_ready = false, copy_waiting = false;
  Nanos copy_length{0}, issued_at{0}, planned{0};
  KernelSpec kernel;  ///< the current GPU step's kernel (block_time set per launch; a worst case)
  RtgpuTaskSim out;
  long double total = 0;
};

class RtgpuDriver final : public sim::SimDriver {
 public:
  RtgpuDriver(const RtgpuSystem& s, const RtgpuSimOptions& o) : _s(s), _o(o), _rng(o.seed) {
    const std::vector<std::size_t> order = priority_order(s);
    _tasks.resize(s.tasks.size());
    for (std::size_t r = 0; r < order.size(); ++r) _tasks[order[r]].rank = r;
    const Platform& p = s.platform;
    const int v = s.virtual_sms_per_sm;
    int next_sm = 0;
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      TaskState& t = _tasks[i];
      t.task = &s.tasks[i];
      t.sms = o.physical_sms[i];
      t.first_sm = next_sm;
      next_sm += t.sms;
      t.out.name = t.task->name;
      t.out.first_sm = t.first_sm;
      t.out.physical_sms = t.sms;
      // One persistent block per virtual SM: v blocks fill one SM (threads and shared memory
      // split v ways), so the kernel's 2GN_i blocks occupy exactly its GN_i SMs (§4.4).
      t.kernel.name = t.task->name;
      t.kernel.blocks = v * t.sms;
      t.kernel.shape.threads = std::max(1, std::min(p.max_threads / v, p.max_threads_per_block));
      t.kernel.shape.shared_memory = p.shared_memory / v;
    }
  }

  void start(sim::Simulator& sim) override {
    const Platform& p = _s.platform;
    for (std::size_t i = 0; i < _tasks.size(); ++i) {
      TaskState& t = _tasks[i];
      std::vector<bool> mask(static_cast<std::size_t>(p.sms), false);
      for (int sm = t.first_sm; sm < t.first_sm + t.sms; ++sm) mask[static_cast<std::size_t>(sm)] = true;
      // A task without GPU segments has no SM and launches nothing: its stream is never used.
      t.stream = sim.driver_stream(t.sms > 0 ? std::move(mask) : std::vector<bool>{});
      const Nanos offset =
          _o.random_offsets ? Nanos{_rng.uniform_int(0, t.task->period.count() - 1)} : Nanos{0};
      timer(sim, offset, TimerKind::release, i);
    }
  }

  void wake(sim::Simulator& sim, int tag) override {
    // Each slot stands for one pending timer event; once it fires (live or cancelled) the slot
    // is free again, so memory follows the timers pending, not every timer a run ever set.
    const Timer w = _timers[static_cast<std::size_t>(tag)];
    _free_timers.push_back(static_cast<std::size_t>(tag));
    if (!w.live) return;  // cancelled (a preempted CPU segment)
    const std::size_t i = w.task;
    switch (w.kind) {
      case TimerKind::release: {
        TaskState& t = _tasks[i];
        t.releases.push_back(sim.now());
        if (++t.released < (_o.jobs_per_task.empty() ? _o.jobs : _o.jobs_per_task[i]) && !_missed) {
          Nanos gap = t.task->period;
          if (_o.sporadic_jitter > 0) {
            gap += Nanos{static_cast<std::int64_t>(static_cast<double>(gap.count()) *
                                                   _rng.uniform(0, _o.sporadic_jitter))};
          }
          timer(sim, sim.now() + gap, TimerKind::release, i);
        }
        if (!t.active) begin_job(sim, i);
        break;
      }
      case TimerKind::cpu_done:
        _cpu = kNone;
        _tasks[i].cpu_ready = false;
        _tasks[i].remaining = Nanos{0};
        advance(sim, i);
        settle_later(sim);
        break;
      case TimerKind::launch:
        launch(sim, i);
        break;
      case TimerKind::settle:
        _settle_pending = false;
        settle(sim);
        break;
    }
  }

  // A copy (on the bus) or a kernel (on the task's SMs) of task `tag` completed.
  void kernel_done(sim::Simulator& sim, int tag) override {
    TaskState& t = _tasks[static_cast<std::size_t>(tag)];
    const bool copy = step_kind(t.step) == Step::copy;
    if (sim.now() != t.issued_at + t.planned) ++(copy ? _late_copies : _late_kernels);
    if (copy) {
      _bus_busy = false;
      settle_later(sim);
    }
    advance(sim, static_cast<std::size_t>(tag));
  }

  RtgpuSimResult result() {
    RtgpuSimResult r;
    for (TaskState& t : _tasks) {
      if (t.out.jobs > 0) t.out.mean = Nanos{static_cast<std::int64_t>(t.total / t.out.jobs)};
      r.tasks.push_back(std::move(t.out));
    }
    r.late_kernels = _late_kernels;
    r.late_copies = _late_copies;
    return r;
  }

 private:
  // Steps of a job with m CPU segments: CL^0, then (ML^{2q}, G^q, ML^{2q+1}, CL^{q+1}) for q < m−1.
  static Step step_kind(std::size_t step) {
    if (step == 0) return Step::cpu;
    switch ((step - 1) % 4) {
      case 0:
      case 2:
        return Step::copy;
      case 1:
        return Step::gpu;
      default:
        return Step::cpu;
    }
  }
  static std::size_t steps_of(const RtgpuTask& t) { return 1 + 4 * t.gpu.size(); }

  // Sets a timer; returns its slot (`tag` of its wake).
  std::size_t timer(sim::Simulator& sim, Nanos at, TimerKind kind, std::size_t task) {
    std::size_t slot = _timers.size();
    if (_free_timers.empty()) {
      _timers.push_back({kind, task, true});
    } else {
      slot = _free_timers.back();
      _free_timers.pop_back();
      _timers[slot] = {kind, task, true};
    }
    sim.driver_timer(at, static_cast<int>(slot));
    return slot;
  }

  void settle_later(sim::Simulator& sim) {
    if (_settle_pending) return;
    _settle_pending = true;
    timer(sim, sim.now(), TimerKind::settle, kNone);
  }

  Nanos draw(TimeBounds b) {
    if (_o.execution == RtgpuExecution::worst || b.lo == b.hi) return b.hi;
    return Nanos{_rng.uniform_int(b.lo.count(), b.hi.count())};
  }

  void begin_job(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    t.active = true;
    t.step = 0;
    enter(sim, i);
  }

  // The current step of task i finished: the next one starts, or the job completes.
  void advance(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    if (++t.step < steps_of(*t.task)) {
      enter(sim, i);
      return;
    }
    const Nanos response = sim.now() - t.releases.front();
    t.releases.pop_front();
    if (t.out.jobs == 0 || response < t.out.best) t.out.best = response;
    t.out.worst = std::max(t.out.worst, response);
    t.total += static_cast<long double>(response.count());
    ++t.out.jobs;
    if (response > t.task->deadline) {
      ++t.out.deadline_misses;
      _missed = _o.until_first_miss;
    }
    t.active = false;
    if (!t.releases.empty()) begin_job(sim, i);  // released while this job ran: it runs next
  }

  // Starts the current step of task i (a zero-length CPU segment or copy is skipped: nothing
  // is issued for it).
  void enter(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    const std::size_t q = t.step == 0 ? 0 : (t.step - 1) / 4;  // GPU segment index around it
    switch (step_kind(t.step)) {
      case Step::cpu: {
        const std::size_t j = t.step == 0 ? 0 : q + 1;
        t.remaining = draw(t.task->cpu[j]);
        if (t.remaining == Nanos{0}) return advance(sim, i);
        t.cpu_ready = true;
        settle_later(sim);
        return;
      }
      case Step::copy: {
        const std::size_t j = 2 * q + ((t.step - 1) % 4 == 2 ? 1 : 0);
        t.copy_length = draw(t.task->copy[j]);
        if (t.copy_length == Nanos{0}) return advance(sim, i);
        t.copy_waiting = true;
        settle_later(sim);
        return;
      }
      case Step::gpu:
        plan_kernel(sim, i, t.task->gpu[q]);
        return;
    }
  }

  // Lemma 5.1's model: the overhead GL (not parallelised, not inflated), then the inflated
  // work GW·α spread over the 2GN_i virtual SMs; with the upper bounds this takes exactly GR^.
  void plan_kernel(sim::Simulator& sim, std::size_t i, const RtgpuGpuSegment& g) {
    TaskState& t = _tasks[i];
    Nanos work = g.work.hi, overhead = g.overhead;
    double alpha = g.alpha;
    if (_o.execution == RtgpuExecution::random) {
      work = draw(g.work);
      alpha = g.alpha > 1 ? _rng.uniform(1.0, g.alpha) : 1.0;
      overhead = Nanos{_rng.uniform_int(0, g.overhead.count())};
    }
    const Nanos inflated = scale_up(work, alpha).value();  // as Lemma 5.1's bound rounds it
    const std::int64_t v = std::int64_t{_s.virtual_sms_per_sm} * t.sms;
    t.kernel.block_time = Nanos{ceil_div(std::max(Nanos{0}, inflated - overhead).count(), v)};
    t.kernel.wcet_time = true;  // from the WCET: the performance model may only shorten it ...
    // ... and never below Lemma 5.1's best case GR_lo = GW_lo / 2GN_i, which the analysis counts
    // on (a higher-priority task's GPU segment suspends it at least that long): a kernel the
    // calibrated model made shorter let a lower-priority task pass its bound.
    t.kernel.min_time = std::max(Nanos{0}, Nanos{g.work.lo.count() / v} - overhead);
    t.issued_at = sim.now();
    t.planned = overhead + t.kernel.block_time;
    if (overhead > Nanos{0}) {
      timer(sim, sim.now() + overhead, TimerKind::launch, i);
    } else {
      launch(sim, i);
    }
  }

  void launch(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    if (t.kernel.block_time == Nanos{0}) return advance(sim, i);                      // no parallel work left
    sim.driver_launch(t.stream, t.kernel, static_cast<int>(i), static_cast<int>(i));  // a task's working set
  }

  // The highest-priority ready CPU segment runs (preempting); a free bus takes the
  // highest-priority waiting copy.
  void settle(sim::Simulator& sim) {
    std::size_t best = kNone;
    for (std::size_t i = 0; i < _tasks.size(); ++i) {
      if (_tasks[i].cpu_ready && (best == kNone || _tasks[i].rank < _tasks[best].rank)) best = i;
    }
    if (best != _cpu) {
      if (_cpu != kNone) {  // preempt: keep what is left, cancel its completion
        TaskState& run = _tasks[_cpu];
        run.remaining -= sim.now() - _cpu_since;
        _timers[_cpu_timer].live = false;
      }
      _cpu = best;
      if (best != kNone) {
        _cpu_since = sim.now();
        _cpu_timer = timer(sim, sim.now() + _tasks[best].remaining, TimerKind::cpu_done, best);
      }
    }
    if (!_bus_busy) {
      std::size_t copy = kNone;
      for (std::size_t i = 0; i < _tasks.size(); ++i) {
        if (_tasks[i].copy_waiting && (copy == kNone || _tasks[i].rank < _tasks[copy].rank)) copy = i;
      }
      if (copy != kNone) {
        TaskState& t = _tasks[copy];
        t.copy_waiting = false;
        t.issued_at = sim.now();
        t.planned = t.copy_length;
        _bus_busy = true;
        sim.driver_copy(t.stream, 0, t.copy_length, static_cast<int>(copy));
      }
    }
  }

  const RtgpuSystem& _s;
  RtgpuSimOptions _o;
  Rng _rng;
  std::vector<TaskState> _tasks;
  std::vector<Timer> _timers;
  std::vector<std::size_t> _free_timers;  ///< slots of _timers whose event has fired
  bool _settle_pending = false, _bus_busy = false;
  bool _missed = false;  ///< a deadline was missed with until_first_miss: no more releases
  std::size_t _cpu = kNone, _cpu_timer = 0;
  Nanos _cpu_since{0};
  std::int64_t _late_kernels = 0, _late_copies = 0;
};

}  // namespace

RtgpuSimResult simulate_rtgpu(const RtgpuSystem& system, const RtgpuSimOptions& options) {
  validate(system);
  if (options.jobs < 1) throw Error("rtgpu simulation: jobs must be >= 1");
  if (!options.jobs_per_task.empty() &&
      (options.jobs_per_task.size() != system.tasks.size() ||
       std::any_of(options.jobs_per_task.begin(), options.jobs_per_task.end(),
                   [](std::int64_t n) { return n < 1; })))
    throw Error("rtgpu simulation: jobs_per_task needs one count >= 1 per task");
  if (!(options.sporadic_jitter >= 0)) throw Error("rtgpu simulation: sporadic jitter must be >= 0");
  if (options.physical_sms.size() != system.tasks.size()) {
    throw Error(fmt::format("rtgpu simulation: {} SM counts for {} tasks", options.physical_sms.size(),
                            system.tasks.size()));
  }
  std::int64_t total = 0;
  for (std::size_t i = 0; i < system.tasks.size(); ++i) {
    if (options.physical_sms[i] < (system.tasks[i].gpu.empty() ? 0 : 1))
      throw Error(fmt::format("rtgpu simulation: task {} needs {} SM", system.tasks[i].name,
                              system.tasks[i].gpu.empty() ? ">= 0" : ">= 1"));
    total += options.physical_sms[i];
  }
  if (total > system.platform.sms) {
    throw Error(fmt::format("rtgpu simulation: the allocation uses {} SMs, {} has {}", total,
                            system.platform.id, system.platform.sms));
  }
  if (system.platform.max_blocks < system.virtual_sms_per_sm) {
    throw Error(fmt::format("rtgpu simulation: {} holds {} blocks per SM, fewer than {} virtual SMs per SM",
                            system.platform.id, system.platform.max_blocks, system.virtual_sms_per_sm));
  }
  RtgpuDriver driver(system, options);
  const SimStats stats = sim::run_driven(system.platform, driver, options.seed);
  RtgpuSimResult r = driver.result();
  r.stats = stats;
  return r;
}

}  // namespace gpurt
