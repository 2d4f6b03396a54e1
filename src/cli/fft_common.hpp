// What `gpurt fft profile` and `gpurt sweep fft` share: the backend choice, size and task
// lists ("10-24" or "10,12,22"), the platform preset, and the GPU check.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gpurt/model/cufft_model.hpp"
#include "gpurt/model/platform.hpp"

namespace gpurt::cli {

/// "A-B" (inclusive) or "A,B,C" of integers within [lo, hi], ascending and distinct as given;
/// InputError naming `option` otherwise.
std::vector<int> parse_int_list(const std::string& text, int lo, int hi, const std::string& option);

/// A platform preset by id; InputError listing the presets otherwise.
Platform fft_platform(const std::string& id);

/// The options that belong to one backend: --platform, --model and the cuFFT model's constants
/// to sim, --device to gpu.
struct FftBackendOptions {
  const CLI::Option* platform = nullptr;
  const CLI::Option* model = nullptr;
  const CLI::Option* device = nullptr;
  const CLI::Option* cufft_serial = nullptr;
  const CLI::Option* cufft_work = nullptr;
  const CLI::Option* gpu_copies = nullptr;  ///< sweep fft's --gpu-copies (a GPU-only option)
};

/// --cufft-serial-us and --cufft-work-us: the cuFFT model's two fitted constants, its serial part
/// s(24) and one 2-SM unit's butterfly work W(24) at 2^24 points (docs/fft.md "Fit"; defaults the
/// shipped fit). scripts/fit-fft refits them. Registered on `cmd`, recorded in `given`.
struct CufftConstants {
  double serial_us = 0, work_us = 0;  ///< 0: not given (the model's defaults)
};
void add_cufft_options(CLI::App* cmd, CufftConstants& c, FftBackendOptions& given);
/// Sets `m`'s per-point constants from the options given (s(24) keeps the constant part a).
void apply_cufft_options(const CufftConstants& c, CufftModelParams& m);

/// "sim" or "gpu"; InputError otherwise, and when an option of the other backend was given
/// (it would be ignored). For "gpu", also InputError (exit 2) when gpurt was built without CUDA
/// or no GPU is visible, with the probe's reason.
bool fft_backend_is_gpu(const std::string& backend, const FftBackendOptions& given);

}  // namespace gpurt::cli
