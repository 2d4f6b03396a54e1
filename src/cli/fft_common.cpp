#include "fft_common.hpp"

#include "commands.hpp"

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
    return false;
  }
  refuse(given.platform, "sim");  // the GPU describes itself
  refuse(given.model, "sim");     // a GPU runs no model
  const ProbeResult probe = probe_gpus();
  if (probe.devices.empty()) {
    throw InputError("command line", "--backend", "gpu",
                     fmt::format("no GPU to run on ({}); use --backend sim for the simulated pipeline",
                                 probe.reason.empty() ? "no device visible" : probe.reason));
  }
  return true;
}

}  // namespace gpurt::cli
