#include "gpurt/gen/signal.hpp"

#include <cmath>
#include <cstring>
#include <numbers>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"

namespace gpurt {

namespace {

std::vector<std::complex<double>> normalised(std::vector<std::complex<double>> points) {
  double power = 0;
  for (const auto& p : points) power += std::norm(p);
  power /= static_cast<double>(points.size());
  const double scale = 1.0 / std::sqrt(power);
  for (auto& p : points) p *= scale;
  return points;
}

std::vector<std::complex<double>> psk(int m) {
  std::vector<std::complex<double>> pts;
  for (int i = 0; i < m; ++i) {
    const double a = 2 * std::numbers::pi * i / m + std::numbers::pi / m;
    pts.emplace_back(std::cos(a), std::sin(a));
  }
  return pts;
}

std::vector<std::complex<double>> qam(int side) {
  std::vector<std::complex<double>> pts;
  for (int i = 0; i < side; ++i)
    for (int q = 0; q < side; ++q) pts.emplace_back(2 * i - (side - 1), 2 * q - (side - 1));
  return normalised(std::move(pts));
}

std::vector<std::complex<double>> ask(int m) {
  std::vector<std::complex<double>> pts;
  for (int i = 0; i < m; ++i) pts.emplace_back(i, 0);
  return normalised(std::move(pts));
}

void check(bool ok, std::string_view name, const std::string& value, std::string_view problem) {
  if (!ok) throw InputError("options", std::string(name), value, std::string(problem));
}

}  // namespace

std::string_view to_string(Modulation m) {
  switch (m) {
    case Modulation::psk4:
      return "4-PSK";
    case Modulation::psk8:
      return "8-PSK";
    case Modulation::qam16:
      return "16-QAM";
    case Modulation::qam256:
      return "256-QAM";
    case Modulation::ask2:
      return "2-ASK";
    case Modulation::ask4:
      return "4-ASK";
  }
  return "?";
}

const std::vector<Modulation>& all_modulations() {
  static const std::vector<Modulation> all = {Modulation::psk4,   Modulation::psk8, Modulation::qam16,
                                              Modulation::qam256, Modulation::ask2, Modulation::ask4};
  return all;
}

std::vector<std::complex<double>> constellation(Modulation m) {
  switch (m) {
    case Modulation::psk4:
      return psk(4);
    case Modulation::psk8:
      return psk(8);
    case Modulation::qam16:
      return qam(4);
    case Modulation::qam256:
      return qam(16);
    case Modulation::ask2:
      return ask(2);
    case Modulation::ask4:
      return ask(4);
  }
  return {};
}

GeneratedSignal generate_signal(const SignalOptions& o) {
  check(o.samples >= 1 && o.samples <= (std::int64_t{1} << 28), "samples", std::to_string(o.samples),
        "must be in [1, 2^28]");
  if (o.signals)
    check(*o.signals >= 1 && *o.signals <= 1000, "signals", std::to_string(*o.signals),
          "must be in [1, 1000]");
  if (o.snr_db)
    check(std::isfinite(*o.snr_db) && *o.snr_db >= -50 && *o.snr_db <= 100, "snr_db",
          fmt::format("{}", *o.snr_db), "must be in [-50, 100] dB");
  check(o.min_symbol_samples >= 1 && o.min_symbol_samples <= o.max_symbol_samples, "min_symbol_samples",
        std::to_string(o.min_symbol_samples), "must be in [1, max_symbol_samples]");

  Rng rng(o.seed);
  GeneratedSignal out;
  // §IV-A: k uniform in [5, 50], SNR uniform in [10, 30] dB, each modulation equally likely.
  const int k = o.signals ? *o.signals : static_cast<int>(rng.uniform_int(5, 50));
  out.snr_db = o.snr_db ? *o.snr_db : rng.uniform(10, 30);
  const auto n = static_cast<std::size_t>(o.samples);
  std::vector<std::complex<double>> sum(n);
  const auto& mods = all_modulations();
  for (int s = 0; s < k; ++s) {
    SignalComponent c;
    c.modulation =
        mods[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(mods.size()) - 1))];
    c.carrier = rng.uniform(-0.45, 0.45);
    c.phase = rng.uniform(0, 2 * std::numbers::pi);
    c.symbol_samples = static_cast<int>(rng.uniform_int(o.min_symbol_samples, o.max_symbol_samples));
    const auto points = constellation(c.modulation);
    const std::size_t nsym =
        (n + static_cast<std::size_t>(c.symbol_samples) - 1) / static_cast<std::size_t>(c.symbol_samples);
    c.symbol_count = nsym;
    if (o.keep_symbols) c.symbols.reserve(nsym);
    // Each signal has unit average power (normalised constellation, unit carrier), so the sum
    // of k independent signals has power about k. Symbol j is drawn where it starts (the same
    // draws, in the same order, as drawing them all first) and kept only when asked.
    const auto per_symbol = static_cast<std::size_t>(c.symbol_samples);
    std::complex<double> sym;
    for (std::size_t t = 0; t < n; ++t) {
      if (t % per_symbol == 0) {
        const int index = static_cast<int>(rng.uniform_int(0, static_cast<std::int64_t>(points.size()) - 1));
        if (o.keep_symbols) c.symbols.push_back(index);
        sym = points[static_cast<std::size_t>(index)];
      }
      const double angle = 2 * std::numbers::pi * c.carrier * static_cast<double>(t) + c.phase;
      sum[t] += sym * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    out.components.push_back(std::move(c));
  }
  // AWGN scaled to the measured power of the clean sum: noise power = P_signal / 10^(SNR/10),
  // split equally between I and Q.
  double power = 0;
  for (const auto& v : sum) power += std::norm(v);
  power /= static_cast<double>(n);
  const double sigma = std::sqrt(power / std::pow(10.0, out.snr_db / 10) / 2);
  out.clean.reserve(n);
  out.samples.reserve(n);
  for (const auto& v : sum) {
    const double i = rng.normal() * sigma;
    const double q = rng.normal() * sigma;
    out.clean.emplace_back(static_cast<float>(v.real()), static_cast<float>(v.imag()));
    out.samples.emplace_back(static_cast<float>(v.real() + i), static_cast<float>(v.imag() + q));
  }
  return out;
}

std::string to_cf32_bytes(const std::vector<std::complex<float>>& samples) {
  std::string bytes;
  bytes.reserve(samples.size() * 8);
  const auto put = [&bytes](float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((u >> (8 * b)) & 0xffu));
  };
  for (const auto& s : samples) {
    put(s.real());
    put(s.imag());
  }
  return bytes;
}

}  // namespace gpurt
