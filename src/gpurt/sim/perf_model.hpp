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
  /// Starts a fluid block now (the time of the latest advance); `payload` comes back at its end.
  void start_fluid(const BlockStart& block, const FluidBlock& payload);
  /// The block (same locality, SM and memory fraction as at its start) has ended.
  void end(int sm, int locality, double memory_fraction);

  // Fluid sharing: one clock per memory fraction, each advancing at its blocks' common speed
  // (isolated nanoseconds done per nanosecond); a block ends when its clock has advanced by its
  // work since its start. The engine brings the clocks to each instant before its events
  // (advance), and after them asks for the groups whose next end moved (reschedule).
  /// Advances the fluid clocks to `now` at the speeds of the previous instant.
  void advance(Nanos now);
  /// Whether some fluid block started or a block's end changed the demand since the last reschedule.
  bool fluid_dirty() const noexcept { return _fluid_dirty; }
  /// Sets every group's speed from the demand now and calls `schedule(group, time)` for each
  /// group whose next end moved; `schedule` returns the event's sequence number.
  template <class F>
  void reschedule(Nanos now, F&& schedule);
  /// Whether `seq` is the pending end event of `group` (else a moved one, to ignore).
  bool fluid_event_current(int group, std::uint64_t seq) const noexcept {
    return _groups[static_cast<std::size_t>(group)].event_seq == seq;
  }
  /// The blocks of `group` whose work is done at `now` (at least the earliest), in end order.
  void take_done(int group, std::vector<FluidBlock>& out);
  /// When each fluid block still running would end at the present speeds (a run cut at a horizon).
  void project_running(Nanos now, std::vector<std::pair<FluidBlock, Nanos>>& out) const;

 private:
  struct Running {
    double finish = 0;        ///< its group's clock at its end
    std::uint64_t order = 0;  ///< start order: ties end in it
    FluidBlock payload;
  };
  struct Group {
    double memory_fraction = 0;
    double clock = 0;  ///< isolated nanoseconds a block of this group has done since time 0
    double speed = 1;
    std::vector<Running> heap;  ///< min-heap by (finish, order)
    std::uint64_t event_seq = 0;
    Nanos event_time{-1};           ///< of the pending end event (-1: none)
    std::uint64_t event_order = 0;  ///< the block it ends
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
  std::uint64_t _fluid_order = 0;

  PerfParams _p;
  bool _ideal;
  bool _worst;
  std::uint64_t _seed;
  std::vector<int> _last;  ///< per SM: locality of the last block started there (-1: none)
  /// per SM: (locality, resident blocks) pairs; a handful at most
  std::vector<std::vector<std::pair<int, int>>> _resident;
  double _demand = 0;  ///< summed memory fractions of resident blocks
};

template <class F>
void PerfModel::reschedule(Nanos now, F&& schedule) {
  _fluid_dirty = false;
  for (std::size_t i = 0; i < _groups.size(); ++i) {
    Group& g = _groups[i];
    g.speed = speed(g.memory_fraction);
    if (g.heap.empty()) {
      g.event_time = Nanos{-1};
      continue;
    }
    const Running& next = g.heap.front();
    const Nanos at = now + remaining(g, next);
    if (at == g.event_time && next.order == g.event_order) continue;  // its pending event stands
    g.event_time = at;
    g.event_order = next.order;
    g.event_seq = schedule(static_cast<int>(i), at);
  }
}

}  // namespace gpurt::sim
