// FFT tasks on the block-level simulator (FFT/SMLP seed §III-C and §IV): the profiling run
// (one FFT on k units, an interfering kernel on every other unit) and the experiment run (N
// tasks, each executing FFT jobs back to back, under best effort or the SMLP). Each job is
// the kernels of one cuFFT execution (model/cufft_model.hpp), run in order in one stream.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt {

/// BE-cuFFT (no lock, every kernel may use every SM) or SMLP-cuFFT (FIFO SMLP, §III-A).
enum class FftPolicy { best_effort, smlp };

struct FftTasksOptions {
  FftPolicy policy = FftPolicy::smlp;
  int tasks = 1;                    ///< N concurrent FFT tasks (the seed's threads), >= 1
  int jobs = 10;                    ///< consecutive jobs per task, >= 1
  std::vector<KernelSpec> kernels;  ///< one job: the kernels of one execution, in order
  std::vector<int> allowed;         ///< SMLP: S_i (ascending, contains 1); ignored for BE
  /// Host time between a job's completion and the task's next request: uniform in [0, max_gap]
  /// per job (CPU-side jitter; 0: back to back). Every task's first request is at time 0
  /// (the seed's threads start synchronously).
  Nanos max_gap{0};
  std::uint64_t seed = 1;
};

struct FftTasksResult {
  /// Every job's response time: SMLP, from its lock request to the completion of its last
  /// kernel (the span Lemma 2 bounds); BE, from its first launch to that completion.
  std::vector<Nanos> responses;
  std::vector<int> granted;  ///< SMLP: units each job got (same order); BE: empty
  Nanos makespan{0};         ///< completion of the last job
};

/// Runs N identical FFT tasks. Throws gpurt::Error for bad options.
FftTasksResult simulate_fft_tasks(const Platform& platform, const FftTasksOptions& options);

struct FftProfileRunOptions {
  std::vector<KernelSpec> kernels;  ///< one FFT execution
  int units = 1;                    ///< k: the FFT's stream is restricted to k units
  /// The first of the FFT's units: it runs on first_unit..first_unit+k-1 (§III-C, non-uniform
  /// SMs: the same k on another set of units).
  int first_unit = 0;
  int runs = 1;  ///< executions, one after another
  /// The interfering kernel on every other unit (FFT/SMLP §III-C: every other unit busy):
  /// one wave of whole-SM blocks of this length, relaunched until the last run is done.
  Nanos interferer_block{1'000'000};
  std::uint64_t seed = 1;  ///< each run starts after a random offset in [0, interferer_block)
};

/// The execution time of each run (first launch to last kernel's completion).
std::vector<Nanos> simulate_fft_profile_runs(const Platform& platform, const FftProfileRunOptions& options);

}  // namespace gpurt
