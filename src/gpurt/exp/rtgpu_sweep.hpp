// RTGPU §6.2 experiments: acceptance ratio against utilisation for the seed's three methods and GCAPS round
// robin on Table 1 task sets (Figures 8-11), on the general sweep runner (exp/sweep.hpp): parallel over task
// sets, the result depends only on the options and the seed, never on the number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/exp/sweep.hpp"
#include "gpurt/gen/rtgpu_table1.hpp"
#include "gpurt/sim/rtgpu_sim.hpp"

namespace gpurt {

/// The execution-time model of a sweep (RTGPU §6.3, Figs. 12 and 13).
enum class RtgpuLengths {
  worst,        ///< the analyses see the bounds; the simulator runs every segment at its upper bound
  average,      ///< Fig. 13 as the seed words it: the analyses see every copy and GPU segment at its
                ///< mean (average_execution_model); the simulator draws random lengths in the bounds
  average_all,  ///< as average, and the CPU segments at their means too (not the seed's wording)
};

struct RtgpuSweepOptions {
  RtgpuTable1Options generator;      ///< its `utilization` is replaced by each point's
  std::vector<double> utilizations;  ///< the x axis
  int sets_per_point = 100;          ///< §6.1: 100 task sets a point
  std::uint64_t seed = 1;
  std::vector<RtgpuMethod> methods{RtgpuMethod::rtgpu, RtgpuMethod::self_suspension, RtgpuMethod::stgm,
                                   RtgpuMethod::gcaps_rr};
  RtgpuSearch search = RtgpuSearch::exact;
  /// Each analysis stops with gpurt::Error after this many task analyses (RtgpuOptions).
  std::int64_t analysis_limit = RtgpuOptions{}.analysis_limit;
  double analysis_seconds = RtgpuOptions{}.max_seconds;  ///< per analysis of a set (0: no limit)
  int threads = 0;                                       ///< 0: oneTBB's default
  /// > 0: also run every set on the simulator (sim/rtgpu_sim.hpp) for this many jobs per task,
  /// every segment at its upper bound and all tasks released at 0, on the RTGPU search's
  /// allocation (where the search finds none, the allocation it stopped at, which fits the GPU),
  /// and report the share of sets in which no job misses its deadline: column "simulated",
  /// the simulator's counterpart of the seed's real-GPU runs (Figs. 12-13). A set with more
  /// tasks than SMs cannot run federated and counts as missing. 0: off.
  std::int64_t simulate_jobs = 0;
  /// What the analyses see and the simulated column runs (Fig. 12: worst; Fig. 13: average).
  RtgpuLengths lengths = RtgpuLengths::worst;
  /// Also report column "throughput_gain": the mean, over the sets the RTGPU analysis accepts, of
  /// the virtual-SM throughput gain of its allocation (eq. (10), rtgpu_throughput_gain; Fig. 14(b));
  /// empty where it accepts none. Needs RtgpuMethod::rtgpu among the methods.
  bool throughput_gain = false;
};

struct RtgpuSweepPoint {
  double utilization = 0;
  int sets = 0;
  std::vector<int> accepted;  ///< per method, in options.methods order
  int simulated = 0;          ///< sets without a simulated deadline miss (simulate_jobs > 0)
  /// options.throughput_gain: the mean eq. (10) gain over the sets RTGPU accepts (NaN: none).
  double throughput_gain = 0;
};

/// Task set j of point p is drawn from Rng(seed).fork(p · sets_per_point + j), so every set is
/// the same whichever thread analyses it. The same sets are given to every method.
std::vector<RtgpuSweepPoint> run_rtgpu_sweep(const RtgpuSweepOptions& options);

/// The sweep for the runner: one point per utilisation, key column "utilization", value columns
/// "sets,<method>,...[,simulated][,throughput_gain]" (acceptance ratios in [0, 1]); item j of point p
/// analyses the set drawn from Rng(seed).fork(p · sets_per_point + j) under every method (`threads` is not
/// used: the runner's options say it).
SweepExperiment rtgpu_sweep_experiment(const RtgpuSweepOptions& options);

/// CSV: "utilization,sets,<method>,...[,simulated][,throughput_gain]" with acceptance ratios in
/// [0, 1] (the simulated column when options.simulate_jobs > 0, the gain when options.throughput_gain).
std::string to_csv(const std::vector<RtgpuSweepPoint>& points, const RtgpuSweepOptions& options);

/// RTGPU Fig. 13's "average execution time model" (§6.3: "the memory copy and GPU kernels are
/// modeled by their average execution times"): every copy length and GPU work becomes the mean
/// of its range, ceil((lo + hi) / 2), as both bounds; α the mean of [1, α]; the launch overhead
/// GL the mean of [0, GL], rounded up. These are the means of the simulator's random execution
/// (RtgpuExecution::random draws each uniformly from those ranges). CPU segments keep their
/// bounds unless `cpu_too`, which makes them their means as well. An analysis of the result is
/// not a guarantee: it is what the seed's figure compares.
RtgpuSystem average_execution_model(const RtgpuSystem& system, bool cpu_too = false);

/// True when `system`, run on the simulator on the RTGPU allocation `analysis` reports (see
/// RtgpuSweepOptions::simulate_jobs) for `jobs` jobs per task with synchronous releases, misses
/// no deadline. Lengths: upper bounds (`execution` worst) or drawn within the bounds from
/// Rng(seed) (random). False when it has more tasks than SMs.
bool rtgpu_simulated_schedulable(const RtgpuSystem& system, const RtgpuResult& analysis, std::int64_t jobs,
                                 RtgpuExecution execution = RtgpuExecution::worst, std::uint64_t seed = 1);

}  // namespace gpurt
