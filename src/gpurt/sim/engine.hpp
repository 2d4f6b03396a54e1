// The simulator's state machine, shared by engine.cpp (the GPU: queues, dispatch, copy
// engines, time slicing) and host.cpp (the CPU threads running each instance's program).
#pragma once

#include <deque>
#include <memory>
#include <set>
#include <vector>

#include "gpurt/model/occupancy.hpp"
#include "gpurt/sim/event_queue.hpp"
#include "gpurt/sim/perf_model.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt::sim {

/// No event may be scheduled later than this (10^9 s, about 31.7 years of simulated time):
/// every duration added to the clock is far smaller (config times are at most
/// kMaxScenarioTime), so no time sum overflows. A run that would pass it stops with an error.
inline constexpr Nanos kMaxSimulatedTime{1'000'000'000'000'000'000};

enum class EventKind : std::uint8_t {
  block_end,
  op_end,
  op_arrive,
  host_wake,
  slice_end,
  switch_done,
  driver_wake,
  dispatch_wake,  ///< an AMD ACE may hand out its next block (PerfParams::block_dispatch_ns)
  wave_end        ///< AMD: some wavefronts of a block end early (PerfParams::wave_release)
};

struct Event {
  Nanos time;
  std::uint64_t seq;
  EventKind kind;
  int a = 0, b = 0;
};

/// A stream operation: a kernel, a copy or a memset.
struct Op {
  enum class Kind : std::uint8_t { kernel, copy, memset } kind = Kind::kernel;
  int stream = 0, context = 0;
  std::uint64_t seq = 0;   ///< issue order in the context (NULL-stream semantics, syncs)
  bool activated = false;  ///< reached the head of its stream (Rule A)
  // kernel
  int blocks = 0, next_block = 0, done_blocks = 0, running = 0;
  BlockShape shape;
  Nanos block_time{0};
  double slowdown = 1.0;
  int locality = 0;            ///< performance model: working set (KernelSpec::locality)
  double memory_fraction = 0;  ///< performance model: memory-bound part of a block
  bool wcet_time = false;      ///< performance model: block_time is a worst case
  Nanos min_time{0};           ///< ... shortened never below this (KernelSpec::min_time)
  int record = -1;             ///< index into Simulator::_records, -1 when not recording
  std::vector<bool> mask;      ///< the launch's own SM mask (KernelSpec::sm_mask); empty: its stream's
  int mask_sms = 0;            ///< SMs `mask` allows (when not empty)
  int driver_tag = -1;         ///< launched by the SimDriver: reported to it on completion
  int host = -1;               ///< the host that launched it with launch latency (-1: none)
  // AMD dispatch (amd_dispatch.cpp; the state its every pass reads is in AmdSlot)
  int se_turn = 0;  ///< index into Stream::ses of the SE that gets the next block
  // copy / memset
  Nanos duration{0};
  int engine = 0;
};

/// AMD dispatch: a kernel with blocks left to hand out, as the workload managers' every pass
/// reads it, in one small contiguous record (the pass visits every such kernel per placed block).
struct AmdSlot {
  int id = 0;        ///< the kernel's op
  int stream = 0;    ///< its stream (the CU mask)
  BlockShape shape;  ///< its block's (serving order; whether a freed CU may take it)
  int se = 0;        ///< the SE its next block goes to (Stream::ses[Op::se_turn])
  /// The SE its next block last did not fit in, and that SE's release count then: until the SE
  /// frees something, resources there only shrink, so the block still does not fit.
  int unfit_se = -1;
  std::uint64_t unfit_at = 0;
  std::uint64_t last_served = 0;  ///< workload-manager clock of this kernel's latest block
  Nanos ace_ready{0};             ///< its ACE may hand out the next block from then on
  /// PerfParams::cu_lock_threshold: failed placement attempts of the next block, and the CU
  /// locked for it (-1: none).
  std::int64_t unfit_tries = 0;
  int locked_cu = -1;
};

struct Stream {
  int context = 0;
  int level = 0;  ///< priority level index in its context (0 = highest)
  bool null_stream = false;
  std::vector<bool> mask;  ///< allowed SMs; empty = all
  int mask_sms = 0;        ///< SMs the mask allows
  std::deque<int> ops;     ///< Rule A/D: FIFO of op ids, head first
  std::vector<int> ses;    ///< AMD: shader engines with at least one CU of the mask, ascending
  int in_flight = 0;       ///< launches issued but not yet arrived (launch_latency)
  /// Synchronises with the legacy NULL stream (cudaStreamCreate); false for a stream created
  /// cudaStreamNonBlocking, which neither waits for a NULL-stream op nor holds one back.
  bool blocking = true;
};

struct Context {
  std::vector<std::deque<int>> primary;         ///< primary queue per priority level (Rule B1, C)
  std::vector<int> level_priority;              ///< CUDA priority of each level, ascending
  std::set<std::uint64_t> incomplete;           ///< seqs of ops not yet complete
  std::set<std::uint64_t> incomplete_blocking;  ///< those of blocking streams (a NULL op waits for them)
  std::deque<int> pending_null;                 ///< NULL-stream ops not yet complete, in order
  std::vector<int> streams;
  int running_blocks = 0;
  int cpu_barrier = 0;  ///< hosts inside an implicitly synchronising call
  /// Hosts of this context that may wait for its work (a stream, the context, an op, the CPU
  /// barrier), ascending: wake_waiters looks at these, not at every host of the scenario (a
  /// PBS table of 100,000 jobs is as many hosts). May hold hosts that stopped waiting.
  std::set<int> waiters;
  /// MPS (mps_thread_percentage): the most SMs this client's blocks may occupy at once (0: no
  /// limit), with its resident blocks per SM and the SMs holding at least one.
  int sm_limit = 0;
  std::vector<int> resident;
  int sms_in_use = 0;
  bool has_pending() const;
};

struct Engine {
  std::deque<int> queue;
  bool busy = false;
};

/// AMD: the steps in which a block of `shape` frees its wavefronts under wave_release (1 to 4, one
/// per SIMD its wavefronts fill; amd_dispatch.cpp).
int amd_wave_steps(const BlockShape& shape);

struct Host;  // host.cpp
class Simulator;

/// Drives the GPU from outside instead of (or beside) examiner host programs: the arbitration
/// layer (system.cpp) releases jobs, runs locks and launches kernels through it.
class SimDriver {
 public:
  virtual ~SimDriver() = default;
  virtual void start(Simulator& sim) = 0;          ///< at time 0, before any event
  virtual void wake(Simulator& sim, int tag) = 0;  ///< a timer set with driver_timer
  /// A driver_launch kernel or a driver_copy copy completed.
  virtual void kernel_done(Simulator& sim, int tag) = 0;
};

class Simulator {
 public:
  Simulator(const Scenario& scenario, const Platform& platform, const SimulateOptions& options);
  ~Simulator();
  SimResult run();

  // --- GPU side (engine.cpp) ---
  int create_context();
  int create_stream(int context, int priority, std::vector<bool> mask, bool null_stream,
                    bool blocking = true);
  /// Puts a new op at the tail of its stream now (the launch has arrived).
  void arrive(int op);   ///< issue + enqueue at once (no launch latency)
  void issue(int op);    ///< the op takes its sequence number (the host's call)
  void enqueue(int op);  ///< the op enters its stream (after any launch latency)
  int new_op(Op op);
  void schedule(Nanos at, EventKind kind, int a = 0, int b = 0);
  Nanos now() const noexcept { return _now; }
  /// Every op of `context` that arrived before sequence `seq` is complete.
  bool context_idle_before(int context, std::uint64_t seq) const;
  std::uint64_t next_seq() const noexcept { return _op_seq; }
  Context& context(int c) { return _contexts[static_cast<std::size_t>(c)]; }

  // --- external driver (SimDriver) ---
  SimDriver* driver = nullptr;
  /// A new stream (its own context-0 queue) restricted to `mask` (empty: all SMs).
  int driver_stream(std::vector<bool> mask);
  /// Launches `kernel` into `stream` now; driver->kernel_done(tag) when it completes.
  /// `locality` >= 0 overrides kernel.locality (the working set, for the performance model).
  void driver_launch(int stream, const KernelSpec& kernel, int tag, int locality = -1);
  /// Puts a copy lasting `duration` into `stream` now, for copy engine `engine` (0-based, below
  /// the platform's copy_engines); driver->kernel_done(tag) when it completes. Copies on one
  /// engine run one at a time, in arrival order, without preemption.
  void driver_copy(int stream, int engine, Nanos duration, int tag);
  int copy_engines() const noexcept { return static_cast<int>(_engines.size()); }
  void driver_timer(Nanos at, int tag) { schedule(at, EventKind::driver_wake, tag); }

  // --- host side (host.cpp) ---
  void host_step(int host);
  void host_step_body(int host);
  void wake_waiters(int stream, int context);
  /// A launch of `host` issued with launch latency has arrived in its stream.
  void host_launch_arrived(int host);
  /// cudaStreamSynchronize of `h` may return: its own launches have arrived, and every op its
  /// stream held at the call (or when its last launch arrived) is complete. Only those: on the
  /// shared NULL stream, work other threads launch later is not waited for.
  bool stream_synced(const Host& h) const;
  SimResult collect();

  const Scenario& _scenario;
  const Platform& _platform;
  SimulateOptions _options;
  Device _device;
  std::unique_ptr<PlacementPolicy> _placement;
  std::vector<Op> _ops;
  std::vector<int> _free_ops;
  std::vector<Stream> _streams;
  std::vector<Context> _contexts;
  std::vector<Engine> _engines;
  std::vector<std::unique_ptr<Host>> _hosts;
  std::vector<int> _null_stream_of_context;  ///< legacy default stream per context (-1: none yet)
  int _alive_hosts = 0, _barrier_arrived = 0;
  std::int64_t _iterations = 0;  ///< iterations started by all hosts (gpurt_sim.max_kernels)
  /// MPS: contexts are MPS clients that share the GPU without time slicing (host.cpp sets it).
  bool _mps = false;
  std::deque<KernelRecord> _records;
  EventQueue<Event> _events;
  std::uint64_t _event_seq = 0, _op_seq = 0;
  Nanos _now{0};
  SimStats _stats;
  PerfModel _perf;

 private:
  void handle(const Event& e);
  void activate_heads(int context);
  void try_activate(int stream);
  void complete(int op);
  void dispatch();
  void dispatch_context(int context);
  void start_block(int op, int sm);
  /// A block of `op` on `sm` has ended: frees its resources, completes its kernel after its last.
  void finish_block(int op, int sm);
  /// A block sharing memory bandwidth fluidly (or one of its wavefront steps) ends now.
  void end_fluid(const FluidBlock& f);
  /// PerfModel::reschedule: the fluid blocks' ends after this instant's starts and ends.
  void reschedule_fluid();
  std::vector<FluidBlock> _fluid_done;  ///< the fluid ends due at the instant run() handles
  void update_slicing();
  // AMD GCN dispatch (Dissertation §4.2.2; amd_dispatch.cpp): hardware queues with CU masks,
  // ACEs dealing blocks to SEs in block order, workload managers that let blocks cut ahead.
  void init_amd();
  void dispatch_amd();
  int place_in_se(int op, int se, const BlockShape& shape, const std::vector<bool>& mask);
  /// place_in_se for a kernel whose block did not fit in `se` when its release count was
  /// `since`: only the CUs freed since then can hold it now (every other lost resources only).
  int place_in_se_since(int op, int se, const BlockShape& shape, const std::vector<bool>& mask,
                        std::uint64_t since);
  /// PerfParams::cu_lock_threshold: locks for `slot`'s kernel the enabled, unlocked CU of its SE
  /// with the most free threads (the first in the SE's round-robin order on ties).
  void lock_cu(AmdSlot& slot, const std::vector<bool>& mask);
  /// Whether `op` may place a block on `cu`: no other kernel's block holds a lock on it.
  bool lock_allows(int op, int cu) const noexcept {
    const int owner = _cu_lock[static_cast<std::size_t>(cu)];
    return owner < 0 || owner == op;
  }
  void note_release(int cu);
  /// Adds a kernel to _amd_active (its hardware queue now dispatches it).
  void amd_activate(const AmdSlot& slot);
  /// Files slot `k` as asleep when its next block did not fit in its SE and nothing there has
  /// been freed since (AmdSlot::unfit_se / unfit_at), else as awake.
  void amd_file(std::size_t k);
  /// Files slot `k` as asleep in its SE (AmdSlot::se).
  void amd_sleep(std::size_t k) noexcept {
    const std::uint64_t bit = std::uint64_t{1} << (k % 64);
    _amd_awake[k / 64] &= ~bit;
    _se_sleepers[static_cast<std::size_t>(_amd_active[k].se) * _amd_words + k / 64] |= bit;
  }
  /// Refiles every slot (after an erase shifted their positions).
  void amd_refile();
  /// PerfParams::wave_release: schedules the early steps of a block started now lasting
  /// `duration`; release_wave_step frees one of them, release_block what is left at its end.
  void schedule_wave_steps(int op, int sm, Nanos duration);
  /// True when a waiting block could now fit on `sm` (else the batch needs no dispatch).
  bool release_wave_step(int op, int sm, int step);
  void release_block(int op, int sm);
  int next_context_with_work(int after) const;

  // Fast path while the head kernel waits for space: only SMs freed since the failed full
  // scan can hold its next block (no other SM gained resources).
  int _blocked_op = -1;
  std::vector<int> _freed_since_block;
  /// _freed_since_block as flags by SM: each SM is listed once, so a placement among the freed SMs
  /// costs at most one look at each SM however many blocks ended while the head was blocked.
  std::vector<char> _freed_listed;
  int _kernels_running = 0;

  // Time slicing among contexts (Dissertation §3.2): one context's blocks at a time.
  int _active = -1;
  bool _draining = false, _switching = false, _slice_armed = false;
  int _slice_id = 0;

  // AMD dispatch state: selected by the platform (vendor amd with shader engines).
  bool _amd = false;
  std::vector<AmdSlot> _amd_active;  ///< kernels with blocks left to dispatch, by arrival
  /// Positions in _amd_active as bit sets: the slots a dispatch pass must look at (awake), and per
  /// SE the slots asleep there: the block did not fit and the SE has freed nothing since, so a
  /// pass would skip the slot without a look. A release in an SE wakes its sleepers.
  std::vector<std::uint64_t> _amd_awake;
  std::vector<std::uint64_t> _se_sleepers;  ///< SE s's set at [s * _amd_words, (s + 1) * _amd_words)
  std::size_t _amd_words = 0;               ///< 64-bit words per set
  /// Each resource's least need among the active kernels' blocks: a CU this shape does not fit
  /// fits none of them (release_wave_step's quick answer).
  BlockShape _amd_least;
  std::vector<std::vector<int>> _se_cus;    ///< CUs (flat HIP bit order) of each SE
  std::vector<std::size_t> _cu_index;       ///< per CU: its index in _se_cus of its SE
  std::vector<std::size_t> _se_cursor;      ///< per SE: where the next CU search starts
  std::vector<std::uint64_t> _se_releases;  ///< per SE: how many times a CU there freed resources
  /// per SE: the CUs of its latest kReleaseLog releases, release r at [r % kReleaseLog]
  static constexpr std::uint64_t kReleaseLog = 16;
  std::vector<std::array<int, kReleaseLog>> _se_release_log;
  std::vector<int> _cu_lock;       ///< per CU: the op it is locked for (-1: none)
  std::uint64_t _serve_clock = 0;  ///< workload managers' service order
  Nanos _ace_wake{-1};             ///< time of the pending dispatch_wake event (-1: none)
  /// The batch of events at this instant may let a block start. Only a wave_end that frees
  /// nothing a waiting block fits in leaves it unset: dispatch would place nothing then (the
  /// previous batch's dispatch placed all it could, and only that CU changed).
  bool _dispatch_due = false;
};

/// Runs a GPU driven only by `driver` (no examiner host programs) on `platform` until every op
/// is done, without per-block records; returns the GPU's counters. `seed` (the command's
/// --seed) seeds the performance model's draws (jitter); seed 1, every command's default, is
/// model seed 0, the draws these commands made before they passed their seed on.
SimStats run_driven(const Platform& platform, SimDriver& driver, std::uint64_t seed);

}  // namespace gpurt::sim
