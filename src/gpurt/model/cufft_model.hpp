// A timing model of one cuFFT execution for the simulator -- a MODEL, fitted to the trends the
// FFT/SMLP seed reports, not a measurement. Used by the `cufft` scenario plugin, the simulated
// profiler (FFT/SMLP §III-C) and the simulated BE-vs-SMLP experiment (§IV).
//
// Shape (docs/fft.md "The cuFFT model"): an execution of a 1-D single-precision C2C FFT of
// z = 2^p points (times `batch`) launches two kernels in order:
//   1. a serial part: 1 block running s(p) = a + b·z·batch (plan-dependent setup, twiddles and
//      the final pass that the seed's Obs. III-1 says does not scale with SMs);
//   2. the butterflies: B = clamp(2^(p−12)·batch, 1, 256) blocks, each filling one SM, each
//      running t = 2·W(p)/B with W(p) = w·z·batch·p the work of one TPC-sized unit (2 SMs).
// So on k units of u SMs: L(k) = s + t·ceil(B/(k·u)); for the RTX 3060 Ti (u = 2) this is
// s + W·ceil(B/2k)/(B/2) ≈ s + W/k -- Amdahl's law with the granularity of B blocks.
//
// Fit (RTX 3060 Ti, seed §III-C Fig. 4 and Example 1, 2^24 points; docs/validation.md rows
// fft-fig4-l24-k1 and fft-fig4-l24-k4, both marked fitted): the simulated profile on the
// calibrated rtx3060ti preset -- whose blocks pay the interference factor 1.05, the worst-case
// jitter 1.05 and, on an SM's first block of a run, the switch cost 1.35 (docs/simulator.md
// "Performance model") -- gives L(k) = 1.4884·s + c(k)·W with c(k) = 1.1025·(128/k + 0.35)/128,
// c(1) = 1.1055 and c(4) = 0.2786, so L(1) = 9101 µs and L(4) = 2501 µs give W(24) = 7981.6 µs
// (independent of the switch cost: c(1) − c(4) is) and s(24) = 186.3 µs; with
// a = 3.5 µs this fixes b, and w = 7981.6 µs / (2^24·24). Other sizes and GPUs are predictions
// of this fit (the same per-SM speed is assumed for the GTX 1070 and RTX 2080 Ti, whose presets
// keep the ideal model: the seed gives no times for them).
#pragma once

#include <vector>

#include "gpurt/core/time.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt {

/// The model's fitted constants (defaults: the fit above). Times in nanoseconds.
struct CufftModelParams {
  double serial_base_ns = 3'500;                                       ///< a
  double serial_per_point_ns = 182'800.0 / 16'777'216.0;               ///< b: (186.3 − 3.5) µs / 2^24
  double work_per_point_stage_ns = 7'981'600.0 / (16'777'216.0 * 24);  ///< w, per unit of 2 SMs
  int max_parallel_blocks = 256;                                       ///< clamp of B
  /// A block of the FFT that starts while another kernel is resident on the GPU runs this many
  /// times longer: memory interference, a model assumption (the seed does not quantify it).
  double interference_slowdown = 1.05;
};

/// One cuFFT execution: FFT size 2^log2_size (1..28), `batch` transforms (>= 1).
struct CufftShape {
  int log2_size = 0;
  int batch = 1;
};

/// The kernels one execution launches, in launch order (each must finish before the next
/// starts: the simulator runs them in one stream). Blocks fill one SM of `platform` each.
/// Throws gpurt::Error for a shape out of range.
std::vector<KernelSpec> cufft_kernels(const CufftShape& shape, const Platform& platform,
                                      const CufftModelParams& params = {});

/// `kernels` with every kernel of more than `sms` blocks issued as consecutive kernels of at most
/// `sms` blocks (same block time): on `sms` dedicated SMs the total time is unchanged. The
/// simulator dispatches only from the head of the primary queue (Dissertation rules B-C), so a
/// grid larger than its partition would keep every other partition's kernels waiting; issuing
/// it in waves keeps SMLP partitions independent, as the seed observed on hardware. A
/// modelling choice, documented in docs/fft.md.
std::vector<KernelSpec> in_waves(const std::vector<KernelSpec>& kernels, int sms);

/// The model's execution time on `units` dedicated units of `platform` without interference:
/// Σ over the kernels of block_time·ceil(blocks / (units·partition_unit)). Throws gpurt::Error
/// for units outside 1..platform.units().
Nanos cufft_model_time(const CufftShape& shape, const Platform& platform, int units,
                       const CufftModelParams& params = {});

}  // namespace gpurt
