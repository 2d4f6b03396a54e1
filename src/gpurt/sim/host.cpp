// The CPU side of the simulator: each benchmark instance is a host thread that runs its
// plugin's program every iteration (copy_in, execute, copy_out; Dissertation §3.3.2), issuing
// launches, copies and synchronisations, and recording the examiner's CPU-side times.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt::sim {

struct Host {
  enum class Phase { iteration_begin, action_delay, action_call, children, final_sync, done };
  enum class Wait { none, stream, context, op, cpu_barrier, barrier, children };

  const ScenarioInstance* inst = nullptr;
  int context = 0, stream = 0;
  Phase phase = Phase::iteration_begin;
  Wait wait = Wait::none;
  std::uint64_t wait_seq = 0;    ///< Wait::context: every op before it; Wait::op: this op
  int in_flight = 0;             ///< its ops issued but not arrived (launch latency)
  std::uint64_t stream_seq = 0;  ///< a stream sync waits for the stream's ops before this seq
  bool syncing = false;          ///< in the end-of-iteration stream sync (stream_seq is set)
  std::size_t action = 0;
  bool delay_done = false;
  bool calling = false;  ///< inside a call that may block on the CPU
  Nanos call_start{0};   ///< when the current call began
  bool holds_cpu_barrier = false;
  bool barrier_passed = false;
  bool warmup = false;
  std::int64_t started_iterations = 0;  ///< including the warm-up one
  std::int64_t recorded_iterations = 0;
  IterationRecord* current = nullptr;  ///< the iteration being recorded (nullptr: warm-up)
  std::vector<IterationRecord> iterations;
  std::vector<std::vector<int>> kernel_records;  ///< record ids per recorded iteration
  std::vector<int> children;                     ///< task_host: the hosts of its nested config
};

namespace {

// ceil(bytes · 10^9 / bandwidth) ns, exactly where the bandwidth is a short decimal (12e9 B/s:
// 732 bytes take 61 ns, which the binary quotient made 62).
Nanos scaled(std::int64_t bytes, double bytes_per_second) {
  __extension__ typedef unsigned __int128 Wide;
  if (const auto d = short_decimal(bytes_per_second); d && d->numerator != 0 && bytes >= 0) {
    Wide n = static_cast<Wide>(bytes) * 1'000'000'000U;  // < 2^93
    int scale = 0;
    for (; scale < d->scale && n < (Wide{1} << 120); ++scale) n *= 10;
    if (scale == d->scale) {
      const Wide q = n / d->numerator + (n % d->numerator != 0 ? 1 : 0);
      if (q <= static_cast<Wide>(std::numeric_limits<std::int64_t>::max()))
        return Nanos{static_cast<std::int64_t>(q)};
    }
  }
  return Nanos{static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) / bytes_per_second * 1e9))};
}

}  // namespace

Simulator::Simulator(const Scenario& scenario, const Platform& platform, const SimulateOptions& options)
    : _scenario(scenario),
      _platform(platform),
      _options(options),
      _device(platform),
      _placement(make_placement(scenario.sim.placement)),
      _perf(options.ideal_model || scenario.sim.ideal_model ? PerfParams{} : platform.model, platform.sms,
            scenario.sim.seed ^ (options.model_seed * 0x9E3779B97F4A7C15ULL), options.worst_case_model) {
  _engines.resize(static_cast<std::size_t>(std::max(1, platform.copy_engines)));
  init_amd();
  // Threads share one context; use_processes gives each instance its own (Dissertation §3.3.2).
  // A parsed config numbers each instance's process (task_host nests processes and threads).
  std::map<int, int> context_of_process;
  std::map<int, int> instances_in_process;
  for (const ScenarioInstance& inst : scenario.instances) ++instances_in_process[inst.process];
  // MPS: any mps_thread_percentage means the processes are MPS clients (docs/simulator.md).
  for (std::size_t i = 0; i < scenario.instances.size(); ++i) {
    const ScenarioInstance& inst = scenario.instances[i];
    if (!inst.mps_thread_percentage) continue;
    const std::string path =
        inst.parent < 0 ? fmt::format("benchmarks[{}].mps_thread_percentage", i)
                        : fmt::format("(nested benchmark \"{}\").mps_thread_percentage", inst.log_name);
    const std::string value = fmt::format("{}", *inst.mps_thread_percentage);
    if (platform.vendor == Vendor::amd) {
      throw InputError(scenario.source, path, value, "MPS is NVIDIA's; " + platform.id + " is an AMD GPU");
    }
    // Process 0 is the top level's threads (use_processes false): CUDA reads the variable once
    // per process, and the examiner sets it only for benchmarks run as processes.
    if (inst.process <= 0 || instances_in_process[inst.process] > 1) {
      throw InputError(scenario.source, path, value,
                       "needs \"use_processes\": true (CUDA reads CUDA_MPS_ACTIVE_THREAD_PERCENTAGE once per "
                       "process)");
    }
    _mps = true;
  }
  for (const ScenarioInstance& inst : scenario.instances) {
    auto h = std::make_unique<Host>();
    h->inst = &inst;
    if (inst.process >= 0) {
      auto [it, fresh] = context_of_process.try_emplace(inst.process, -1);
      if (fresh) it->second = create_context();
      h->context = it->second;
    } else {
      h->context = scenario.use_processes || _contexts.empty() ? create_context() : 0;
    }
    Context& ctx = _contexts[static_cast<std::size_t>(h->context)];
    if (inst.mps_thread_percentage && *inst.mps_thread_percentage < 100) {
      // The client may occupy at most this share of the SMs at once (rounded up; at least one).
      // ceil(p · SMs / 100) with p as written: 7 % of 100 SMs is 7, not the binary product's 8.
      const auto share = scale_up(Nanos{platform.sms}, *inst.mps_thread_percentage);
      ctx.sm_limit = std::max(1, static_cast<int>(ceil_div(share.value().count(), 100)));
      ctx.resident.assign(static_cast<std::size_t>(platform.sms), 0);
    }
    if (_null_stream_of_context.size() < _contexts.size())
      _null_stream_of_context.resize(_contexts.size(), -1);
    if (inst.null_stream) {
      int& ns = _null_stream_of_context[static_cast<std::size_t>(h->context)];
      if (ns < 0) ns = create_stream(h->context, 0, {}, true);
      h->stream = ns;
    } else {
      // The examiner creates a non-blocking stream when the config gives stream_priority (within
      // the device's range; the presets carry none, so any given priority counts), else a
      // blocking one (cudaStreamCreate).
      h->stream =
          create_stream(h->context, inst.stream_priority, inst.sm_mask, false, !inst.stream_priority_given);
    }
    h->warmup = scenario.do_warmup;
    _hosts.push_back(std::move(h));
  }
  for (std::size_t i = 0; i < scenario.instances.size(); ++i) {
    const int parent = scenario.instances[i].parent;
    if (parent >= 0) _hosts[static_cast<std::size_t>(parent)]->children.push_back(static_cast<int>(i));
  }
  _alive_hosts = static_cast<int>(_hosts.size());
}

Simulator::~Simulator() = default;

void Simulator::host_launch_arrived(int host) {
  Host& h = *_hosts[static_cast<std::size_t>(host)];
  // Its latest launch is now the stream's newest op: a sync waits for it and what is ahead.
  if (--h.in_flight == 0) h.stream_seq = _op_seq;
}

bool Simulator::stream_synced(const Host& h) const {
  if (h.in_flight > 0) return false;
  const Stream& s = _streams[static_cast<std::size_t>(h.stream)];
  // A stream's ops complete in order and leave from the front: all before stream_seq are done
  // when the front (if any) came later.
  return s.ops.empty() || _ops[static_cast<std::size_t>(s.ops.front())].seq >= h.stream_seq;
}

namespace {
// A wait that the context's work (or its CPU barrier) ends: wake_waiters' business.
bool waits_for_context(const Host& h) {
  return h.wait == Host::Wait::stream || h.wait == Host::Wait::context || h.wait == Host::Wait::op ||
         h.wait == Host::Wait::cpu_barrier;
}
}  // namespace

void Simulator::wake_waiters(int stream, int context) {
  (void)stream;
  Context& c = _contexts[static_cast<std::size_t>(context)];
  // In ascending host order, as a scan of every host would wake them (events scheduled at one
  // instant keep that order).
  for (auto it = c.waiters.begin(); it != c.waiters.end();) {
    const auto i = static_cast<std::size_t>(*it);
    Host& h = *_hosts[i];
    if (h.context != context || !waits_for_context(h)) {
      it = c.waiters.erase(it);  // stopped waiting since it was listed
      continue;
    }
    bool ready = false;
    Nanos latency{0};
    switch (h.wait) {
      case Host::Wait::stream:
        ready = stream_synced(h);
        latency = _scenario.sim.sync_latency;
        break;
      case Host::Wait::context:
        ready = context_idle_before(context, h.wait_seq);
        latency = _scenario.sim.sync_latency;
        break;
      case Host::Wait::op:
        ready = c.incomplete.count(h.wait_seq) == 0;
        latency = _scenario.sim.sync_latency;
        break;
      case Host::Wait::cpu_barrier:
        ready = c.cpu_barrier == 0;
        break;
      default:
        break;
    }
    if (ready) {
      h.wait = Host::Wait::none;
      schedule(_now + latency, EventKind::host_wake, static_cast<int>(i));
      it = c.waiters.erase(it);
    } else {
      ++it;
    }
  }
}

void Simulator::host_step(int index) {
  host_step_body(index);
  // Every wait on the context's work starts in a step: list the host where wake_waiters looks.
  const Host& h = *_hosts[static_cast<std::size_t>(index)];
  if (waits_for_context(h)) _contexts[static_cast<std::size_t>(h.context)].waiters.insert(index);
}

void Simulator::host_step_body(int index) {
  Host& h = *_hosts[static_cast<std::size_t>(index)];
  const ScenarioInstance& inst = *h.inst;
  const SimOptions& sim = _scenario.sim;
  Context& ctx = _contexts[static_cast<std::size_t>(h.context)];
  auto wait_until = [&](Nanos t) { schedule(t, EventKind::host_wake, index); };
  // Every op a call issues (kernel, copy, memset) takes its place in the context's order now and
  // reaches its stream after the launch latency: one pipeline, so a stream's ops stay in order.
  auto submit = [&](int id) {
    if (sim.launch_latency.count() <= 0) return arrive(id);
    issue(id);
    Op& op = _ops[static_cast<std::size_t>(id)];
    ++_streams[static_cast<std::size_t>(op.stream)].in_flight;
    ++h.in_flight;
    op.host = index;
    schedule(_now + sim.launch_latency, EventKind::op_arrive, id);
  };
  auto release_cpu_barrier = [&] {
    h.holds_cpu_barrier = false;
    --ctx.cpu_barrier;
    wake_waiters(h.stream, h.context);
  };
  // The examiner's per-iteration barrier: everyone waiting at it goes on now.
  auto open_barrier = [&] {
    _barrier_arrived = 0;
    for (std::size_t i = 0; i < _hosts.size(); ++i) {
      if (_hosts[i]->wait == Host::Wait::barrier) {
        _hosts[i]->wait = Host::Wait::none;
        _hosts[i]->barrier_passed = true;
        schedule(_now, EventKind::host_wake, static_cast<int>(i));
      }
    }
  };
  // Resumed after an implicitly synchronising call (cudaFree): other threads may launch again.
  if (h.holds_cpu_barrier && h.wait == Host::Wait::none) release_cpu_barrier();

  while (true) {
    switch (h.phase) {
      case Host::Phase::iteration_begin: {
        if (_now < inst.release_time) return wait_until(inst.release_time);
        const bool counted = !(h.warmup && h.started_iterations == 0);
        const bool out_of_iterations =
            inst.max_iterations > 0 && h.recorded_iterations >= inst.max_iterations;
        const bool out_of_time = inst.max_time.count() > 0 && _now - inst.release_time >= inst.max_time;
        if (counted && (out_of_iterations || out_of_time)) {
          h.phase = Host::Phase::done;
          --_alive_hosts;
          if (inst.parent >= 0) {  // a task_host waiting for its nested config may go on
            Host& parent = *_hosts[static_cast<std::size_t>(inst.parent)];
            if (parent.wait == Host::Wait::children) {
              parent.wait = Host::Wait::none;
              schedule(_now, EventKind::host_wake, inst.parent);
            }
          }
          if (_scenario.sync_every_iteration && _barrier_arrived > 0 && _barrier_arrived == _alive_hosts) {
            open_barrier();
          }
          return;
        }
        if (_scenario.sync_every_iteration && !h.barrier_passed) {
          // Every live instance starts the iteration together (the examiner's barrier).
          if (++_barrier_arrived < _alive_hosts) {
            h.wait = Host::Wait::barrier;
            return;
          }
          open_barrier();
        }
        if (inst.period.count() > 0) {
          const Nanos due = inst.release_time + inst.period * h.started_iterations;
          if (_now < due) return wait_until(due);
        }
        h.barrier_passed = false;
        if (++_iterations > sim.max_kernels) {
          throw Error(fmt::format(
              "{}: simulation stopped after {} iterations at {} s: gpurt_sim.max_kernels ({}) bounds the "
              "kernel launches and the iterations of one run; raise it in the config's \"gpurt_sim\" "
              "section to simulate more",
              _scenario.source, sim.max_kernels, static_cast<double>(_now.count()) / 1e9, sim.max_kernels));
        }
        ++h.started_iterations;
        if (counted) {
          h.iterations.emplace_back();
          h.kernel_records.emplace_back();
          h.current = &h.iterations.back();
          h.current->copy_in_start = h.current->copy_in_end = h.current->execute_start = _now;
        } else {
          h.current = nullptr;
        }
        h.action = 0;
        h.delay_done = false;
        h.phase = inst.actions.empty() ? Host::Phase::children : Host::Phase::action_delay;
        break;
      }
      case Host::Phase::children: {
        // task_host: the iteration runs its nested config; it ends when every nested host is done.
        const bool all_done = std::all_of(h.children.begin(), h.children.end(), [&](int c) {
          return _hosts[static_cast<std::size_t>(c)]->phase == Host::Phase::done;
        });
        if (!all_done) {
          h.wait = Host::Wait::children;
          return;
        }
        h.phase = Host::Phase::final_sync;
        break;
      }
      case Host::Phase::action_delay: {
        const HostAction& a = inst.actions[h.action];
        if (a.delay.count() > 0 && !h.delay_done) {
          h.delay_done = true;
          return wait_until(_now + a.delay);
        }
        h.delay_done = false;
        h.phase = Host::Phase::action_call;
        break;
      }
      case Host::Phase::action_call: {
        const HostAction& a = inst.actions[h.action];
        const bool issues_work = a.kind == HostAction::Kind::kernel || a.kind == HostAction::Kind::copy ||
                                 a.kind == HostAction::Kind::memset;
        if (!h.calling) {
          h.calling = true;
          h.call_start = _now;
        }
        // Pitfalls 3.3-3.4: while another thread of the context is inside cudaFree, its other CUDA
        // calls (launches, copies, syncs, allocations) block on the CPU until it returns.
        if (ctx.cpu_barrier > 0 && !h.holds_cpu_barrier) {
          h.wait = Host::Wait::cpu_barrier;
          return;
        }
        Nanos call_cost = sim.launch_call;
        bool wait_for_call = false;
        switch (a.kind) {
          case HostAction::Kind::kernel: {
            Op op;
            op.kind = Op::Kind::kernel;
            op.stream = h.stream;
            op.context = h.context;
            op.blocks = a.kernel.blocks;
            op.shape = a.kernel.shape;
            op.block_time = a.kernel.block_time;
            op.slowdown = a.kernel.slowdown;
            // An instance's kernels share a working set unless the workload says otherwise.
            op.locality = a.kernel.locality >= 0 ? a.kernel.locality : index;
            op.memory_fraction = a.kernel.memory_fraction;
            op.wcet_time = a.kernel.wcet_time;
            op.min_time = a.kernel.min_time;
            if (_options.record && h.current) {
              KernelRecord r;
              r.name = a.kernel.name;
              r.block_count = a.kernel.blocks;
              r.thread_count = a.kernel.shape.threads;
              r.shared_memory = a.kernel.shape.shared_memory;
              r.launch_before = h.call_start;  // a launch blocked on the CPU shows as a long call
              r.launch_after = _now + call_cost;
              // Blocks start in index order, so records are appended as they start: memory follows
              // what was simulated, not what a (possibly huge) grid asks for.
              if (!_scenario.omit_block_times)
                r.blocks.reserve(static_cast<std::size_t>(std::min(a.kernel.blocks, 4096)));
              _records.push_back(std::move(r));
              op.record = static_cast<int>(_records.size()) - 1;
              h.kernel_records.back().push_back(op.record);
            }
            op.mask = a.kernel.sm_mask;
            op.mask_sms = static_cast<int>(std::count(op.mask.begin(), op.mask.end(), true));
            if (++_stats.kernels > static_cast<std::uint64_t>(sim.max_kernels)) {
              throw Error(
                  fmt::format("{}: simulation stopped after {} kernel launches at {} s: "
                              "gpurt_sim.max_kernels ({}) bounds "
                              "the kernel launches and the iterations of one run; raise it in the config's "
                              "\"gpurt_sim\" section to simulate more",
                              _scenario.source, sim.max_kernels, static_cast<double>(_now.count()) / 1e9,
                              sim.max_kernels));
            }
            submit(new_op(std::move(op)));
            break;
          }
          case HostAction::Kind::copy:
          case HostAction::Kind::memset: {
            Op op;
            op.context = h.context;
            op.stream = h.stream;
            if (a.synchronous) {
              int& ns = _null_stream_of_context[static_cast<std::size_t>(h.context)];
              if (ns < 0) ns = create_stream(h.context, 0, {}, true);
              op.stream = ns;
            }
            if (a.kind == HostAction::Kind::copy) {
              op.kind = Op::Kind::copy;
              const int engines = static_cast<int>(_engines.size());
              op.engine = a.direction == CopyDirection::host_to_device   ? 0
                          : a.direction == CopyDirection::device_to_host ? std::min(1, engines - 1)
                                                                         : std::min(2, engines - 1);
              op.duration = sim.copy_latency + scaled(a.bytes, sim.copy_bandwidth);
            } else {
              op.kind = Op::Kind::memset;
              op.duration = scaled(a.bytes, sim.memset_bandwidth);
            }
            const int id = new_op(std::move(op));
            submit(id);
            if (a.synchronous) {
              // cudaMemcpy / cudaMemset return when their own op completes: the NULL stream has made
              // it wait for the blocking streams' earlier work, never for a non-blocking stream's.
              h.wait_seq = _ops[static_cast<std::size_t>(id)].seq;
              h.wait = Host::Wait::op;
            }
            break;
          }
          case HostAction::Kind::malloc:
            break;
          case HostAction::Kind::free:
            // §3.5.1.3: cudaFree waits for all earlier work of the context (implicit sync).
            ++ctx.cpu_barrier;
            h.holds_cpu_barrier = true;
            h.wait_seq = _op_seq;
            wait_for_call = true;
            break;
          case HostAction::Kind::sync_stream:
            h.wait = Host::Wait::stream;
            h.stream_seq = _op_seq;  // the ops in the stream now (and its own launches in flight)
            break;
          case HostAction::Kind::sync_device:
            h.wait_seq = _op_seq;
            wait_for_call = true;
            break;
        }
        h.calling = false;
        if (wait_for_call) h.wait = Host::Wait::context;
        ++h.action;
        h.phase = h.action < inst.actions.size() ? Host::Phase::action_delay : Host::Phase::final_sync;
        if (h.wait == Host::Wait::stream && !stream_synced(h)) return;
        if (h.wait == Host::Wait::context && !context_idle_before(h.context, h.wait_seq)) return;
        if (h.wait == Host::Wait::op && ctx.incomplete.count(h.wait_seq) != 0) return;
        h.wait = Host::Wait::none;
        if (h.holds_cpu_barrier) release_cpu_barrier();
        if (call_cost.count() > 0 && issues_work) return wait_until(_now + call_cost);
        break;
      }
      case Host::Phase::final_sync: {
        if (!h.syncing && ctx.cpu_barrier > 0 && !h.holds_cpu_barrier) {  // a CUDA call, as above
          h.wait = Host::Wait::cpu_barrier;
          return;
        }
        if (!h.syncing) {  // cudaStreamSynchronize at the end of execute: called now
          h.syncing = true;
          h.stream_seq = _op_seq;
        }
        if (!stream_synced(h)) {
          h.wait = Host::Wait::stream;
          return;
        }
        h.syncing = false;
        if (h.current) {
          for (int r : h.kernel_records.back()) _records[static_cast<std::size_t>(r)].sync_after = _now;
          h.current->execute_end = h.current->copy_out_start = h.current->copy_out_end = _now;
          ++h.recorded_iterations;
        }
        h.phase = Host::Phase::iteration_begin;
        break;
      }
      case Host::Phase::done:
        return;
    }
  }
}

SimResult Simulator::collect() {
  SimResult result;
  Trace& t = result.trace;
  t.scenario_name = _scenario.name;
  t.platform = _platform.id;
  t.sms = _platform.sms;
  t.max_threads_per_sm = _platform.max_threads;
  t.simulated = true;
  for (std::size_t i = 0; i < _hosts.size(); ++i) {
    Host& h = *_hosts[i];
    InstanceTrace it;
    it.benchmark_name = h.inst->plugin;
    it.label = h.inst->label;
    it.log_name = h.inst->log_name;
    it.release_time = h.inst->release_time;
    it.thread_count = h.inst->thread_count;
    it.block_count = h.inst->block_count;
    it.data_size = h.inst->data_size;
    it.stream = h.stream;
    // A horizon may cut the last iteration short; only whole iterations are reported.
    const std::size_t whole = static_cast<std::size_t>(h.recorded_iterations);
    for (std::size_t k = 0; k < whole && k < h.iterations.size(); ++k) {
      IterationRecord rec = h.iterations[k];
      for (int r : h.kernel_records[k])
        rec.kernels.push_back(std::move(_records[static_cast<std::size_t>(r)]));
      it.iterations.push_back(std::move(rec));
    }
    t.instances.push_back(std::move(it));
  }
  result.stats = _stats;
  return result;
}

}  // namespace gpurt::sim

namespace gpurt {

SimResult simulate(const Scenario& scenario, const Platform& platform, const SimulateOptions& options) {
  validate(platform);
  sim::Simulator simulator(scenario, platform, options);
  return simulator.run();
}

}  // namespace gpurt
