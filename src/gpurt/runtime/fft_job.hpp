// The FFT job of FFT/SMLP Algorithm 1 on a real GPU, and the two programs built on it: the
// §III-C profiler and the §IV BE-vs-SMLP experiment. CUDA only (fft_job.cu); without CUDA
// (fft_job_none.cpp) every function throws gpurt::Error saying so.
//
// One job (Alg. 1): copy in (async, the task's stream) → plan (made once per task and reused)
// → synchronise → [SMLP: smlp_lock(S_i) → a stream restricted to the granted units from the
// runtime Partitioner] → cufftExecC2C → synchronise → [smlp_unlock] → copy out → synchronise.
// BE-cuFFT skips the bracketed steps and runs on the task's own unrestricted stream.
// The measured span is lock request → unlock (what Lemma 2 bounds); BE: exec → synchronised.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/placements.hpp"
#include "gpurt/model/smlp_task.hpp"

namespace gpurt {

struct FftGpuTasksOptions {
  int log2_size = 22;
  int batch = 1;
  int tasks = 1;             ///< N host threads, each with its own stream, plan and buffers
  int jobs = 100;            ///< consecutive jobs per thread (the seed: 100)
  bool smlp = true;          ///< SMLP-cuFFT; false: BE-cuFFT
  std::vector<int> allowed;  ///< S_i for SMLP (ascending, contains 1)
  int device = 0;
  /// Input samples (the caller generates them, e.g. gen/signal §IV-A), repeated to fill
  /// 2^log2_size·batch points; empty: zeros (cuFFT's time does not depend on the values).
  std::vector<std::complex<float>> input;
  /// true: every job copies in and out (Alg. 1 lines 2-5, 13-14). false: each task copies in once
  /// before the start and out once after its last job, so its jobs are the FFTs alone (what the
  /// simulator models; docs/measured-h200.md "The simulator's FFT predictions for the H200").
  bool copy_each_job = true;
};

struct FftGpuTasksResult {
  std::vector<Nanos> responses;  ///< every job, in completion order
  std::vector<int> granted;      ///< SMLP: units of each job
  Nanos makespan{0};             ///< first request to last completion
  /// SMLP jobs granted a unit set that had no stream yet: its green context and stream were
  /// made inside the job's measured span (the partitioner lives as long as the process, so
  /// each set is cold once per process).
  int cold_grants = 0;
};

/// Runs N FFT tasks concurrently on the GPU (§IV methodology: threads start together).
/// Throws gpurt::Error (no CUDA, no GPU, no partition backend, a CUDA/cuFFT failure).
FftGpuTasksResult run_fft_tasks_gpu(const FftGpuTasksOptions& options);

/// §III-C on the GPU: for every k = 1..H, the worst of `runs` executions with the FFT's stream
/// on k contiguous units and a memory- and compute-heavy spinning kernel on every other unit,
/// over the unit sets `placements` names (placement_offsets, model/placements.hpp; 1: units
/// 0..k-1 only). Returns a gpurt/smlp@1 system (time unit µs) describing the device, `copies`
/// tasks per size; `spreads`, if given, receives each size's and k's best and worst unit set.
SmlpSystem profile_fft_gpu(const std::vector<int>& log2_sizes, int batch, int runs, int copies, double rho,
                           int device, int placements = 1, std::vector<PlacementSpread>* spreads = nullptr);

}  // namespace gpurt
