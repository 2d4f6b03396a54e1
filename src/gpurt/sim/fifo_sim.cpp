// FIFO model seed §III-IV on the simulator. The engine's NVIDIA dispatch already implements
// rules R1-R2 (the Dissertation's rules A-D, of which R1-R2 are the single-context, single-
// priority case): a kernel enters the primary queue when it reaches the head of its stream,
// and only the head of the primary queue dispatches, block by block, while threads are free.
#include "gpurt/sim/fifo_sim.hpp"

#include <algorithm>

#include <deque>
#include <limits>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt {

Platform fifo_platform(const FifoSystem& s) {
  if (s.gpu_threads > std::numeric_limits<int>::max())
    throw Error(
        fmt::format("fifo: m = {} GPU threads is too many to simulate (at most 2^31 - 1)", s.gpu_threads));
  Platform p;
  p.id = fmt::format("fifo-{}", s.gpu_threads);
  p.name = fmt::format("FIFO-model GPU: one pool of {} threads", s.gpu_threads);
  p.sms = 1;
  p.max_threads = static_cast<int>(s.gpu_threads);
  p.max_blocks = p.max_threads;  // every block holds >= 1 thread: threads are the only limit
  p.registers = std::numeric_limits<int>::max();
  p.shared_memory = std::numeric_limits<std::int64_t>::max();
  p.max_threads_per_block = s.max_block;
  return p;
}

namespace {

class FifoDriver final : public sim::SimDriver {
 public:
  FifoDriver(const FifoSystem& s, const FifoSimOptions& o) : _s(s), _o(o), _state(s.tasks.size()) {
    Rng rng(o.seed);
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      const FifoTask& t = s.tasks[i];
      _state[i].out.name = t.name;
      _state[i].out.first_release =
          o.random_offsets ? Nanos{rng.uniform_int(0, t.period.count() - 1)} : Nanos{0};
      // Each block finishes within C_i / (g_i·b_i) (seed §IV), rounded up to whole ns.
      const std::int64_t threads = std::int64_t{t.grid} * t.block;
      _state[i].kernel.name = t.name;
      _state[i].kernel.blocks = t.grid;
      _state[i].kernel.shape.threads = t.block;
      _state[i].kernel.block_time = Nanos{(t.wcet.count() + threads - 1) / threads};
      _state[i].kernel.wcet_time = true;  // from C_i: the performance model may only shorten it
    }
  }

  void start(sim::Simulator& sim) override {
    for (std::size_t i = 0; i < _state.size(); ++i) {
      _state[i].stream = sim.driver_stream({});  // task i's own stream (seed §II, Fig. 1)
      sim.driver_timer(_state[i].out.first_release, static_cast<int>(i));
    }
  }

  std::int64_t jobs_of(std::size_t task) const {
    return _o.jobs_per_task.empty() ? _o.jobs : _o.jobs_per_task[task];
  }

  // A release: the job's kernel is launched into the task's stream at once.
  void wake(sim::Simulator& sim, int tag) override {
    Task& t = _state[static_cast<std::size_t>(tag)];
    t.pending.push_back(sim.now());
    if (++t.released < jobs_of(static_cast<std::size_t>(tag)))
      sim.driver_timer(sim.now() + _s.tasks[static_cast<std::size_t>(tag)].period, tag);
    sim.driver_launch(t.stream, t.kernel, tag, tag);  // a task's working set
  }

  // Kernels of one stream complete in order: the oldest pending release is this job's.
  void kernel_done(sim::Simulator& sim, int tag) override {
    Task& t = _state[static_cast<std::size_t>(tag)];
    t.out.response.push_back(sim.now() - t.pending.front());
    t.pending.pop_front();
  }

  FifoSimResult result() {
    FifoSimResult r;
    for (Task& t : _state) {
      long double sum = 0;
      for (Nanos x : t.out.response) {
        t.out.worst = std::max(t.out.worst, x);
        sum += static_cast<long double>(x.count());
      }
      if (!t.out.response.empty())
        t.out.mean = Nanos{static_cast<std::int64_t>(sum / static_cast<long double>(t.out.response.size()))};
      r.tasks.push_back(std::move(t.out));
    }
    return r;
  }

 private:
  struct Task {
    FifoTaskSim out;
    KernelSpec kernel;
    int stream = 0;
    std::int64_t released = 0;
    std::deque<Nanos> pending;  ///< releases of jobs not yet complete
  };
  const FifoSystem& _s;
  FifoSimOptions _o;
  std::vector<Task> _state;
};

}  // namespace

FifoSimResult simulate_fifo(const FifoSystem& system, const FifoSimOptions& options) {
  if (options.jobs < 1) throw Error("fifo simulation: jobs must be >= 1");
  if (!options.jobs_per_task.empty() &&
      (options.jobs_per_task.size() != system.tasks.size() ||
       std::any_of(options.jobs_per_task.begin(), options.jobs_per_task.end(),
                   [](std::int64_t n) { return n < 1; })))
    throw Error("fifo simulation: jobs_per_task needs one count >= 1 per task");
  const Platform platform = fifo_platform(system);
  FifoDriver driver(system, options);
  const SimStats stats = sim::run_driven(platform, driver, options.seed);
  FifoSimResult r = driver.result();
  r.stats = stats;
  return r;
}

}  // namespace gpurt
