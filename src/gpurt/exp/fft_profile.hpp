// The profiler of FFT/SMLP §III-C on the simulator: L(i,k) of a cuFFT execution for every
// allocation size k = 1..H, each the worst of `runs` executions with an interfering kernel on
// every unit the FFT does not hold. The result is a gpurt/smlp@1 task system that
// `gpurt analyze smlp` reads directly (S_i by eq. (4) with ρ, Lemma 1-2 bounds). Simulated:
// the cuFFT model (model/cufft_model.hpp) on the block-level simulator, not a measurement.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurt/model/cufft_model.hpp"
#include "gpurt/model/placements.hpp"
#include "gpurt/model/smlp_task.hpp"

namespace gpurt {

struct FftProfileOptions {
  std::vector<int> log2_sizes;  ///< FFT sizes 2^p to profile, p in 1..28; one task each
  int batch = 1;                ///< transforms per execution
  int runs = 10;                ///< executions per allocation size; L(i,k) is the worst
  int copies = 1;               ///< tasks per size in the system (N identical FFT tasks)
  double rho = 1.1;             ///< the system's ρ (eq. (4)); the seed uses 1.1
  /// Unit sets profiled per k (§III-C, "non-uniformity in SMs"): 1 profiles units 0..k-1 only;
  /// n > 1 profiles n contiguous sets spread evenly from the first units to the last (fewer
  /// where fewer exist); 0 profiles every contiguous set. L(i,k) is the worst over all of them.
  int placements = 1;
  Nanos interferer_block{1'000'000};
  /// The most simulated executions one profile may take (sizes × runs × the unit sets of every
  /// k): 2·10^6 take minutes on a 2-core VM; profile_fft_sim refuses more (InputError).
  std::int64_t max_simulations = 2'000'000;
  std::uint64_t seed = 1;
  CufftModelParams model;
};

/// The worst execution time of 2^log2_size on k units, for k = 1..platform.units() (index k−1),
/// over the unit sets options.placements names; `spreads`, if given, receives one entry per k.
std::vector<Nanos> profile_fft_size_sim(const Platform& platform, int log2_size,
                                        const FftProfileOptions& options,
                                        std::vector<PlacementSpread>* spreads = nullptr);

/// The profiled system: per size, `copies` tasks named "fft_2^p" (or "fft_2^p_c" for copy c),
/// time unit µs. Throws InputError ("options: NAME = VALUE: PROBLEM") for bad options.
SmlpSystem profile_fft_sim(const Platform& platform, const FftProfileOptions& options,
                           std::vector<PlacementSpread>* spreads = nullptr);

/// Checks the options (sizes, runs, copies, ρ); throws InputError naming the bad one.
void validate(const FftProfileOptions& options);

}  // namespace gpurt
