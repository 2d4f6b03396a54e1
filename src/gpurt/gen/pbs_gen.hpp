// The PBS seed's §6.1 task-set generator: n kernel tasks on a GPU of 8 SMs × 1024 threads ×
// 32 blocks, UUniFast-Discard utilisations, periods from a fixed list, occupancy proportional
// to utilisation, and slowdown factors drawn from one of the three interference scenarios.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "gpurt/core/rng.hpp"
#include "gpurt/model/pbs_task.hpp"

namespace gpurt {

/// The seed's three interference scenarios (Figure 4a/b/c): slowdown factors uniform in
/// [1, 1.4], [1.7, 1.9] or [1.1, 1.9].
enum class PbsSlowdown { small, large, mixed };
std::string_view to_string(PbsSlowdown scenario);
std::optional<PbsSlowdown> parse_pbs_slowdown(std::string_view text);

struct PbsGenOptions {
  int tasks = 5;             ///< n
  double utilization = 1.0;  ///< total U = Σ C_i / T_i (each C_i / T_i <= 1)
  PbsSlowdown slowdown = PbsSlowdown::large;
  int threads_per_block = 256;  ///< blocks hold this many threads (4 per SM)
};

/// The §6.1 platform: 8 SMs, 1024 threads, 32 blocks per SM (id "pbs-8sm").
Platform pbs_paper_platform();

/// One task set, deterministic in `rng`'s state. Periods are drawn from {400, 600, 800, 1200,
/// 1600} us (hyperperiod at most 4800 us); C_i = u_i·T_i rounded up to whole microseconds;
/// D_i = T_i; a task's blocks are ceil(u_i × the blocks of this shape the GPU holds), so a
/// task's share of the GPU is its utilisation (the seed's "occupancy vector = capacity × u").
/// nullopt when UUniFast-Discard finds no vector with every u_i <= 1.
std::optional<PbsSystem> generate_pbs_system(Rng& rng, const PbsGenOptions& options);

}  // namespace gpurt
