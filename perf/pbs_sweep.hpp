// PBS seed §6.2 experiments as plain functions over generated task sets: one point of Figure 4
// (schedulability ratio per policy) and the analysis-time samples of Figure 5. Written to be
// plugged into the sweep runner (`gpurt sweep`, src/gpurt/exp/) when it lands; until then
// perf/pbs_figures.cpp drives them serially.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/gen/pbs_gen.hpp"

namespace gpurt::perf {

struct PbsPoint {
  int sets = 0;                                        ///< task sets generated
  int gpusched = 0, edf_serial = 0, edf_parallel = 0;  ///< schedulable under each policy
  int gpusched_unknown = 0;              ///< GPUSched stopped at the vertex cap (counted unschedulable)
  std::vector<double> gpusched_seconds;  ///< per set
  std::vector<std::uint64_t> gpusched_vertices;  ///< per set, vertices created
};

/// `sets` task sets of options.tasks tasks at options.utilization, set i drawn from
/// Rng(seed).fork(i) (deterministic whatever order or thread runs it), analysed by the three
/// policies.
inline PbsPoint pbs_point(const PbsGenOptions& options, int sets, std::uint64_t seed,
                          std::uint64_t max_vertices = 5'000'000) {
  PbsPoint point;
  const Rng root(seed);
  for (int i = 0; i < sets; ++i) {
    Rng rng = root.fork(static_cast<std::uint64_t>(i));
    const auto system = generate_pbs_system(rng, options);
    if (!system) continue;
    ++point.sets;
    const PbsResult g = analyse_pbs(*system, {.policy = PbsPolicy::gpusched, .max_vertices = max_vertices});
    point.gpusched += g.schedulable ? 1 : 0;
    point.gpusched_unknown += g.complete ? 0 : 1;
    point.gpusched_seconds.push_back(g.stats.seconds);
    point.gpusched_vertices.push_back(g.stats.vertices_created);
    point.edf_serial += analyse_pbs(*system, {.policy = PbsPolicy::edf_serial}).schedulable ? 1 : 0;
    point.edf_parallel += analyse_pbs(*system, {.policy = PbsPolicy::edf_parallel}).schedulable ? 1 : 0;
  }
  return point;
}

}  // namespace gpurt::perf
