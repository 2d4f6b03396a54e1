#include "gpurt/sim/fft_sim.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/model/cufft_model.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt {

namespace {

std::vector<bool> unit_mask(const Platform& p, int first, int count) {
  std::vector<bool> mask(static_cast<std::size_t>(p.sms), false);
  for (int sm = first * p.partition_unit; sm < (first + count) * p.partition_unit; ++sm)
    mask[static_cast<std::size_t>(sm)] = true;
  return mask;
}

// N tasks, each a loop of jobs: [gap] → request (SMLP lock or none) → kernels in order →
// [host delay] → unlock → next job. Tag = task index; a request timer's tag is offset by
// `tasks`, a host-delay timer's by 2·`tasks`.
class TasksDriver : public sim::SimDriver {
 public:
  TasksDriver(const Platform& p, const FftTasksOptions& o)
      : _p(p),
        _o(o),
        _rng(o.seed),
        _host_rng(o.seed ^ 0x5DEECE66DULL),
        _busy(static_cast<std::size_t>(p.units()), false) {
    _tasks.resize(static_cast<std::size_t>(o.tasks));
  }

  // Every task's first request at time 0, through a timer: the engine takes launches from
  // its event loop, which has not started when start() runs.
  void start(sim::Simulator& sim) override {
    for (int i = 0; i < _o.tasks; ++i) sim.driver_timer(Nanos{0}, i + _o.tasks);
  }
  void wake(sim::Simulator& sim, int tag) override {
    if (tag >= 2 * _o.tasks) {
      finish_job(sim, static_cast<std::size_t>(tag - 2 * _o.tasks));
    } else {
      request(sim, static_cast<std::size_t>(tag - _o.tasks));
    }
  }
  void kernel_done(sim::Simulator& sim, int tag) override {
    const auto i = static_cast<std::size_t>(tag);
    Task& t = _tasks[i];
    if (++t.next_kernel < t.kernels->size()) {
      sim.driver_launch(t.stream, (*t.kernels)[t.next_kernel], tag, tag);  // a task's working set
      return;
    }
    // The GPU work is done; the thread sees it when it is on a CPU core (host contention).
    const Nanos late = host_delay();
    if (late.count() > 0) {
      sim.driver_timer(sim.now() + late, tag + 2 * _o.tasks);
      return;
    }
    finish_job(sim, i);
  }

  FftTasksResult take() { return std::move(_result); }

 private:
  // Host CPU contention (model/perf_params.hpp host_cores, host_slice_us): the R threads that
  // spin in cudaStreamSynchronize (best effort: all N; SMLP: the lock holders -- a waiter is
  // suspended, FFT/SMLP §III-A; the microsecond host gaps are not counted) share host_cores
  // cores; a thread is off its core with probability (R - cores)/R and then waits up to a slice.
  Nanos host_delay() {
    const PerfParams& m = _p.model;
    if (m.host_cores <= 0 || m.host_slice_us <= 0) return Nanos{0};
    const double runnable = static_cast<double>(
        _o.policy == FftPolicy::best_effort
            ? _o.tasks
            : std::count_if(_tasks.begin(), _tasks.end(), [](const Task& t) { return !t.held.empty(); }));
    if (runnable <= m.host_cores) return Nanos{0};
    const double off = _host_rng.uniform01();
    const double wait = _host_rng.uniform01();  // drawn always: one stream, two draws per job
    if (off >= (runnable - m.host_cores) / runnable) return Nanos{0};
    return Nanos{static_cast<std::int64_t>(wait * m.host_slice_us * 1000.0)};
  }

  // The thread has seen its job complete: unlock first (Alg. 1 line 11), then the next request
  // after a host gap.
  void finish_job(sim::Simulator& sim, std::size_t i) {
    Task& t = _tasks[i];
    _result.responses.push_back(sim.now() - t.requested);
    _result.makespan = std::max(_result.makespan, sim.now());
    for (int u : t.held) _busy[static_cast<std::size_t>(u)] = false;
    t.held.clear();
    grant_waiters(sim);
    if (++t.jobs_done < _o.jobs) {
      const Nanos gap{_o.max_gap.count() > 0 ? _rng.uniform_int(0, _o.max_gap.count()) : 0};
      sim.driver_timer(sim.now() + gap, static_cast<int>(i) + _o.tasks);
    }
  }

  struct Task {
    int jobs_done = 0;
    std::size_t next_kernel = 0;
    Nanos requested{0};
    std::vector<int> held;
    int stream = -1;
    const std::vector<KernelSpec>* kernels = nullptr;  ///< this job's, in waves of its SMs
  };

  void request(sim::Simulator& sim, std::size_t i) {
    _tasks[i].requested = sim.now();
    if (_o.policy == FftPolicy::best_effort) {
      if (_be_streams.size() <= i) _be_streams.resize(_tasks.size(), -1);
      if (_be_streams[i] < 0) _be_streams[i] = sim.driver_stream({});
      launch(sim, i, _be_streams[i], _p.sms);
      return;
    }
    _waiting.push_back(i);
    grant_waiters(sim);
  }

  // FIFO SMLP (FFT/SMLP §III-A): the head gets the largest allowed size not above the free
  // units (smlp_grant, shared with the analysis and the runtime lock), lowest free units first.
  void grant_waiters(sim::Simulator& sim) {
    while (!_waiting.empty()) {
      const int free_units = static_cast<int>(std::count(_busy.begin(), _busy.end(), false));
      const int g = smlp_grant(_o.allowed, free_units);
      if (g == 0) return;
      const std::size_t i = _waiting.front();
      _waiting.pop_front();
      Task& t = _tasks[i];
      for (int u = 0; u < _p.units() && static_cast<int>(t.held.size()) < g; ++u) {
        if (!_busy[static_cast<std::size_t>(u)]) {
          _busy[static_cast<std::size_t>(u)] = true;
          t.held.push_back(u);
        }
      }
      _result.granted.push_back(g);
      std::vector<bool> mask(static_cast<std::size_t>(_p.sms), false);
      for (int u : t.held)
        for (int sm = u * _p.partition_unit; sm < (u + 1) * _p.partition_unit; ++sm)
          mask[static_cast<std::size_t>(sm)] = true;
      auto found = _streams.find(mask);
      if (found == _streams.end()) found = _streams.emplace(mask, sim.driver_stream(mask)).first;
      launch(sim, i, found->second, g * _p.partition_unit);
    }
  }

  void launch(sim::Simulator& sim, std::size_t i, int stream, int sms) {
    Task& t = _tasks[i];
    auto found = _waves.find(sms);
    if (found == _waves.end()) found = _waves.emplace(sms, in_waves(_o.kernels, sms)).first;
    t.kernels = &found->second;
    t.stream = stream;
    t.next_kernel = 0;
    sim.driver_launch(stream, t.kernels->front(), static_cast<int>(i), static_cast<int>(i));
  }

  const Platform& _p;
  const FftTasksOptions& _o;
  Rng _rng;
  Rng _host_rng;  ///< host contention draws, apart from the gaps' (a change in one keeps the other)
  std::vector<bool> _busy;
  std::vector<Task> _tasks;
  std::deque<std::size_t> _waiting;
  std::vector<int> _be_streams;
  std::map<std::vector<bool>, int> _streams;      ///< one stream per unit set (a partition's stream)
  std::map<int, std::vector<KernelSpec>> _waves;  ///< a job's kernels by the SMs it may use
  FftTasksResult _result;
};

// One FFT stream on units [0, k), an interfering kernel on [k, H). Tag 0: FFT kernel,
// 1: interferer, 2: timer.
class ProfileDriver : public sim::SimDriver {
 public:
  ProfileDriver(const Platform& p, const FftProfileRunOptions& o) : _p(p), _o(o), _rng(o.seed) {}

  void start(sim::Simulator& sim) override {
    _kernels = in_waves(_o.kernels, _o.units * _p.partition_unit);
    std::vector<bool> mine = unit_mask(_p, _o.first_unit, _o.units);
    _fft = sim.driver_stream(mine);
    const int others = _p.units() - _o.units;
    if (others > 0) {
      // One wave of whole-SM blocks on every other unit, relaunched as it completes until the
      // last run is done: never a pending block that could hold up the FFT's kernels.
      _interferer.name = "interferer";
      _interferer.shape.threads = std::min(_p.max_threads_per_block, _p.max_threads);
      _interferer.shape.shared_memory = _p.shared_memory;
      _interferer.block_time = _o.interferer_block;
      _interferer.blocks = others * _p.partition_unit;
      mine.flip();  // every unit the FFT does not hold
      _other = sim.driver_stream(mine);
      sim.driver_launch(_other, _interferer, 1, kInterfererLocality);
    }
    schedule_run(sim);
  }
  void wake(sim::Simulator& sim, int) override {
    _start = sim.now();
    _next = 0;
    sim.driver_launch(_fft, _kernels[_next], 0, run_locality());
  }
  void kernel_done(sim::Simulator& sim, int tag) override {
    if (tag == 1) {
      if (static_cast<int>(_times.size()) < _o.runs)
        sim.driver_launch(_other, _interferer, 1, kInterfererLocality);
      return;
    }
    if (++_next < _kernels.size()) {
      sim.driver_launch(_fft, _kernels[_next], 0, run_locality());
      return;
    }
    _times.push_back(sim.now() - _start);
    if (static_cast<int>(_times.size()) < _o.runs) schedule_run(sim);
  }
  std::vector<Nanos> take() { return std::move(_times); }

 private:
  // Each run processes fresh input (the seed's random signals): its own working set, so its
  // SMs start cold, as an SMLP job's do after another task held its units.
  static constexpr int kInterfererLocality = 1 << 22;
  int run_locality() const { return static_cast<int>(_times.size()); }
  void schedule_run(sim::Simulator& sim) {
    const Nanos offset{1 + _rng.uniform_int(0, _o.interferer_block.count() - 1)};
    sim.driver_timer(sim.now() + offset, 2);
  }

  const Platform& _p;
  const FftProfileRunOptions& _o;
  Rng _rng;
  int _fft = -1, _other = -1;
  std::vector<KernelSpec> _kernels;  ///< one run, in waves of the FFT's SMs
  KernelSpec _interferer;
  std::size_t _next = 0;
  Nanos _start{0};
  std::vector<Nanos> _times;
};

// `worst_case`: the performance model's random draws at their largest (the profiler's WCETs
// must cover every slowdown the experiment on the same model can draw).
template <class Driver>
void run_driver(const Platform& p, Driver& driver, std::uint64_t seed, bool worst_case) {
  Scenario none;
  // The drivers' own limits (jobs, horizon) bound their work; gpurt_sim.max_blocks is for configs.
  none.sim.max_blocks = std::numeric_limits<std::int64_t>::max();
  SimulateOptions so;
  so.record = false;
  so.model_seed = seed;
  so.worst_case_model = worst_case;
  sim::Simulator sim(none, p, so);
  sim.driver = &driver;
  sim.run();
}

}  // namespace

FftTasksResult simulate_fft_tasks(const Platform& p, const FftTasksOptions& o) {
  validate(p);
  if (o.tasks < 1 || o.jobs < 1)
    throw Error(fmt::format("FFT tasks: {} tasks x {} jobs: both must be >= 1", o.tasks, o.jobs));
  if (o.kernels.empty()) throw Error("FFT tasks: a job needs at least one kernel");
  if (o.max_gap.count() < 0) throw Error("FFT tasks: the host gap must be >= 0");
  if (o.policy == FftPolicy::smlp &&
      (o.allowed.empty() || o.allowed.front() != 1 || o.allowed.back() > p.units()))
    throw Error(fmt::format("FFT tasks: allowed sizes must start at 1 and stay within {} units", p.units()));
  TasksDriver driver(p, o);
  run_driver(p, driver, o.seed, false);
  return driver.take();
}

std::vector<Nanos> simulate_fft_profile_runs(const Platform& p, const FftProfileRunOptions& o) {
  validate(p);
  if (o.units < 1 || o.units > p.units())
    throw Error(fmt::format("FFT profile: {} units on {} (1..{})", o.units, p.id, p.units()));
  if (o.first_unit < 0 || o.first_unit > p.units() - o.units)
    throw Error(fmt::format("FFT profile: units {}..{} on {} (it has units 0..{})", o.first_unit,
                            o.first_unit + o.units - 1, p.id, p.units() - 1));
  if (o.runs < 1 || o.kernels.empty() || o.interferer_block.count() < 1)
    throw Error("FFT profile: needs >= 1 run, >= 1 kernel and an interferer block >= 1 ns");
  ProfileDriver driver(p, o);
  run_driver(p, driver, o.seed, true);
  return driver.take();
}

}  // namespace gpurt
