// Arbitration policies on top of the GPU simulator. A job of task i: CPU segment (its own CPU),
// GPU request to the policy, kernel on the units it was given, release, CPU segment. The kernel
// of a job on k units is k·partition_unit blocks that each fill one SM for L(i,k), so on k
// dedicated units it takes exactly the task's WCET L(i,k) -- the SMLP model's assumption --
// while under best effort its blocks compete for SMs in the engine like any other kernel's.
#include "gpurt/sim/system.hpp"

#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "gpurt/analysis/kx.hpp"
#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/model/amd_cu_layout.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt {

std::string_view to_string(Arbitration a) {
  switch (a) {
    case Arbitration::best_effort:
      return "be";
    case Arbitration::smlp_fifo:
      return "smlp";
    case Arbitration::smlp_priority:
      return "smlp-prio";
    case Arbitration::k_exclusion:
      return "kx";
    case Arbitration::federated:
      return "federated";
  }
  return "?";
}

Arbitration parse_arbitration(std::string_view name) {
  for (Arbitration a : {Arbitration::best_effort, Arbitration::smlp_fifo, Arbitration::smlp_priority,
                        Arbitration::k_exclusion, Arbitration::federated}) {
    if (to_string(a) == name) return a;
  }
  throw Error(fmt::format("unknown policy \"{}\" (be, smlp, smlp-prio, kx, federated)", name));
}

namespace {

enum Timer { release_timer = 0, cpu_before_done = 1, cpu_after_done = 2 };

struct TaskState {
  const SmlpTask* task = nullptr;
  SmlpTaskTiming timing;
  std::vector<int> allowed;  ///< S_i
  Nanos period{0};
  std::deque<Nanos> releases;          ///< released, not yet complete (head: the job in progress)
  bool busy = false;                   ///< the head job has started
  Nanos request{0};                    ///< when the head job asked for the GPU
  Nanos granted_at{0}, kernel_end{0};  ///< record_jobs: when the head job got the GPU, its kernel ended
  std::vector<SystemJobTimes> job_times;
  std::vector<int> held;   ///< units the head job holds (SMLP) or runs on
  int slot = -1;           ///< k-exclusion slot held
  int size = 0;            ///< units' worth of blocks of the granted kernel
  bool whole_gpu = false;  ///< the granted kernel may use every SM
  std::int64_t jobs = 0, misses = 0;
  Nanos worst{0}, worst_gpu{0};
  long double total = 0;
  std::map<std::pair<bool, std::vector<int>>, int> streams;  ///< (whole GPU?, units) -> stream
};

class Arbiter final : public sim::SimDriver {
 public:
  Arbiter(const SmlpSystem& system, const SystemSimOptions& o) : _sys(system), _o(o), _rng(o.seed) {
    const SmlpResult analysis = analyse_smlp(system, SmlpOptions{o.rho_override});
    _h = system.platform.units();
    _busy.assign(static_cast<std::size_t>(_h), false);
    for (std::size_t i = 0; i < system.tasks.size(); ++i) {
      TaskState t;
      t.task = &system.tasks[i];
      if (i < system.timing.size()) t.timing = system.timing[i];
      t.allowed = analysis.tasks[i].allowed_units;
      if (t.timing.period)
        t.period = *t.timing.period;
      else if (t.task->deadline)
        t.period = *t.task->deadline;
      else
        throw Error("task " + t.task->name + ": needs a period or a deadline to be released");
      _tasks.push_back(std::move(t));
      _gpu_bounds.push_back(analysis.tasks[i].response_bound);
    }
    if (o.policy == Arbitration::k_exclusion) {
      if (o.k < 1 || o.k > _h) throw Error(fmt::format("k-exclusion: k = {} must be 1..{}", o.k, _h));
      for (int s = 0, first = 0; s < o.k; ++s) {
        const int size = _h / o.k + (s < _h % o.k ? 1 : 0);
        _slot_units.emplace_back();
        for (int u = first; u < first + size; ++u) _slot_units.back().push_back(u);
        first += size;
      }
      _slot_free.assign(static_cast<std::size_t>(o.k), true);
    }
    if (o.policy == Arbitration::federated) assign_federated();
    if (o.policy == Arbitration::smlp_fifo && o.job_level_lock) job_lock_bounds(analysis);
  }

  void start(sim::Simulator& sim) override {
    for (std::size_t i = 0; i < _tasks.size(); ++i) {
      const Nanos offset =
          _o.random_offsets ? Nanos{_rng.uniform_int(0, _tasks[i].period.count() - 1)} : Nanos{0};
      if (offset < _o.horizon) sim.driver_timer(offset, tag(i, release_timer));
    }
  }

  void wake(sim::Simulator& sim, int t) override {
    const auto i = static_cast<std::size_t>(t / 3);
    TaskState& task = _tasks[i];
    switch (t % 3) {
      case release_timer: {
        task.releases.push_back(sim.now());
        Nanos gap = task.period;
        if (_o.sporadic_jitter > 0)
          gap += Nanos{static_cast<std::int64_t>(static_cast<double>(gap.count()) *
                                                 _rng.uniform(0, _o.sporadic_jitter))};
        if (sim.now() + gap < _o.horizon) sim.driver_timer(sim.now() + gap, t);
        if (!task.busy) begin_job(sim, i);
        break;
      }
      case cpu_before_done:
        if (_o.job_level_lock) {
          launch(sim, i);  // the job already holds the GPU
        } else {
          task.request = sim.now();
          request(sim, i);
        }
        break;
      default:
        if (_o.job_level_lock) release(sim, i);
        finish_job(sim, i);
        break;
    }
  }

  void kernel_done(sim::Simulator& sim, int t) override {
    const auto i = static_cast<std::size_t>(t);
    TaskState& task = _tasks[i];
    task.worst_gpu = std::max(task.worst_gpu, sim.now() - task.request);
    task.kernel_end = sim.now();
    if (!_o.job_level_lock) release(sim, i);
    sim.driver_timer(sim.now() + task.timing.cpu_after, tag(i, cpu_after_done));
  }

  SystemSimResult result() const {
    SystemSimResult r;
    std::optional<KxResult> kx;  // the k-exclusion bound (analysis/kx.hpp), for partitioned slots
    for (std::size_t i = 0; i < _tasks.size(); ++i) {
      const TaskState& t = _tasks[i];
      TaskSimStats s;
      s.name = t.task->name;
      s.jobs = t.jobs;
      s.worst_response = t.worst;
      s.mean_response = t.jobs > 0 ? Nanos{static_cast<std::int64_t>(t.total / t.jobs)} : Nanos{0};
      s.worst_gpu_response = t.worst_gpu;
      s.smlp_gpu_bound = _gpu_bounds[i];
      s.smlp_bound = saturating_add(host_bound(t.timing), _gpu_bounds[i]);
      s.deadline = t.task->deadline.value_or(t.period);  // implicit deadline D = T, as in analyse_smlp
      s.deadline_misses = t.misses;
      s.job_times = t.job_times;
      if (_o.policy == Arbitration::smlp_fifo)
        s.policy_bound = _o.job_level_lock ? _job_lock_bounds[i] : s.smlp_bound;
      if (_o.policy == Arbitration::federated) {
        s.units = _fed_units[i];
        s.policy_bound = saturating_add(host_bound(t.timing), wcet(t, _fed_units[i]));
      }
      if (_o.policy == Arbitration::k_exclusion && _o.kx_partitioned) {
        s.units = static_cast<int>(_slot_units[0].size());
        if (!kx) kx = analyse_kx(_sys, KxOptions{_o.k, _o.job_level_lock});
        s.policy_bound = kx->tasks[i].response_bound;  // while a task's jobs do not overlap
      }
      r.tasks.push_back(std::move(s));
    }
    return r;
  }

 private:
  static int tag(std::size_t task, Timer timer) { return static_cast<int>(task) * 3 + timer; }

  // SMLP with the lock held for the whole job (--job-lock): a job asks for units at its release
  // and holds them through its CPU segments, so Lemmas 1-2 apply with every L(i,k) lengthened by
  // the task's CPU time (areas k·(C_i + L(i,k)) block the others) and the sizes S_i the kernel-
  // level analysis chose. The kernel-level bound plus CPU time does not hold here: a job also
  // waits for the others' CPU segments.
  void job_lock_bounds(const SmlpResult& kernel_level) {
    SmlpSystem held = _sys;
    held.timing.clear();
    for (std::size_t i = 0; i < held.tasks.size(); ++i) {
      const Nanos cpu = host_bound(_tasks[i].timing);  // its copies' waits hold the lock too
      for (Nanos& l : held.tasks[i].wcet_by_units) l = saturating_add(l, cpu);
      held.tasks[i].allowed_units = kernel_level.tasks[i].allowed_units;
    }
    const SmlpResult a = analyse_smlp(held, SmlpOptions{});
    for (const SmlpTaskResult& t : a.tasks) _job_lock_bounds.push_back(t.response_bound);
  }

  // L(i, k), with sizes beyond the measured ones taken as the largest measured (more units
  // than a kernel can use do not make it faster).
  static Nanos wcet(const TaskState& t, int units) {
    const auto& l = t.task->wcet_by_units;
    return l[static_cast<std::size_t>(std::min<std::size_t>(static_cast<std::size_t>(units), l.size()) - 1)];
  }

  void begin_job(sim::Simulator& sim, std::size_t i) {
    _tasks[i].busy = true;
    if (_o.job_level_lock) {
      _tasks[i].request = sim.now();
      request(sim, i);  // granted() starts the CPU segment
    } else {
      sim.driver_timer(sim.now() + _tasks[i].timing.cpu_before, tag(i, cpu_before_done));
    }
  }

  // The job got the GPU (units, slot or the whole device, as `t` now records).
  void granted(sim::Simulator& sim, std::size_t i) {
    _tasks[i].granted_at = sim.now();
    if (_o.job_level_lock) {
      sim.driver_timer(sim.now() + _tasks[i].timing.cpu_before, tag(i, cpu_before_done));
    } else {
      launch(sim, i);
    }
  }

  void release(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    if (_o.policy == Arbitration::smlp_fifo || _o.policy == Arbitration::smlp_priority) {
      for (int u : t.held) _busy[static_cast<std::size_t>(u)] = false;
    }
    if (t.slot >= 0) _slot_free[static_cast<std::size_t>(t.slot)] = true;
    t.held.clear();
    t.slot = -1;
    grant_waiters(sim);
  }

  void finish_job(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    const Nanos response = sim.now() - t.releases.front();
    t.releases.pop_front();
    ++t.jobs;
    t.total += static_cast<long double>(response.count());
    t.worst = std::max(t.worst, response);
    if (response > t.task->deadline.value_or(t.period)) ++t.misses;  // implicit D = T
    if (_o.record_jobs)
      t.job_times.push_back(
          SystemJobTimes{sim.now() - response, t.request, t.granted_at, t.kernel_end, sim.now(), t.size});
    t.busy = false;
    if (!t.releases.empty()) begin_job(sim, i);  // a job released meanwhile runs next
  }

  void request(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    switch (_o.policy) {
      case Arbitration::best_effort:
        t.size = t.allowed.back();
        t.whole_gpu = true;
        granted(sim, i);
        break;
      case Arbitration::federated:
        t.held = _fed_range[i];
        t.size = _fed_units[i];
        t.whole_gpu = false;
        granted(sim, i);
        break;
      default:
        _waiting.push_back(i);
        grant_waiters(sim);
        break;
    }
  }

  // Serves waiters while the policy allows: FIFO order, or highest priority (lowest index)
  // first; the chosen waiter blocks those behind it until it can be served.
  void grant_waiters(sim::Simulator& sim) {
    while (!_waiting.empty()) {
      auto it = _o.policy == Arbitration::smlp_priority ? std::min_element(_waiting.begin(), _waiting.end())
                                                        : _waiting.begin();
      const std::size_t i = *it;
      TaskState& t = _tasks[i];
      if (_o.policy == Arbitration::k_exclusion) {
        const auto slot = std::find(_slot_free.begin(), _slot_free.end(), true);
        if (slot == _slot_free.end()) return;
        *slot = false;
        t.slot = static_cast<int>(slot - _slot_free.begin());
        _waiting.erase(it);
        if (_o.kx_partitioned) {
          t.held = _slot_units[static_cast<std::size_t>(t.slot)];
          t.size = static_cast<int>(t.held.size());
          t.whole_gpu = false;
        } else {
          t.size = t.allowed.back();
          t.whole_gpu = true;
        }
        granted(sim, i);
        continue;
      }
      // SMLP (FFT/SMLP §III-A): the largest allowed size not above the free units.
      const int free_units = static_cast<int>(std::count(_busy.begin(), _busy.end(), false));
      const int g = smlp_grant(t.allowed, free_units);
      if (g == 0) return;
      _waiting.erase(it);
      for (int u = 0; u < _h && static_cast<int>(t.held.size()) < g; ++u) {
        if (!_busy[static_cast<std::size_t>(u)]) {
          _busy[static_cast<std::size_t>(u)] = true;
          t.held.push_back(u);  // lowest free units first, as the runtime lock hands them out
        }
      }
      t.size = g;
      t.whole_gpu = false;
      granted(sim, i);
    }
  }

  // One kernel of t.size units' worth of whole-SM blocks, each running L(i, size), restricted
  // to the units in t.held (whole_gpu: anywhere).
  void launch(sim::Simulator& sim, std::size_t i) {
    TaskState& t = _tasks[i];
    const bool whole_gpu = t.whole_gpu;
    const int k = t.size;
    const std::vector<int> units = whole_gpu ? std::vector<int>{} : t.held;
    const Platform& p = _sys.platform;
    auto key = std::make_pair(whole_gpu, units);
    auto found = t.streams.find(key);
    if (found == t.streams.end()) {
      std::vector<bool> mask;
      if (!whole_gpu) {
        mask.assign(static_cast<std::size_t>(p.sms), false);
        const bool amd = p.vendor == Vendor::amd && p.shader_engines > 0 && p.partition_unit == 1;
        for (int u : units) {
          if (amd) {
            // AMD: unit u is the u-th CU in SE-packed order, so that consecutive units fill
            // whole shader engines (Dissertation §6.1.3 partitions; no lone-CU SEs, §4.2.2.3).
            mask[static_cast<std::size_t>(amd_cu_bit_at(amd_topology(p), AmdCuLayout::se_packed, u))] = true;
          } else {
            for (int sm = u * p.partition_unit; sm < (u + 1) * p.partition_unit; ++sm)
              mask[static_cast<std::size_t>(sm)] = true;
          }
        }
      }
      found = t.streams.emplace(key, sim.driver_stream(std::move(mask))).first;
    }
    KernelSpec kernel;
    kernel.name = t.task->name;
    kernel.blocks = std::min(k, static_cast<int>(t.task->wcet_by_units.size())) * p.partition_unit;
    kernel.shape.threads = p.max_threads;  // one block fills one SM
    kernel.block_time = wcet(t, k);
    kernel.wcet_time = true;  // L(i,k): the performance model may only shorten it
    sim.driver_launch(found->second, kernel, static_cast<int>(i),
                      static_cast<int>(i));  // a task's working set
  }

  // Federated: each task gets the smallest allowed size whose WCET, with its CPU segments,
  // meets its deadline (or period), else its largest allowed size; consecutive unit ranges.
  void assign_federated() {
    int next = 0;
    for (const TaskState& t : _tasks) {
      // Sized for min(D, T): a bound above the period is never claimed (jobs of the task could
      // queue on its units), so a deadline past the period must not buy fewer units.
      const Nanos limit = std::min(t.task->deadline.value_or(t.period), t.period) - host_bound(t.timing);
      int n = t.allowed.back();
      for (int k : t.allowed) {
        if (wcet(t, k) <= limit) {
          n = k;
          break;
        }
      }
      _fed_units.push_back(n);
      _fed_range.emplace_back();
      for (int u = next; u < next + n; ++u) _fed_range.back().push_back(u);
      next += n;
    }
    if (next > _h) {
      throw Error(
          fmt::format("federated: the tasks need {} dedicated units, {} has {}", next, _sys.platform.id, _h));
    }
  }

  const SmlpSystem& _sys;
  SystemSimOptions _o;
  Rng _rng;
  int _h = 0;
  std::vector<TaskState> _tasks;
  std::vector<Nanos> _gpu_bounds;
  std::vector<Nanos> _job_lock_bounds;        ///< SMLP with --job-lock: Lemma 2 over whole jobs
  std::vector<bool> _busy;                    ///< SMLP: units held
  std::deque<std::size_t> _waiting;           ///< SMLP / k-exclusion waiters, arrival order
  std::vector<std::vector<int>> _slot_units;  ///< k-exclusion: partition of each slot
  std::vector<bool> _slot_free;
  std::vector<int> _fed_units;
  std::vector<std::vector<int>> _fed_range;
};

// The platform with its whole performance model off (SystemSimOptions::ideal_model).
Platform with_ideal_model(Platform p) {
  p.model = PerfParams{};
  return p;
}

}  // namespace

SystemSimResult simulate_system(const SmlpSystem& system, const SystemSimOptions& options) {
  validate(system.platform);
  if (options.horizon.count() <= 0) throw Error("simulate-system: the horizon must be > 0");
  if (!(options.sporadic_jitter >= 0)) throw Error("simulate-system: sporadic jitter must be >= 0");
  Arbiter arbiter(system, options);
  const SimStats stats = sim::run_driven(
      options.ideal_model ? with_ideal_model(system.platform) : system.platform, arbiter, options.seed);
  SystemSimResult r = arbiter.result();
  r.stats = stats;
  return r;
}

}  // namespace gpurt
