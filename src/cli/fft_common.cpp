#include "fft_common.hpp"

#include "checks.hpp"
#include "commands.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include <charconv>

#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt::cli {

namespace {
bool to_int(std::string_view s, int& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}
}  // namespace

std::vector<int> parse_int_list(const std::string& text, int lo, int hi, const std::string& option) {
  const auto fail = [&](const std::string& problem) {
    throw InputError("command line", option, text, problem);
  };
  std::vector<int> out;
  const auto dash = text.find('-');
  if (dash != std::string::npos && text.find(',') == std::string::npos) {
    int a = 0, b = 0;
    if (!to_int(std::string_view(text).substr(0, dash), a) ||
        !to_int(std::string_view(text).substr(dash + 1), b))
      fail("must be A-B or A,B,C (integers)");
    if (b < a) fail("the range A-B needs A <= B");
    // Checked before expanding: a range to INT_MAX would never end (v++ overflows) and
    // exhaust memory on the way.
    for (int v : {a, b})
      if (v < lo || v > hi) fail(fmt::format("{} is outside {}..{}", v, lo, hi));
    for (int v = a;; ++v) {
      out.push_back(v);
      if (v == b) break;
    }
  } else {
    std::string_view rest(text);
    while (true) {
      const auto comma = rest.find(',');
      int v = 0;
      if (!to_int(rest.substr(0, comma), v)) fail("must be A-B or A,B,C (integers)");
      if (!out.empty() && v <= out.back()) fail("values must be ascending and distinct");
      out.push_back(v);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  for (int v : out)
    if (v < lo || v > hi) fail(fmt::format("{} is outside {}..{}", v, lo, hi));
  return out;
}

Platform fft_platform(const std::string& id) {
  Platform p = platform_arg(id);
  // The profile simulates every k = 1..H (exp/fft_profile.cpp): refused here to name the file.
  if (p.units() > 1024) {
    throw InputError(find_platform_preset(id) ? "command line" : id,
                     find_platform_preset(id) ? "--platform" : "units", std::to_string(p.units()),
                     "the FFT profile simulates every size k = 1..H; it takes at most 1024 allocation units");
  }
  return p;
}

namespace {
// 1 s at 2^24 points, over 100 times the seed's: the simulated time (and so the work of the
// profile's interfering loops) grows with it; 1e9 us made a profile run for minutes.
constexpr double kMaxCufftUs = 1e6;
constexpr double kPoints24 = 16'777'216.0;  // 2^24: the size the two constants are given at
}  // namespace

void add_cufft_options(CLI::App* cmd, CufftConstants& c, FftBackendOptions& given) {
  const CufftModelParams d;
  given.cufft_serial =
      cmd->add_option("--cufft-serial-us", c.serial_us,
                      fmt::format("cuFFT model: the serial part s at 2^24 points, us (default {:.1f}; "
                                  "scripts/fit-fft; at most 1e6)",
                                  (d.serial_base_ns + d.serial_per_point_ns * kPoints24) / 1000))
          ->check(finite_in(d.serial_base_ns / 1000 + 1e-3, kMaxCufftUs));
  given.cufft_work = cmd->add_option("--cufft-work-us", c.work_us,
                                     fmt::format("cuFFT model: one 2-SM unit's butterfly work W at 2^24 "
                                                 "points, us (default {:.1f}; scripts/fit-fft; at most 1e6)",
                                                 d.work_per_point_stage_ns * kPoints24 * 24 / 1000))
                         ->check(finite_in(1e-3, kMaxCufftUs));
}

void apply_cufft_options(const CufftConstants& c, CufftModelParams& m) {
  if (c.serial_us > 0) m.serial_per_point_ns = (c.serial_us * 1000 - m.serial_base_ns) / kPoints24;
  if (c.work_us > 0) m.work_per_point_stage_ns = c.work_us * 1000 / (kPoints24 * 24);
}

bool fft_backend_is_gpu(const std::string& backend, const FftBackendOptions& given) {
  if (backend != "sim" && backend != "gpu")
    throw InputError("command line", "--backend", backend, "must be sim or gpu");
  const auto refuse = [&](const CLI::Option* option, const char* other) {
    if (option != nullptr && option->count() > 0)
      throw InputError("command line", option->get_name(), option->as<std::string>(),
                       fmt::format("applies to --backend {} only, not --backend {}", other, backend));
  };
  if (backend == "sim") {
    refuse(given.device, "gpu");
    refuse(given.gpu_copies, "gpu");
    return false;
  }
  refuse(given.platform, "sim");  // the GPU describes itself
  refuse(given.model, "sim");     // a GPU runs no model
  refuse(given.cufft_serial, "sim");
  refuse(given.cufft_work, "sim");
  // Before CUDA starts: 32 hardware work queues instead of CUDA's 8, unless the user set it. With
  // 8, jobs of N >= 5 FFT tasks waited behind other tasks' work on an H200: at 2^22 and N = 5-12,
  // BE's mean was up to 390 us against 83-102 us with 32 (three runs each), and its worst case
  // mostly 2-14 ms against 0.1-4.2 ms (docs/measured-h200.md). The simulator gives every stream
  // its own queue, so 32 is also what it predicts.
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  const ProbeResult probe = probe_gpus();
  if (probe.devices.empty()) {
    throw InputError("command line", "--backend", "gpu",
                     fmt::format("no GPU to run on ({}); use --backend sim for the simulated pipeline",
                                 probe.reason.empty() ? "no device visible" : probe.reason));
  }
  return true;
}

}  // namespace gpurt::cli
