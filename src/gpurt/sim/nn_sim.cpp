// Closed-loop neural-network tasks (Dissertation §6.2-6.3) on the block-level simulator.
#include "gpurt/sim/nn_sim.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/model/amd_cu_layout.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt {

const std::vector<NnWorkload>& us_mobilenet_workloads() {
  // §6.2.1.2 names the three configurations; Table 5.2 (after the DataParallel fix) gives their
  // mean kernel and job times; §5.2.2 the kernel counts (91 at full width, 104 narrower).
  static const std::vector<NnWorkload> w = {
      {"small", 8, 0.25, 104, Nanos{1'131'000}, Nanos{6'909'000}},
      {"medium", 32, 0.5, 104, Nanos{4'904'000}, Nanos{9'043'000}},
      {"large", 64, 1.0, 91, Nanos{18'320'000}, Nanos{23'896'000}},
  };
  return w;
}

const NnWorkload& us_mobilenet_workload(std::string_view name) {
  for (const NnWorkload& w : us_mobilenet_workloads())
    if (w.name == name) return w;
  throw Error(fmt::format("unknown network task \"{}\" (small, medium, large)", name));
}

namespace {

constexpr double reference_batch_width = 32 * 0.5;  // the medium task, whose blocks are fitted

int nn_blocks(const NnWorkload& w, const NnKernelModel& m) {
  const double b = std::round(m.reference_blocks * w.batch * w.width / reference_batch_width);
  return static_cast<int>(std::clamp(b, 1.0, 1e6));
}

KernelSpec nn_kernel(const NnWorkload& w, int blocks, Nanos block_time, const Platform& p,
                     double memory_fraction) {
  KernelSpec k;
  k.name = w.name;
  k.blocks = blocks;
  k.shape.threads = p.max_threads;  // one block fills one CU
  k.block_time = block_time;
  k.memory_fraction = memory_fraction;
  return k;
}

// Runs one kernel alone on the whole GPU and reports its span.
class OneKernel final : public sim::SimDriver {
 public:
  explicit OneKernel(KernelSpec k) : _k(std::move(k)) {}
  // Launched from a timer: the engine dispatches after each instant's events.
  void start(sim::Simulator& sim) override { sim.driver_timer(Nanos{0}, 0); }
  void wake(sim::Simulator& sim, int) override { sim.driver_launch(sim.driver_stream({}), _k, 0, 0); }
  void kernel_done(sim::Simulator& sim, int) override { span = sim.now(); }
  Nanos span{0};

 private:
  KernelSpec _k;
};

void check_model(const NnKernelModel& m) {
  if (m.reference_blocks < 1 || m.reference_blocks > 1'000'000)
    throw Error(fmt::format("network tasks: reference_blocks = {} must be 1..1000000", m.reference_blocks));
  if (!(m.memory_fraction >= 0 && m.memory_fraction <= 1))
    throw Error(fmt::format("network tasks: memory_fraction = {} must be in [0, 1]", m.memory_fraction));
  if (!(m.memory_bound_kernels >= 0 && m.memory_bound_kernels <= 1))
    throw Error(
        fmt::format("network tasks: memory_bound_kernels = {} must be in [0, 1]", m.memory_bound_kernels));
  if (!(m.late_memory_fraction >= 0 && m.late_memory_fraction <= 1))
    throw Error(
        fmt::format("network tasks: late_memory_fraction = {} must be in [0, 1]", m.late_memory_fraction));
  if (!(m.cpu_jitter >= 0 && m.cpu_jitter <= 1))
    throw Error(fmt::format("network tasks: cpu_jitter = {} must be in [0, 1]", m.cpu_jitter));
  if (!(m.stall_probability >= 0 && m.stall_probability <= 1))
    throw Error(fmt::format("network tasks: stall_probability = {} must be in [0, 1]", m.stall_probability));
  if (m.stall < Nanos{0} || m.stall > Nanos{3'600'000'000'000})
    throw Error(fmt::format("network tasks: stall = {} ns must be in [0, 1 h]", m.stall.count()));
  if (m.lock_handoff < Nanos{0} || m.lock_handoff > Nanos{3'600'000'000'000})
    throw Error(
        fmt::format("network tasks: lock_handoff = {} ns must be in [0, 1 h]", m.lock_handoff.count()));
  if (!(m.lock_handoff_jitter >= 0 && m.lock_handoff_jitter <= 1))
    throw Error(
        fmt::format("network tasks: lock_handoff_jitter = {} must be in [0, 1]", m.lock_handoff_jitter));
  if (m.launch_cpu < Nanos{0} || m.launch_cpu > Nanos{1'000'000'000} || m.host_per_image < Nanos{0} ||
      m.host_per_image > Nanos{1'000'000'000})
    throw Error(
        fmt::format("network tasks: launch_cpu = {} ns and host_per_image = {} ns must be in [0, 1 s]",
                    m.launch_cpu.count(), m.host_per_image.count()));
}

}  // namespace

NnKernelShape nn_kernel_shape(const NnWorkload& w, const NnKernelModel& model, const Platform& platform) {
  check_model(model);
  if (w.kernels < 1 || w.kernel_time.count() <= 0 || w.job_time < w.kernel_time)
    throw Error(fmt::format("network task {}: needs kernels >= 1 and 0 < kernel time <= job time", w.name));
  NnKernelShape s;
  s.blocks = nn_blocks(w, model);
  // Every factor of the performance model depends on block counts only, so a kernel's span is
  // proportional to its block time: measure it at 1 ms and scale.
  // The probe runs without the launch's shared draw (kernel_jitter), which then scales the block
  // time by its mean, 1 + kernel_jitter/2: kernels average Table 5.2's time, not one draw's.
  constexpr std::int64_t probe = 1'000'000;
  Platform steady = platform;
  steady.model.kernel_jitter = 0;
  const double per_kernel = static_cast<double>(w.kernel_time.count()) / w.kernels;
  const double mean_draw = 1.0 + platform.model.kernel_jitter / 2;
  const auto solve = [&](double memory_fraction) {
    OneKernel one(nn_kernel(w, s.blocks, Nanos{probe}, steady, memory_fraction));
    sim::run_driven(steady, one, 1);  // kernel_jitter 0: no draw
    return Nanos{std::max<std::int64_t>(1, std::llround(per_kernel * static_cast<double>(probe) /
                                                        static_cast<double>(one.span.count()) / mean_draw))};
  };
  s.block_time = solve(model.memory_fraction);
  s.early_kernels = static_cast<int>(std::lround(model.memory_bound_kernels * w.kernels));
  s.late_block_time = s.early_kernels < w.kernels ? solve(model.late_memory_fraction) : s.block_time;
  return s;
}

std::vector<bool> nn_partition(const Platform& platform, int first, int count) {
  const AmdCuTopology topo = amd_topology(platform);
  const int per_se = topo.cus / topo.ses;
  const bool distributed = count % topo.ses == 0 && count % per_se != 0;
  return amd_cu_set(topo, distributed ? AmdCuLayout::se_distributed : AmdCuLayout::se_packed, first, count);
}

namespace {

// A task's timers: tag = task * timer_kinds + kind.
enum Timer {
  cpu_before_done = 0,
  cpu_after_done = 1,
  prepared = 2,
  synced = 3,
  launch_next = 4,
  timer_kinds = 5
};

struct NnTask {
  NnTaskSpec spec;
  NnKernelShape shape;
  Nanos cpu{0};  ///< job time minus kernel time: the mean CPU time of a job
  int whole_stream = -1, own_stream = -1;
  std::vector<int> slot_streams;
  Nanos job_start{0};
  int kernels_left = 0;
  int launches_left = 0;     ///< pipelined launches still to make in this job
  double host_factor = 1.0;  ///< pipelined: this job's host speed, 1 + U(-cpu_jitter, cpu_jitter)
  int slot = -1;
  bool handoff = false;      ///< k_exclusion: had to wait for a slot (pays lock_handoff once granted)
  std::int64_t started = 0;  ///< jobs begun
  std::vector<Nanos> times;  ///< measured job times
};

class NnDriver final : public sim::SimDriver {
 public:
  NnDriver(const Platform& p, const std::vector<NnTaskSpec>& specs, const NnSimOptions& o)
      : _p(p),
        _o(o),
        _rng(o.seed),
        _stall_rng(Rng(o.seed).fork(0x57A11)),
        _handoff_rng(Rng(o.seed).fork(0x4A4D0FF)) {
    for (const NnTaskSpec& s : specs) {
      NnTask t;
      t.spec = s;
      t.shape = nn_kernel_shape(s.workload, o.model, p);
      t.cpu = s.workload.job_time - s.workload.kernel_time;
      _tasks.push_back(std::move(t));
    }
    if (o.management == NnManagement::k_exclusion) _slot_free.assign(static_cast<std::size_t>(o.k), true);
    if (o.management == NnManagement::kernel_lock) _slot_free.assign(1, true);
  }

  void start(sim::Simulator& sim) override {
    for (NnTask& t : _tasks) {
      t.whole_stream = sim.driver_stream({});
      if (_o.management == NnManagement::partitioned) t.own_stream = sim.driver_stream(t.spec.cus);
      for (const std::vector<bool>& cus : _o.slot_cus) t.slot_streams.push_back(sim.driver_stream(cus));
    }
    if (_o.warmup_jobs == 0) {
      open_barrier(sim);
    } else {
      for (std::size_t i = 0; i < _tasks.size(); ++i) begin_job(sim, i);
    }
  }

  void wake(sim::Simulator& sim, int tag) override {
    const auto i = static_cast<std::size_t>(tag / timer_kinds);
    switch (tag % timer_kinds) {
      case cpu_before_done:
        if (_o.management == NnManagement::kernel_lock) {
          _tasks[i].kernels_left = _tasks[i].spec.workload.kernels;
          timer(sim, sim.now() + launch_host(_tasks[i]) + _o.launch_latency, i, prepared);
        } else if (pipelined()) {
          _tasks[i].kernels_left = _tasks[i].launches_left = _tasks[i].spec.workload.kernels;
          timer(sim, sim.now() + launch_host(_tasks[i]), i, launch_next);
        } else {
          launch(sim, i);
        }
        break;
      case launch_next:  // pipelined: the host has spent launch_cpu on this kernel and queues it
        sim.driver_launch(stream_of(_tasks[i]),
                          kernel_of(_tasks[i], _tasks[i].spec.workload.kernels - _tasks[i].launches_left),
                          static_cast<int>(i), static_cast<int>(i));
        if (--_tasks[i].launches_left > 0) timer(sim, sim.now() + launch_host(_tasks[i]), i, launch_next);
        break;
      case prepared:  // the launch call reached the lock (ihipModuleLaunchKernel, before enqueueing)
        _waiting.push_back(i);
        grant_kernel(sim);
        break;
      case synced:  // the task saw its kernel complete: release the lock, then the next kernel
        _slot_free[0] = true;
        if (--_tasks[i].kernels_left == 0) {
          if (pipelined()) {
            finish_job(sim, i);
          } else {
            timer(sim, sim.now() + cpu_segment(_tasks[i]), i, cpu_after_done);
          }
        } else {
          timer(sim, sim.now() + launch_host(_tasks[i]) + _o.launch_latency, i, prepared);
        }
        grant_kernel(sim);
        break;
      default:
        finish_job(sim, i);
    }
  }

  void kernel_done(sim::Simulator& sim, int tag) override {
    const auto i = static_cast<std::size_t>(tag);
    NnTask& t = _tasks[i];
    if (_o.management == NnManagement::kernel_lock) {
      timer(sim, sim.now() + _o.sync_latency, i, synced);
      return;
    }
    if (--t.kernels_left > 0) return;
    if (pipelined()) {
      finish_job(sim, i);  // the host, waiting in its sync, sees the last kernel complete
    } else {
      timer(sim, sim.now() + cpu_segment(t), i, cpu_after_done);
    }
  }

  NnSimResult result() const {
    NnSimResult r;
    std::vector<Nanos> all;
    for (const NnTask& t : _tasks) {
      r.tasks.push_back(stats(t.times));
      if (t.spec.measured) all.insert(all.end(), t.times.begin(), t.times.end());
    }
    r.measured = stats(all);
    return r;
  }

 private:
  static NnJobStats stats(const std::vector<Nanos>& v) {
    NnJobStats s;
    s.jobs = static_cast<std::int64_t>(v.size());
    if (v.empty()) return s;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    s.min = *lo;
    s.max = *hi;
    long double sum = 0;
    for (Nanos x : v) sum += static_cast<long double>(x.count());
    const long double mean = sum / static_cast<long double>(v.size());
    long double sq = 0;
    for (Nanos x : v)
      sq += (static_cast<long double>(x.count()) - mean) * (static_cast<long double>(x.count()) - mean);
    s.mean_ns = static_cast<double>(mean);
    s.stddev_ns = static_cast<double>(std::sqrt(sq / static_cast<long double>(v.size())));
    return s;
  }

  // Half of the job's CPU time, scaled by the seeded, mean-preserving CPU jitter.
  Nanos cpu_segment(const NnTask& t) {
    const double half = static_cast<double>(t.cpu.count()) / 2;
    const double j = _o.model.cpu_jitter;
    const double u = j > 0 ? _rng.uniform(-j, j) : 0.0;
    return Nanos{std::llround(half * (1 + u))};
  }

  bool pipelined() const { return _o.model.launch_cpu > Nanos{0}; }

  // Pipelined: the host time before one launch, at the job's host speed. Otherwise none.
  Nanos launch_host(const NnTask& t) const {
    if (!pipelined()) return Nanos{0};
    return Nanos{std::llround(static_cast<double>(_o.model.launch_cpu.count()) * t.host_factor)};
  }

  // The job's first CPU segment: jittered, and now and then stalled on the host. Pipelined: the
  // serial host part, host_per_image per image, at the job's host speed (drawn here, once a job).
  Nanos first_segment(NnTask& t) {
    Nanos d{0};
    if (pipelined()) {
      const double j = _o.model.cpu_jitter;
      t.host_factor = 1 + (j > 0 ? _rng.uniform(-j, j) : 0.0);
      d = Nanos{std::llround(static_cast<double>(_o.model.host_per_image.count()) * t.spec.workload.batch *
                             t.host_factor)};
    } else {
      d = cpu_segment(t);
    }
    const NnKernelModel& m = _o.model;
    if (m.stall_probability > 0 && m.stall > Nanos{0} && _stall_rng.uniform01() < m.stall_probability)
      d += Nanos{std::llround(_stall_rng.uniform01() * static_cast<double>(m.stall.count()))};
    return d;
  }

  static void timer(sim::Simulator& sim, Nanos at, std::size_t i, Timer kind) {
    sim.driver_timer(at, static_cast<int>(i) * timer_kinds + kind);
  }

  // Kernel `index` (0-based) of a job: the early ones are memory_fraction memory-bound, the
  // rest late_memory_fraction.
  KernelSpec kernel_of(const NnTask& t, int index) const {
    if (index < t.shape.early_kernels)
      return nn_kernel(t.spec.workload, t.shape.blocks, t.shape.block_time, _p, _o.model.memory_fraction);
    return nn_kernel(t.spec.workload, t.shape.blocks, t.shape.late_block_time, _p,
                     _o.model.late_memory_fraction);
  }

  // Per-kernel locking: the first waiting task (FIFO) takes the free lock and enqueues its kernel.
  void grant_kernel(sim::Simulator& sim) {
    if (_waiting.empty() || !_slot_free[0]) return;
    _slot_free[0] = false;
    const std::size_t i = _waiting.front();
    _waiting.pop_front();
    sim.driver_launch(_tasks[i].whole_stream,
                      kernel_of(_tasks[i], _tasks[i].spec.workload.kernels - _tasks[i].kernels_left),
                      static_cast<int>(i), static_cast<int>(i));
  }

  void begin_job(sim::Simulator& sim, std::size_t i) {
    NnTask& t = _tasks[i];
    if (++_jobs > _o.max_jobs)
      throw Error(fmt::format(
          "network tasks: more than {} jobs in one scenario (raise --max-jobs, or shorten --seconds)",
          _o.max_jobs));
    // A scenario far past the limit is refused once a hundredth of the limit (at least 100
    // measured jobs) shows it: at --seconds 10^6 the count above reached its 10^6 jobs only after
    // about 43 minutes. The projection must pass twice the limit, since the rate can change;
    // nearer the limit the exact count decides.
    const std::int64_t measured = _jobs - _jobs_at_barrier;
    if (_barrier_open && measured >= std::max<std::int64_t>(100, _o.max_jobs / 100) &&
        sim.now() > _measure_from) {
      const double elapsed = static_cast<double>((sim.now() - _measure_from).count());
      const double projected =
          static_cast<double>(_jobs_at_barrier) +
          static_cast<double>(measured) * static_cast<double>(_o.duration.count()) / elapsed;
      if (projected > 2.0 * static_cast<double>(_o.max_jobs))
        throw Error(
            fmt::format("network tasks: a scenario would complete about {:.3g} jobs, more than twice "
                        "the limit of {} (its first {:.3g} s made {}; raise --max-jobs, or shorten "
                        "--seconds)",
                        projected, _o.max_jobs, elapsed / 1e9, measured));
    }
    t.job_start = sim.now();
    ++t.started;
    if (_o.management == NnManagement::k_exclusion) {
      // It waits when every slot is held or others queue before it (the FIFO hands them the slot
      // this task may just have released).
      t.handoff =
          !_waiting.empty() || std::find(_slot_free.begin(), _slot_free.end(), true) == _slot_free.end();
      _waiting.push_back(i);
      grant(sim);
    } else {
      timer(sim, sim.now() + first_segment(t), i, cpu_before_done);
    }
  }

  void grant(sim::Simulator& sim) {
    while (!_waiting.empty()) {
      const auto free = std::find(_slot_free.begin(), _slot_free.end(), true);
      if (free == _slot_free.end()) return;
      *free = false;
      const std::size_t i = _waiting.front();
      _waiting.pop_front();
      _tasks[i].slot = static_cast<int>(free - _slot_free.begin());
      const Nanos handoff = _tasks[i].handoff ? handoff_delay() : Nanos{0};
      timer(sim, sim.now() + handoff + first_segment(_tasks[i]), i, cpu_before_done);
    }
  }

  // One hand-off: lock_handoff x (1 + U(-j, j)), drawn from the hand-off stream.
  Nanos handoff_delay() {
    const double h = static_cast<double>(_o.model.lock_handoff.count());
    const double j = _o.model.lock_handoff_jitter;
    if (h <= 0 || j <= 0) return _o.model.lock_handoff;
    return Nanos{std::llround(h * (1.0 + j * (2.0 * _handoff_rng.uniform01() - 1.0)))};
  }

  int stream_of(const NnTask& t) const {
    if (_o.management == NnManagement::partitioned) return t.own_stream;
    if (_o.management == NnManagement::k_exclusion && !t.slot_streams.empty())
      return t.slot_streams[static_cast<std::size_t>(t.slot)];
    return t.whole_stream;
  }

  void launch(sim::Simulator& sim, std::size_t i) {
    NnTask& t = _tasks[i];
    const int stream = stream_of(t);
    t.kernels_left = t.spec.workload.kernels;
    // Asynchronous launches: every kernel is queued at once and the stream runs them in order.
    for (int j = 0; j < t.spec.workload.kernels; ++j)
      sim.driver_launch(stream, kernel_of(t, j), static_cast<int>(i), static_cast<int>(i));
  }

  void finish_job(sim::Simulator& sim, std::size_t i) {
    NnTask& t = _tasks[i];
    if (t.slot >= 0) {
      _slot_free[static_cast<std::size_t>(t.slot)] = true;
      t.slot = -1;
    }
    if (t.started > _o.warmup_jobs) t.times.push_back(sim.now() - t.job_start);
    if (t.started == _o.warmup_jobs) {
      // §6.2.1.1's barrier: a task that has run its warm-up jobs waits for the others; the
      // measured minute starts when the last arrives, every task beginning a job at once.
      if (++_at_barrier == _tasks.size()) open_barrier(sim);
    } else if (t.started < _o.warmup_jobs || sim.now() < _measure_from + _o.duration) {
      // Warm-up jobs run to the barrier whatever the duration (the measured time has not
      // started); a measured job starts only within the duration after the barrier.
      begin_job(sim, i);
    }
    if (_o.management == NnManagement::k_exclusion) grant(sim);
  }

  void open_barrier(sim::Simulator& sim) {
    _measure_from = sim.now();
    _barrier_open = true;
    _jobs_at_barrier = _jobs;
    for (std::size_t j = 0; j < _tasks.size(); ++j) begin_job(sim, j);
  }

  const Platform& _p;
  NnSimOptions _o;
  Rng _rng;
  Rng _stall_rng;    ///< host stalls only: the jitter draws stay the same whatever the stall model
  Rng _handoff_rng;  ///< lock hand-offs only: no other draw moves with lock_handoff_jitter
  std::vector<NnTask> _tasks;
  std::vector<bool> _slot_free;
  std::deque<std::size_t> _waiting;
  std::int64_t _jobs = 0;
  std::size_t _at_barrier = 0;  ///< tasks done with their warm-up jobs
  Nanos _measure_from{0};       ///< when the barrier opened: the measured duration starts here
  bool _barrier_open = false;
  std::int64_t _jobs_at_barrier = 0;  ///< jobs begun before the measured duration (warm-ups)
};

void check_cus(const std::vector<bool>& cus, const Platform& p, const std::string& what) {
  if (cus.size() != static_cast<std::size_t>(p.sms))
    throw Error(
        fmt::format("network tasks: {} has {} CU flags, {} has {} CUs", what, cus.size(), p.id, p.sms));
  if (std::none_of(cus.begin(), cus.end(), [](bool b) { return b; }))
    throw Error(fmt::format("network tasks: {} enables no CU", what));
}

}  // namespace

NnSimResult simulate_nn(const Platform& platform, const std::vector<NnTaskSpec>& tasks,
                        const NnSimOptions& o) {
  validate(platform);
  check_model(o.model);
  if (tasks.empty()) throw Error("network tasks: no task");
  if (o.duration.count() <= 0 || o.duration > Nanos{1'000'000'000'000'000})
    throw Error("network tasks: the duration must be in (0, 10^6 s]");
  if (o.warmup_jobs < 0) throw Error("network tasks: warmup_jobs must be >= 0");
  if (o.max_jobs < 1) throw Error("network tasks: max_jobs must be >= 1");
  if (o.management == NnManagement::k_exclusion) {
    if (o.k < 1 || o.k > platform.sms)
      throw Error(fmt::format("network tasks: k = {} must be 1..{}", o.k, platform.sms));
    if (!o.slot_cus.empty() && o.slot_cus.size() != static_cast<std::size_t>(o.k))
      throw Error(fmt::format("network tasks: {} slot partitions for k = {}", o.slot_cus.size(), o.k));
    for (std::size_t s = 0; s < o.slot_cus.size(); ++s)
      check_cus(o.slot_cus[s], platform, fmt::format("slot {}", s));
  }
  if (o.management == NnManagement::partitioned)
    for (const NnTaskSpec& t : tasks) check_cus(t.cus, platform, "task " + t.workload.name);
  if (o.launch_latency < Nanos{0} || o.launch_latency > Nanos{1'000'000'000} || o.sync_latency < Nanos{0} ||
      o.sync_latency > Nanos{1'000'000'000})
    throw Error("network tasks: launch and sync latencies must be in [0, 1 s]");
  NnDriver driver(platform, tasks, o);
  const SimStats stats = sim::run_driven(platform, driver, o.seed);
  NnSimResult r = driver.result();
  r.stats = stats;
  return r;
}

}  // namespace gpurt
