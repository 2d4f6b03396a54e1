// The GPU simulator's entry point: a scenario (examiner config) on a platform in, the trace of
// what the GPU does, block by block, out. Deterministic; exact integer nanoseconds; event-driven.
#pragma once

#include <cstdint>

#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

struct SimulateOptions {
  bool record = true;  ///< keep per-kernel and per-block records (off: counters only)
  Nanos horizon{0};    ///< stop at this simulated time (0: when every instance is done)
  /// Performance model: the platform's unless `ideal_model` (or the scenario's gpurt_sim.model
  /// says "ideal"); `worst_case_model` takes every random draw at its largest value.
  bool ideal_model = false;
  bool worst_case_model = false;
  std::uint64_t model_seed = 0;  ///< mixed with the scenario's gpurt_sim.seed
};

struct SimStats {
  std::uint64_t blocks = 0;   ///< blocks dispatched (each is a start and an end event)
  std::uint64_t kernels = 0;  ///< kernels launched
  std::uint64_t events = 0;   ///< events processed
  std::size_t peak_pending_events = 0;
  Nanos end_time{0};  ///< when the last event happened
  /// Σ over started blocks of (its run time × its threads), in thread·ns: the GPU's occupancy,
  /// so busy_thread_time / (sms · max_threads · end_time) is its thread utilisation.
  double busy_thread_time = 0;
};

struct SimResult {
  Trace trace;
  SimStats stats;
};

/// Runs the scenario. Throws gpurt::Error if the scenario can never finish (a kernel whose
/// block fits no SM of its mask; parse_scenario rejects those for files).
SimResult simulate(const Scenario& scenario, const Platform& platform, const SimulateOptions& options = {});

}  // namespace gpurt
