// The simulator's performance model (DESIGN.md "Performance model"): how long a block runs,
// given what its SM ran and holds and what the device is doing. The engine asks it once per
// block, at the block's start, and tells it when the block ends; a block whose memory part shares
// bandwidth fluidly (PerfParams::memory_sharing) has no end known at its start: the model keeps
// it and tells the engine when each such block ends. No model arithmetic lives in the engine or
// the drivers. Parameters: model/perf_params.hpp; docs/simulator.md
// "Performance model" for the mechanisms and their approximations.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "gpurt/core/rng.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/perf_params.hpp"

namespace gpurt::sim {

/// What the model needs to know about the block that starts.
struct BlockStart {
  Nanos isolated{0};           ///< the block's time alone on an idle device (after `slowdown`)
  int sm = 0;                  ///< where it starts
  int locality = 0;            ///< its working set (a task, an instance): blocks of one share caches
  int span = 1;                ///< SMs its kernel may spread over: min(blocks, SMs of its mask)
  double memory_fraction = 0;  ///< the memory-bound part of its time, 0..1
  /// `isolated` is a worst case (a WCET): the block runs isolated · realised / worst factor, and
  /// memory contention is taken as included in it.
  bool wcet = false;
  /// Identifies the block (its kernel's arrival sequence and its index): its random draw is a
  /// function of the seed and this key alone, so a block draws the same value whatever the
  /// other parameters or the order of events (common random numbers; a smooth calibration).
  std::uint64_t key = 0;
  /// Identifies the block's kernel launch (its arrival sequence): the draw of `kernel_jitter`,
  /// shared by every block of the launch, is a function of the seed and this alone.
  std::uint64_t kernel = 0;
  /// With `wcet`: the shortest the block may run (the task model's best case), at most `isolated`.
  Nanos floor{0};
};

/// What the engine needs back when a fluid block ends (it is opaque to the model).
struct FluidBlock {
  int op = 0;
  int sm = 0;
  std::int64_t record = -1;  ///< index of its BlockRecord (-1: not recorded)
  Nanos started{0};
  /// -1: the block's end; k >= 0: its early wavefront step k (PerfParams::wave_release).
  int step = -1;
  /// The engine's event sequence number this end holds (reserved at the block's start, as a
  /// fixed-time block's end event takes one then): ends and events of one instant are handled in
  /// this order, so a block ends in the same order among them under either sharing.
  std::uint64_t seq = 0;
};

class PerfModel {
 public:
  /// `worst_case`: every random draw takes its largest value (a profiler that must see every
  /// slowdown an experiment on the same model can see; FFT/SMLP §III-C's WCETs).
  PerfModel(const PerfParams& params, int sms, std::uint64_t seed, bool worst_case);

  bool ideal() const noexcept { return _ideal; }
  /// The parameters in force: the platform's, or all zero under the ideal model. The engine's
  /// dispatch rules (block_dispatch_ns, wave_release) read them here, never from the platform,
  /// so every way of asking for the ideal model turns them off too.
  const PerfParams& params() const noexcept { return _p; }
  /// Whether `block` shares bandwidth fluidly: its end is not known at its start.
  bool fluid(const BlockStart& block) const noexcept {
    return _fluid && block.memory_fraction > 0 && !block.wcet;
  }
  /// The block's duration (>= 1 ns); records it as resident on its SM. Not for a fluid block.
  Nanos start(const BlockStart& block);
  /// Starts a fluid block now (the time of the latest advance); `payload` comes back at its end,
  /// with sequence number payload.seq + early_steps. With `early_steps` > 0 (the AMD wavefront
  /// release) the payload also comes back with step k = 0 .. early_steps - 1 (sequence number
  /// payload.seq + k) when the block has done its work less wave_release · work · (early_steps -
  /// k) / early_steps (truncated to the nanosecond): the steps the fixed-time path schedules at
  /// its start (Simulator::schedule_wave_steps), at the same points of its work.
  void start_fluid(const BlockStart& block, FluidBlock payload, int early_steps = 0);
  /// The block (same locality, SM and memory fraction as at its start) has ended.
  void end(int sm, int locality, double memory_fraction);

  // Fluid sharing: one clock per memory fraction, each advancing at its blocks' common speed
  // (isolated nanoseconds done per nanosecond); a block ends when its clock has advanced by its
  // work since its start. The engine brings the clocks to each instant before its events
  // (advance), takes the blocks due then (take_due), and after the instant's starts and ends sets
  // the speeds and next ends anew (reschedule). The next ends are kept here, one per group, not
  // in the engine's event queue, so a moved end leaves no stale event behind.
  /// Advances the fluid clocks to `now` at the speeds of the previous instant (a clock past 2^40
  /// ns is moved back to 0 with its blocks' finishes, which keeps its rounding below a
  /// nanosecond).
  void advance(Nanos now);
  /// Whether a fluid block started, a block's end changed the demand or a fluid block was taken
  /// since the last reschedule.
  bool fluid_dirty() const noexcept { return _fluid_dirty; }
  /// Sets every group's speed from the demand now and its next end (rounded up to the
  /// nanosecond, at least 1 ns after `now`).
  void reschedule(Nanos now);
  /// The earliest next end of a fluid block (or wavefront step); -1 when none runs.
  Nanos next_end() const noexcept { return _next_end; }
  /// Appends the fluid blocks (and wavefront steps) due at `now`, the time next_end() gave (of
  /// each group due then, its earliest and every other its clock has reached, within the clock's
  /// rounding), in the order of their sequence numbers.
  void take_due(Nanos now, std::vector<FluidBlock>& out);
  /// When each fluid block still running would end at the present speeds (a run cut at a horizon).
  void project_running(Nanos now, std::vector<std::pair<FluidBlock, Nanos>>& out) const;

 private:
  struct Running {
    double finish = 0;  ///< its group's clock at its end
    FluidBlock payload;
  };
  struct Group {
    double memory_fraction = 0;
    double clock = 0;  ///< isolated nanoseconds a block of this group has done since time 0
    double speed = 1;
    std::vector<Running> heap;  ///< min-heap by (finish, payload.seq)
    Nanos next_end{-1};         ///< of its earliest block (-1: none runs)
  };
  /// The block's time factor from every mechanism but memory bandwidth (and the bookkeeping of
  /// its SM's residents).
  double factor_before_bandwidth(const BlockStart& block);
  double speed(double memory_fraction) const noexcept;
  Nanos remaining(const Group& g, const Running& r) const noexcept;

  bool _fluid_dirty = false;
  bool _fluid = false;
  std::vector<Group> _groups;
  Nanos _clock_time{0};
  Nanos _next_end{-1};

  PerfParams _p;
  bool _ideal;
  bool _worst;
  std::uint64_t _seed;
  std::vector<int> _last;  ///< per SM: locality of the last block started there (-1: none)
  /// per SM: (locality, resident blocks) pairs; a handful at most
  std::vector<std::vector<std::pair<int, int>>> _resident;
  double _demand = 0;  ///< summed memory fractions of resident blocks
};

}  // namespace gpurt::sim
