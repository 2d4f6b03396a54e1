// The simulator's performance model (DESIGN.md "Performance model"): how long a block runs,
// given what its SM ran and holds and what the device is doing. The engine asks it once per
// block, at the block's start, and tells it when the block ends; no model arithmetic lives in
// the engine or the drivers. Parameters: model/perf_params.hpp; docs/simulator.md
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
  /// The block's duration (>= 1 ns); records it as resident on its SM.
  Nanos start(const BlockStart& block);
  /// The block (same locality, SM and memory fraction as at its start) has ended.
  void end(int sm, int locality, double memory_fraction);

 private:
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
