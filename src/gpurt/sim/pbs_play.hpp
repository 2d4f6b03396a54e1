// Playing a PBS schedule table in the GPU simulator (PBS seed §4.1): each job of a frame is a
// kernel launched in its own stream at the frame's start, in the table's submission order, on
// the simulated device (sim::simulate, round-robin block placement). Checks that every job
// starts at once (the batch is eligible on the simulated GPU as it stands), that frames last
// what the model says, and that no deadline is missed.
#pragma once

#include <string>
#include <vector>

#include "gpurt/analysis/pbs.hpp"

namespace gpurt {

/// §4.1's two dispatcher strategies.
enum class PbsPlayStrategy {
  time_triggered,  ///< a timer releases each frame at its start in the table
  when_done,       ///< each frame starts when the previous one ends (and its jobs have arrived)
};

struct PbsPlayOptions {
  PbsPlayStrategy strategy = PbsPlayStrategy::time_triggered;
  /// Each block runs this fraction of its modelled time (1: the WCET-based model; < 1: jobs
  /// finish early, which when_done reclaims).
  double execution_fraction = 1.0;
};

struct PbsPlayedFrame {
  Nanos start{0};               ///< when the frame's kernels were launched
  Nanos end{0};                 ///< when its last block ended in the simulator
  Nanos model_end{0};           ///< start + the model's batch completion × execution_fraction
  bool started_at_once = true;  ///< every block started at `start`
};

struct PbsPlayResult {
  std::vector<PbsPlayedFrame> frames;
  bool deadlines_met = true;
  bool matches_model = true;  ///< every frame started at once and ended at model_end
  std::string first_problem;  ///< empty when both hold
};

/// Simulates `table` (a schedule of `system`). Throws gpurt::Error on a table naming unknown
/// tasks or an execution_fraction outside (0, 1].
PbsPlayResult play_pbs_table(const PbsSystem& system, const std::vector<PbsFrame>& table,
                             const PbsPlayOptions& options = {});

}  // namespace gpurt
