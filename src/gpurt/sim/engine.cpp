// The GPU side of the simulator: stream queues and the primary queue with the Dissertation's
// rules A-D (§3.4.2; the FIFO model seed's R1-R2), stream priorities, the NULL stream, SM
// masks, copy engines and time slicing between contexts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt::sim {

bool Context::has_pending() const {
  return std::any_of(primary.begin(), primary.end(), [](const auto& q) { return !q.empty(); });
}

int Simulator::create_context() {
  _contexts.emplace_back();
  return static_cast<int>(_contexts.size()) - 1;
}

int Simulator::create_stream(int context, int priority, std::vector<bool> mask, bool null_stream,
                             bool blocking) {
  Context& c = _contexts[static_cast<std::size_t>(context)];
  // Levels are the distinct priorities of the context's streams, highest (lowest number) first.
  auto it = std::lower_bound(c.level_priority.begin(), c.level_priority.end(), priority);
  if (it == c.level_priority.end() || *it != priority) {
    const auto pos = it - c.level_priority.begin();
    c.level_priority.insert(it, priority);
    c.primary.insert(c.primary.begin() + pos, std::deque<int>{});
    for (int s : c.streams) {
      Stream& other = _streams[static_cast<std::size_t>(s)];
      if (other.level >= pos) ++other.level;
    }
  }
  Stream s;
  s.context = context;
  s.level = static_cast<int>(std::lower_bound(c.level_priority.begin(), c.level_priority.end(), priority) -
                             c.level_priority.begin());
  s.null_stream = null_stream;
  s.blocking = null_stream || blocking;
  s.mask = std::move(mask);
  s.mask_sms =
      s.mask.empty() ? _platform.sms : static_cast<int>(std::count(s.mask.begin(), s.mask.end(), true));
  if (_amd) {
    // The ACE skips an SE only when the mask enables none of its CUs (Dissertation §4.2.2.3).
    for (int se = 0; se < static_cast<int>(_se_cus.size()); ++se) {
      const auto& cus = _se_cus[static_cast<std::size_t>(se)];
      if (s.mask.empty() ||
          std::any_of(cus.begin(), cus.end(), [&](int cu) { return s.mask[static_cast<std::size_t>(cu)]; }))
        s.ses.push_back(se);
    }
  }
  _streams.push_back(std::move(s));
  const int id = static_cast<int>(_streams.size()) - 1;
  c.streams.push_back(id);
  return id;
}

int Simulator::new_op(Op op) {
  if (!_free_ops.empty()) {
    const int id = _free_ops.back();
    _free_ops.pop_back();
    _ops[static_cast<std::size_t>(id)] = std::move(op);
    return id;
  }
  _ops.push_back(std::move(op));
  return static_cast<int>(_ops.size()) - 1;
}

namespace {
constexpr const char* kPastMaxTime =
    "simulation stopped: simulated time would pass 10^9 s (the simulator's bound, which keeps every "
    "time sum within 64 bits); shorten the scenario's durations, iterations or max_time";
}  // namespace

void Simulator::schedule(Nanos at, EventKind kind, int a, int b) {
  if (at > kMaxSimulatedTime) throw Error(kPastMaxTime);
  // The event queue is monotone (sim/event_queue.hpp): nothing may happen before now.
  if (at < _now)
    throw Error(fmt::format("internal error: an event scheduled at {} ns, before the simulated time {} ns",
                            at.count(), _now.count()));
  _events.push(Event{at, _event_seq++, kind, a, b});
  _stats.peak_pending_events = std::max(_stats.peak_pending_events, _events.size());
}

bool Simulator::context_idle_before(int context, std::uint64_t seq) const {
  const auto& inc = _contexts[static_cast<std::size_t>(context)].incomplete;
  return inc.empty() || *inc.begin() >= seq;
}

// An op is issued when its host makes the call: it takes its place in the context's order then,
// so a synchronising call waits for it even while it is still on its way to the GPU (launch
// latency), and a NULL-stream op issued later waits for it. It enters its stream on arrival.
void Simulator::issue(int id) {
  Op& op = _ops[static_cast<std::size_t>(id)];
  op.seq = _op_seq++;
  Context& c = _contexts[static_cast<std::size_t>(op.context)];
  c.incomplete.insert(op.seq);
  if (_streams[static_cast<std::size_t>(op.stream)].blocking) c.incomplete_blocking.insert(op.seq);
}

void Simulator::enqueue(int id) {
  const Op& op = _ops[static_cast<std::size_t>(id)];
  Stream& s = _streams[static_cast<std::size_t>(op.stream)];
  if (s.null_stream) _contexts[static_cast<std::size_t>(op.context)].pending_null.push_back(id);
  s.ops.push_back(id);
  try_activate(op.stream);
}

void Simulator::arrive(int id) {
  issue(id);
  enqueue(id);
}

// Rule A: an op leaves the stream queue for execution when it is at the head of its stream.
// The legacy NULL stream adds: a NULL-stream op waits for every earlier op of the context's
// blocking streams, and every later op of a blocking stream waits for it (CUDA "implicit
// synchronization"; §3.5.1.3). A stream created cudaStreamNonBlocking (the examiner's, when a
// config gives stream_priority) takes no part in either.
void Simulator::try_activate(int stream) {
  Stream& s = _streams[static_cast<std::size_t>(stream)];
  if (s.ops.empty()) return;
  const int id = s.ops.front();
  Op& op = _ops[static_cast<std::size_t>(id)];
  if (op.activated) return;
  Context& c = _contexts[static_cast<std::size_t>(op.context)];
  if (s.null_stream) {
    if (*c.incomplete_blocking.begin() != op.seq) return;  // an earlier blocking op is incomplete
  } else if (s.blocking && !c.pending_null.empty() &&
             _ops[static_cast<std::size_t>(c.pending_null.front())].seq < op.seq) {
    return;  // an earlier NULL-stream op is still incomplete
  }
  op.activated = true;
  switch (op.kind) {
    case Op::Kind::kernel:
      if (_amd) {
        // Its stream's hardware queue now dispatches it, with the queue's CU mask: an AMD launch
        // has no mask of its own (scenario.cpp refuses a per-kernel sm_mask on an AMD GPU).
        if (!op.mask.empty()) throw Error("internal error: a per-launch SM mask on an AMD GPU");
        amd_activate({.id = id, .stream = op.stream, .shape = op.shape, .se = s.ses.front()});
      } else {
        c.primary[static_cast<std::size_t>(s.level)].push_back(id);
      }
      break;
    case Op::Kind::copy: {
      Engine& e = _engines[static_cast<std::size_t>(op.engine)];
      e.queue.push_back(id);
      if (!e.busy) {
        e.busy = true;
        schedule(_now + op.duration, EventKind::op_end, id);
      }
      break;
    }
    case Op::Kind::memset:
      schedule(_now + op.duration, EventKind::op_end, id);
      break;
  }
}

// Heads that wait (for a NULL-stream op) become ready together; they leave in launch order (op
// seq), not in the order their streams were created: nothing cuts ahead (rules A-C).
void Simulator::activate_heads(int context) {
  std::vector<std::pair<std::uint64_t, int>> heads;
  for (int s : _contexts[static_cast<std::size_t>(context)].streams) {
    const Stream& st = _streams[static_cast<std::size_t>(s)];
    if (st.ops.empty()) continue;
    const Op& op = _ops[static_cast<std::size_t>(st.ops.front())];
    if (!op.activated) heads.emplace_back(op.seq, s);
  }
  if (heads.size() > 1) std::sort(heads.begin(), heads.end());
  for (const auto& [seq, s] : heads) try_activate(s);
}

int Simulator::driver_stream(std::vector<bool> mask) {
  if (_contexts.empty()) create_context();
  if (_null_stream_of_context.size() < _contexts.size()) _null_stream_of_context.resize(_contexts.size(), -1);
  return create_stream(0, 0, std::move(mask), false);
}

void Simulator::driver_launch(int stream, const KernelSpec& kernel, int tag, int locality) {
  Op op;
  op.kind = Op::Kind::kernel;
  op.stream = stream;
  op.context = _streams[static_cast<std::size_t>(stream)].context;
  op.blocks = kernel.blocks;
  op.shape = kernel.shape;
  op.block_time = kernel.block_time;
  op.slowdown = kernel.slowdown;
  // A kernel without a declared working set shares one with its stream's other kernels.
  if (locality < 0) locality = kernel.locality;
  op.locality = locality >= 0 ? locality : (1 << 24) + stream;
  op.memory_fraction = kernel.memory_fraction;
  op.wcet_time = kernel.wcet_time;
  op.min_time = kernel.min_time;
  op.driver_tag = tag;
  ++_stats.kernels;
  arrive(new_op(std::move(op)));
}

void Simulator::driver_copy(int stream, int engine, Nanos duration, int tag) {
  if (engine < 0 || engine >= copy_engines())
    throw Error("driver_copy: no copy engine " + std::to_string(engine));
  Op op;
  op.kind = Op::Kind::copy;
  op.stream = stream;
  op.context = _streams[static_cast<std::size_t>(stream)].context;
  op.engine = engine;
  op.duration = duration;
  op.driver_tag = tag;
  arrive(new_op(std::move(op)));
}

// Rule D: an op leaves its stream when it is complete; the next op may then be activated.
void Simulator::complete(int id) {
  Op& op = _ops[static_cast<std::size_t>(id)];
  const int stream = op.stream, context = op.context, tag = op.driver_tag;
  Context& c = _contexts[static_cast<std::size_t>(context)];
  c.incomplete.erase(op.seq);
  Stream& s = _streams[static_cast<std::size_t>(stream)];
  if (s.blocking) c.incomplete_blocking.erase(op.seq);
  s.ops.pop_front();
  const bool was_null = s.null_stream;
  if (was_null) c.pending_null.erase(std::find(c.pending_null.begin(), c.pending_null.end(), id));
  _free_ops.push_back(id);
  if (was_null || !c.pending_null.empty()) {
    activate_heads(context);  // a NULL-stream op may be unblocked, or may unblock others
  } else {
    try_activate(stream);
  }
  wake_waiters(stream, context);
  if (tag >= 0) driver->kernel_done(*this, tag);
}

void Simulator::start_block(int id, int sm) {
  Op& op = _ops[static_cast<std::size_t>(id)];
  _device.occupy(sm, op.shape);
  _placement->placed(sm);
  ++op.next_block;
  // Optional interference model: slower when a block of another kernel is resident.
  const bool others = _kernels_running - (op.running > 0 ? 1 : 0) > 0;
  Nanos duration = op.block_time;
  if (others && op.slowdown != 1.0) {
    duration = scale_up(op.block_time, op.slowdown).value_or(kUnboundedTime);  // as PBS's ⌈C·s⌉
  }
  const Stream& stream = _streams[static_cast<std::size_t>(op.stream)];
  const int mask_sms = op.mask.empty() ? stream.mask_sms : op.mask_sms;
  const BlockStart block{duration,
                         sm,
                         op.locality,
                         std::min(op.blocks, mask_sms),
                         op.memory_fraction,
                         op.wcet_time,
                         op.seq * 1'000'003 + static_cast<std::uint64_t>(op.next_block),
                         static_cast<std::uint64_t>(op.seq),
                         op.min_time};
  // A block sharing memory bandwidth fluidly ends when the model says (run(): take_due, then
  // end_fluid): its record's end and its busy time are filled in then.
  const bool fluid = _perf.fluid(block);
  if (!fluid) duration = _perf.start(block);
  if (op.running++ == 0) ++_kernels_running;
  if (!fluid) _stats.busy_thread_time += static_cast<double>(duration.count()) * op.shape.threads;
  Context& ctx = _contexts[static_cast<std::size_t>(op.context)];
  ++ctx.running_blocks;
  if (ctx.sm_limit > 0 && ctx.resident[static_cast<std::size_t>(sm)]++ == 0) ++ctx.sms_in_use;
  std::int64_t record = -1;
  if (op.record >= 0 && !_scenario.omit_block_times) {
    auto& blocks = _records[static_cast<std::size_t>(op.record)].blocks;
    record = static_cast<std::int64_t>(blocks.size());
    blocks.push_back(BlockRecord{_now, fluid ? _now : _now + duration, sm});  // blocks start in index order
  }
  if (fluid) {
    // Its early wavefront steps (PerfParams::wave_release) come back from the model too.
    const int early = _amd && _perf.params().wave_release > 0 ? amd_wave_steps(op.shape) - 1 : 0;
    // The sequence numbers its wavefront steps and end would take as fixed-time events.
    const std::uint64_t seq = _event_seq;
    _event_seq += static_cast<std::uint64_t>(early) + 1;
    _perf.start_fluid(block, FluidBlock{id, sm, record, _now, -1, seq}, early);
  }
  if (++_stats.blocks > static_cast<std::uint64_t>(_scenario.sim.max_blocks)) {
    // Bounds time and memory: a 2^31-block grid would otherwise run (and record) every block.
    throw Error(fmt::format(
        "{}: simulation stopped after {} blocks at {} s: gpurt_sim.max_blocks ({}) bounds the blocks "
        "one run starts; raise it in the config's \"gpurt_sim\" section to simulate more (memory "
        "grows by 24 bytes a recorded block)",
        _scenario.source, _scenario.sim.max_blocks, static_cast<double>(_now.count()) / 1e9,
        _scenario.sim.max_blocks));
  }
  if (fluid) return;
  if (_amd && _perf.params().wave_release > 0) schedule_wave_steps(id, sm, duration);
  schedule(_now + duration, EventKind::block_end, id, sm);
}

void Simulator::finish_block(int id, int sm) {
  Op& op = _ops[static_cast<std::size_t>(id)];
  release_block(id, sm);
  _perf.end(sm, op.locality, op.memory_fraction);
  if (_blocked_op >= 0) {
    // A list of distinct SMs (a huge blocked grid would otherwise grow it by one entry a
    // block end and rescan it for every block placed: quadratic time).
    if (_freed_listed.empty()) _freed_listed.assign(static_cast<std::size_t>(_platform.sms), 0);
    if (!_freed_listed[static_cast<std::size_t>(sm)]) {
      _freed_listed[static_cast<std::size_t>(sm)] = 1;
      _freed_since_block.push_back(sm);
    }
  }
  Context& ctx = _contexts[static_cast<std::size_t>(op.context)];
  --ctx.running_blocks;
  if (ctx.sm_limit > 0 && --ctx.resident[static_cast<std::size_t>(sm)] == 0) --ctx.sms_in_use;
  if (--op.running == 0) --_kernels_running;
  if (++op.done_blocks == op.blocks) complete(id);
}

void Simulator::end_fluid(const FluidBlock& f) {
  ++_stats.events;
  if (f.step >= 0) {  // an early wavefront step: frees its part, as a wave_end event does
    if (release_wave_step(f.op, f.sm, f.step)) _dispatch_due = true;
    return;
  }
  _dispatch_due = true;
  const Op& op = _ops[static_cast<std::size_t>(f.op)];
  _stats.busy_thread_time += static_cast<double>((_now - f.started).count()) * op.shape.threads;
  if (f.record >= 0)
    _records[static_cast<std::size_t>(op.record)].blocks[static_cast<std::size_t>(f.record)].end = _now;
  finish_block(f.op, f.sm);
}

void Simulator::reschedule_fluid() {
  _perf.reschedule(_now);
  if (_perf.next_end() > kMaxSimulatedTime) throw Error(kPastMaxTime);
}

// Rules B1/B2/C: only the head of the primary queue dispatches, block by block, while some
// allowed SM can hold a block; it leaves the queue once all its blocks are dispatched. With
// stream priorities there is one queue per level; a lower level dispatches only while every
// higher level is empty (a blocked head blocks everything behind it: no cutting ahead).
void Simulator::dispatch_context(int context) {
  Context& c = _contexts[static_cast<std::size_t>(context)];
  for (auto& queue : c.primary) {
    while (!queue.empty()) {
      const int id = queue.front();
      Op& op = _ops[static_cast<std::size_t>(id)];
      const auto& mask = op.mask.empty() ? _streams[static_cast<std::size_t>(op.stream)].mask : op.mask;
      while (op.next_block < op.blocks) {
        int sm;
        if (c.sm_limit > 0) {
          // An MPS client at its SM limit may only add blocks to SMs it already occupies. Its
          // allowed set changes as its blocks come and go, so the fast path below is not used.
          if (c.sms_in_use >= c.sm_limit) {
            std::vector<bool> held(static_cast<std::size_t>(_platform.sms), false);
            for (std::size_t i = 0; i < held.size(); ++i)
              held[i] = c.resident[i] > 0 && (mask.empty() || mask[i]);
            sm = _placement->place(_device, op.shape, held);
          } else {
            sm = _placement->place(_device, op.shape, mask);
          }
          if (sm < 0) return;
          start_block(id, sm);
          continue;
        }
        if (_blocked_op == id) {
          if (_freed_since_block.empty()) return;
          sm = _placement->place_among(_device, op.shape, mask, _freed_since_block);
        } else {
          sm = _placement->place(_device, op.shape, mask);
        }
        if (sm < 0) {
          _blocked_op = id;
          for (int f : _freed_since_block) _freed_listed[static_cast<std::size_t>(f)] = 0;
          _freed_since_block.clear();
          return;
        }
        start_block(id, sm);
      }
      if (_blocked_op == id) _blocked_op = -1;
      queue.pop_front();
    }
  }
}

void Simulator::dispatch() {
  if (_amd) {
    dispatch_amd();
    return;
  }
  if (_contexts.size() == 1) {
    dispatch_context(0);
    return;
  }
  if (_mps) {  // MPS clients share the GPU at once: no time slicing, each within its SM limit
    for (std::size_t c = 0; c < _contexts.size(); ++c) dispatch_context(static_cast<int>(c));
    return;
  }
  update_slicing();
  if (_active >= 0 && !_draining && !_switching) dispatch_context(_active);
}

int Simulator::next_context_with_work(int after) const {
  const int n = static_cast<int>(_contexts.size());
  for (int i = 1; i <= n; ++i) {
    const int c = (after + i) % n;
    if (_contexts[static_cast<std::size_t>(c)].has_pending()) return c;
  }
  return -1;
}

// Time slicing (Dissertation §3.2): the active context keeps the GPU while it has work or no
// one else wants it; at the end of a slice, if another context has work, the active one stops
// dispatching, its running blocks drain (no preemption), and the next context with work gets
// a fresh slice after the context-switch gap.
void Simulator::update_slicing() {
  if (_switching) return;
  const auto active_idle = [&] {
    const Context& a = _contexts[static_cast<std::size_t>(_active)];
    return a.running_blocks == 0 && (!a.has_pending() || _draining);
  };
  if (_active < 0 || active_idle()) {
    const int next = next_context_with_work(_active < 0 ? -1 : _active);
    if (next < 0) {
      _draining = false;
      return;
    }
    if (next != _active || _draining) {
      const bool first = _active < 0;
      _active = next;
      _draining = false;
      ++_slice_id;
      _slice_armed = true;
      if (!first && _scenario.sim.context_switch.count() > 0) {
        _switching = true;
        schedule(_now + _scenario.sim.context_switch, EventKind::switch_done, _slice_id);
      } else {
        schedule(_now + _scenario.sim.time_slice, EventKind::slice_end, _slice_id);
      }
      return;
    }
  }
  // The active context got new work after its slice timer lapsed: start a fresh slice.
  if (!_slice_armed && !_draining && _contexts[static_cast<std::size_t>(_active)].has_pending()) {
    ++_slice_id;
    _slice_armed = true;
    schedule(_now + _scenario.sim.time_slice, EventKind::slice_end, _slice_id);
  }
}

void Simulator::handle(const Event& e) {
  ++_stats.events;
  if (e.kind != EventKind::wave_end) _dispatch_due = true;
  switch (e.kind) {
    case EventKind::block_end:
      finish_block(e.a, e.b);
      break;
    case EventKind::op_end: {
      Op& op = _ops[static_cast<std::size_t>(e.a)];
      if (op.kind == Op::Kind::copy) {
        Engine& eng = _engines[static_cast<std::size_t>(op.engine)];
        eng.queue.pop_front();
        eng.busy = !eng.queue.empty();
        if (eng.busy) {
          const int next = eng.queue.front();
          schedule(_now + _ops[static_cast<std::size_t>(next)].duration, EventKind::op_end, next);
        }
      }
      complete(e.a);
      break;
    }
    case EventKind::op_arrive: {
      --_streams[static_cast<std::size_t>(_ops[static_cast<std::size_t>(e.a)].stream)].in_flight;
      const int host = _ops[static_cast<std::size_t>(e.a)].host;
      enqueue(e.a);  // issued at the call
      if (host >= 0) host_launch_arrived(host);
      break;
    }
    case EventKind::host_wake:
      host_step(e.a);
      break;
    case EventKind::slice_end:
      if (e.a == _slice_id && _active >= 0) {
        _slice_armed = false;
        const int next = next_context_with_work(_active);
        const Context& a = _contexts[static_cast<std::size_t>(_active)];
        if (next >= 0 && next != _active) {
          _draining = true;  // someone else is waiting: stop dispatching, let blocks drain
        } else if (a.has_pending() || a.running_blocks > 0) {
          _slice_armed = true;  // no one else wants the GPU: the slice is renewed
          schedule(_now + _scenario.sim.time_slice, EventKind::slice_end, _slice_id);
        }
      }
      break;
    case EventKind::driver_wake:
      driver->wake(*this, e.a);
      break;
    case EventKind::dispatch_wake:  // dispatch() runs after every batch of events
      _ace_wake = Nanos{-1};
      break;
    case EventKind::wave_end:  // e.a: the op, e.b: SM * 4 + step (amd_dispatch.cpp)
      if (release_wave_step(e.a, e.b / 4, e.b % 4)) _dispatch_due = true;
      break;
    case EventKind::switch_done:
      if (e.a == _slice_id) {
        _switching = false;
        schedule(_now + _scenario.sim.time_slice, EventKind::slice_end, _slice_id);
      }
      break;
  }
}

SimResult Simulator::run() {
  for (std::size_t h = 0; h < _hosts.size(); ++h)
    schedule(Nanos{0}, EventKind::host_wake, static_cast<int>(h));
  if (driver) driver->start(*this);
  while (true) {
    // The next instant: the queue's earliest event or the earliest end of a block sharing memory
    // bandwidth fluidly (kept by the performance model, sim/perf_model.hpp).
    const Nanos fluid = _perf.next_end();
    if (_events.empty() && fluid.count() < 0) break;
    Nanos t = _events.empty() ? fluid : _events.top().time;
    if (fluid.count() >= 0 && fluid < t) t = fluid;
    if (_options.horizon.count() > 0 && t > _options.horizon) break;
    _now = t;
    _perf.advance(t);  // the fluid clocks, at the speeds since the previous instant
    // The instant's events and fluid ends, in sequence order (a fluid end holds the number its
    // fixed-time end event would have had).
    _fluid_done.clear();
    if (fluid == t) _perf.take_due(t, _fluid_done);
    std::size_t ended = 0;
    while (true) {
      const bool event = !_events.empty() && _events.top().time == t;
      if (ended < _fluid_done.size() && (!event || _fluid_done[ended].seq < _events.top().seq)) {
        end_fluid(_fluid_done[ended++]);
        continue;
      }
      if (!event) break;
      const Event e = _events.top();
      _events.pop();
      handle(e);
    }
    if (_dispatch_due) dispatch();
    _dispatch_due = false;
    if (_perf.fluid_dirty()) reschedule_fluid();
    _stats.end_time = t;
  }
  // A run cut at its horizon: the fluid blocks still running end, in their records and the busy
  // time, when the speeds of its last instant would end them (a fixed-time block's are set at its
  // start).
  std::vector<std::pair<FluidBlock, Nanos>> running;
  _perf.project_running(_now, running);
  for (const auto& [f, end] : running) {
    if (f.step >= 0) continue;
    const Op& op = _ops[static_cast<std::size_t>(f.op)];
    _stats.busy_thread_time += static_cast<double>((end - f.started).count()) * op.shape.threads;
    if (f.record >= 0)
      _records[static_cast<std::size_t>(op.record)].blocks[static_cast<std::size_t>(f.record)].end = end;
  }
  // Work left in a queue with no event pending can never run.
  if (_options.horizon.count() == 0) {
    for (const Stream& s : _streams) {
      if (!s.ops.empty()) {
        throw Error(
            "simulation stalled: a kernel can never be dispatched (its block fits no SM of its mask)");
      }
    }
  }
  return collect();
}

SimStats run_driven(const Platform& platform, SimDriver& driver, std::uint64_t seed) {
  Scenario none;
  // The drivers' own limits (jobs, horizon) bound their work; gpurt_sim.max_blocks is for configs.
  none.sim.max_blocks = std::numeric_limits<std::int64_t>::max();
  SimulateOptions options;  // no horizon: every op the driver issues runs to completion
  options.record = false;
  options.model_seed = seed - 1;  // wraps for seed 0: any value is a seed
  Simulator sim(none, platform, options);
  sim.driver = &driver;
  return sim.run().stats;
}

}  // namespace gpurt::sim
