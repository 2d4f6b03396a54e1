// Where on the GPU a k-unit profile runs (FFT/SMLP §III-C, "non-uniformity in SMs": the same
// allocation size on other units may run at another speed, so a WCET meant for whichever units
// the SMLP grants should be the worst over several unit sets). Shared by the simulated profiler
// (exp/fft_profile) and the GPU one (runtime/fft_job).
#pragma once

#include <vector>

#include "gpurt/core/time.hpp"

namespace gpurt {

/// How much the choice of units changed one size's profile at one k: the worst execution
/// time on the worst and on the best of the unit sets profiled (equal with one placement).
struct PlacementSpread {
  int log2_size = 0;
  int units = 0;       ///< k
  int placements = 0;  ///< unit sets profiled at this k
  Nanos best{0};       ///< the smallest per-set worst
  Nanos worst{0};      ///< the largest per-set worst: L(i,k)
};

/// The first unit of each set of k contiguous units (out of h) that `placements` profiles,
/// ascending and distinct, the first always 0: 1 gives units 0..k-1 only; n > 1 gives n sets
/// spread evenly from the first units to the last (all h-k+1 where fewer exist); 0 gives every
/// set. Throws gpurt::Error unless 1 <= k <= h and placements >= 0.
std::vector<int> placement_offsets(int h, int k, int placements);

}  // namespace gpurt
