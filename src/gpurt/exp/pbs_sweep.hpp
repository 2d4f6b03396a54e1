// PBS seed §6.2 experiments on the sweep runner (exp/sweep.hpp): Figure 4 (schedulability ratio
// vs utilisation, three policies), Figure 5a (distribution of GPUSched's time per utilisation),
// Figure 5b (time vs number of tasks at U = 1) and Figure 5c (graph size with and without
// merging), over task sets from the §6.1 generator (gen/pbs_gen.hpp).
//
// Seeds: item j of point p (the j-th task set of the p-th x value) is generated from
// Rng(seed).fork(p · sets + j); Figure 5c has one set per point, drawn from Rng(seed).fork(p).
// Verdicts and vertex counts are therefore the same for any thread count, shard or resume;
// the *_ms columns are wall-clock times and vary from run to run (and with the threads that
// share the machine — measure them with one thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/exp/sweep.hpp"
#include "gpurt/gen/pbs_gen.hpp"

namespace gpurt {

enum class PbsFigure { fig4, fig5a, fig5b, fig5c };
std::string_view to_string(PbsFigure figure);  ///< "4", "5a", "5b", "5c"
std::optional<PbsFigure> parse_pbs_figure(std::string_view text);

struct PbsSweepOptions {
  PbsFigure figure = PbsFigure::fig4;
  PbsSlowdown slowdown = PbsSlowdown::large;  ///< the interference scenario (Figure 4a/b/c)
  int sets = 50;                              ///< task sets per point (§6.2: 50); Figure 5c: points
  std::uint64_t seed = 1;
  /// x values: utilisations (Figures 4, 5a; default 0.2, 0.4, ..., 2.0) or task counts
  /// (Figure 5b; default 2..10). Unused by Figure 5c (5 tasks, U = 1).
  std::vector<double> utilizations;
  std::vector<int> task_counts;
  int tasks = 5;                           ///< tasks per set for Figures 4, 5a, 5c
  std::uint64_t max_vertices = 5'000'000;  ///< GPUSched vertex cap per analysis (not proven beyond)
};

/// The experiment for the runner. Columns:
/// - 4:  scenario,utilization,tasks | sets,gpusched,edf_serial,edf_parallel,gpusched_unknown
///       (schedulable ratios; sets = generated sets; unknown = GPUSched runs that hit the cap,
///       counted unschedulable)
/// - 5a: scenario,utilization,tasks | sets,min_ms,p25_ms,median_ms,p75_ms,p90_ms,max_ms,mean_ms,
///       median_vertices,max_vertices,unknown
/// - 5b: scenario,utilization,tasks | (as 5a)
/// - 5c: scenario,utilization,tasks,set | generated,schedulable,vertices_merge,vertices_no_merge,
///       ms_merge,ms_no_merge,no_merge_complete,vertices_identical (whole graph explored,
///       --explore-all; merge = PbsMerge::dominated, no_merge = PbsMerge::none, the tree of every
///       eligible order, stopped at max_vertices; identical = PbsMerge::identical)
SweepExperiment pbs_sweep_experiment(const PbsSweepOptions& options);

/// One point of Figure 4 computed serially (for benchmarks): `sets` task sets, set i drawn from
/// Rng(seed).fork(i), analysed by the three policies.
struct PbsPoint {
  int sets = 0;                                        ///< task sets generated
  int gpusched = 0, edf_serial = 0, edf_parallel = 0;  ///< schedulable under each policy
  int gpusched_unknown = 0;              ///< GPUSched stopped at the vertex cap (counted unschedulable)
  std::vector<double> gpusched_seconds;  ///< per set
  std::vector<std::uint64_t> gpusched_vertices;  ///< per set, vertices created
};
PbsPoint pbs_point(const PbsGenOptions& options, int sets, std::uint64_t seed,
                   std::uint64_t max_vertices = 5'000'000);

/// The q-quantile (0 <= q <= 1) of `v` by the nearest-rank rule on the sorted samples; 0 when
/// empty.
double quantile(std::vector<double> v, double q);

}  // namespace gpurt
