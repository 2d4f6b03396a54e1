// The BE-vs-SMLP cuFFT experiment of FFT/SMLP §IV on the simulator (Figures 6-7): for every
// FFT size 2^p and task count N, N tasks run consecutive FFT jobs under best effort
// (BE-cuFFT) and under the FIFO SMLP (SMLP-cuFFT) with S_i chosen by eq. (4) from the
// simulated profile (exp/fft_profile); reported: average and worst response time, the Lemma 2
// bound, throughput, and the number of SMLP jobs above the bound (must be 0). Every number is
// SIMULATED (the cuFFT model on the block-level simulator); the CSV says so in its `backend`
// column.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpurt/exp/fft_profile.hpp"
#include "gpurt/exp/sweep.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/sim/fft_sim.hpp"

namespace gpurt {

/// Where the numbers come from. Default (empty functions): the simulator, labelled
/// "simulated". The GPU backend (gpurt sweep fft --backend gpu) sets both to the real FFT job
/// and the label to "measured".
struct FftSweepBackend {
  std::string label = "simulated";
  /// L(i,k) for k = 1..H of one size (§III-C).
  std::function<std::vector<Nanos>(int log2_size)> profile;
  /// One trial of one policy; `log2_size` and `batch` name the FFT, `options` the rest.
  std::function<FftTasksResult(int log2_size, int batch, const FftTasksOptions& options)> run;
};

struct FftSweepOptions {
  Platform platform;             ///< the seed's Fig. 6-7 GPU is the RTX 3060 Ti (19 TPC units)
  std::vector<int> log2_sizes;   ///< seed: 10..24
  std::vector<int> task_counts;  ///< seed: 1..21
  /// Work items per point (seed: 1,000) and consecutive jobs per task and trial (seed: 100).
  /// 10 x 50 keeps every maximum of the 2^22 sweep within 1 % of a 30 x 100 run (3 x 20 was
  /// within 5 %, seed-dependent); docs/fft.md "How many trials".
  int trials = 10;
  int jobs = 50;
  Nanos max_gap{5'000};       ///< host time between a task's jobs: uniform in [0, max_gap]
  FftProfileOptions profile;  ///< runs, ρ, batch, model (log2_sizes/copies are set per point)
  std::uint64_t seed = 1;
  FftSweepBackend backend;
};

/// The profiled WCETs of each size (index as options.log2_sizes), computed once.
struct FftSweepProfiles {
  std::vector<std::vector<Nanos>> wcet_by_units;
};

/// Checks the options; throws InputError naming the bad one.
void validate(const FftSweepOptions& options);

/// Profiles every size (§III-C, on the backend), then returns the sweep: keys backend (its label),
/// log2_size, samples, tasks; values allowed (S_i as "1 2 3"), jobs, be_avg_us, be_max_us,
/// smlp_avg_us, smlp_max_us, bound_us, be_throughput_msps, smlp_throughput_msps,
/// be_rt_throughput_msps, smlp_rt_throughput_msps, violations. Throughput (mega-samples per
/// second), averaged over trials: `*_throughput_msps` = samples of all jobs of a trial / the
/// trial's makespan; `*_rt_throughput_msps` = gpurt's reading of the seed's "samples processed by the trial
/// divided by its aggregate response time" (§IV-A), the aggregate read as the sum of the trial's response
/// times over N (a task's time in its jobs, host gaps and copies excluded), i.e. N x samples of a
/// job / the trial's mean response. `options` must outlive the experiment.
SweepExperiment fft_sweep_experiment(const FftSweepOptions& options);

}  // namespace gpurt
