// FFT/SMLP §IV-A signal generator: constellations, SNR, determinism, option checks.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>

#include "gpurt/core/error.hpp"
#include "gpurt/gen/signal.hpp"

using namespace gpurt;

namespace {
double power(const std::vector<std::complex<double>>& v) {
  double p = 0;
  for (const auto& x : v) p += std::norm(x);
  return p / static_cast<double>(v.size());
}
}  // namespace

TEST(SignalConstellation, PskPointsLieOnTheUnitCircleAtEvenAngles) {
  for (auto [m, n] : {std::pair{Modulation::psk4, 4}, std::pair{Modulation::psk8, 8}}) {
    const auto pts = constellation(m);
    ASSERT_EQ(pts.size(), static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < pts.size(); ++i) {
      EXPECT_NEAR(std::abs(pts[i]), 1.0, 1e-12);
      // 4-PSK: 45°, 135°, ...; 8-PSK: 22.5°, 67.5°, ...
      const double expected = 2 * std::numbers::pi * static_cast<double>(i) / n + std::numbers::pi / n;
      EXPECT_NEAR(std::remainder(std::arg(pts[i]) - expected, 2 * std::numbers::pi), 0.0, 1e-12);
    }
  }
}

TEST(SignalConstellation, QamIsASquareGridOfOddIntegersWithUnitPower) {
  // 16-QAM: {±1, ±3}² has average power 10, so the unit step is 1/√10.
  const auto q16 = constellation(Modulation::qam16);
  ASSERT_EQ(q16.size(), 16u);
  std::set<long> levels;
  for (const auto& p : q16) {
    const double i = p.real() * std::sqrt(10.0), q = p.imag() * std::sqrt(10.0);
    EXPECT_NEAR(i, std::round(i), 1e-9);
    EXPECT_NEAR(q, std::round(q), 1e-9);
    levels.insert(std::lround(i));
  }
  EXPECT_EQ(levels, (std::set<long>{-3, -1, 1, 3}));
  // 256-QAM: {±1, ..., ±15}² has average power 2·(1+9+...+225)/8 = 170.
  const auto q256 = constellation(Modulation::qam256);
  ASSERT_EQ(q256.size(), 256u);
  EXPECT_NEAR(q256.front().real() * std::sqrt(170.0), -15.0, 1e-9);
  EXPECT_NEAR(power(q256), 1.0, 1e-12);
}

TEST(SignalConstellation, AskLevelsAreRealAndEvenlySpacedFromZero) {
  // 2-ASK is on-off keying {0, √2}; 4-ASK levels 0,1,2,3 have power 14/4, scaled by √(4/14).
  const auto a2 = constellation(Modulation::ask2);
  EXPECT_NEAR(a2[0].real(), 0.0, 1e-12);
  EXPECT_NEAR(a2[1].real(), std::sqrt(2.0), 1e-12);
  const auto a4 = constellation(Modulation::ask4);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(a4[i].imag(), 0.0, 1e-12);
    EXPECT_NEAR(a4[i].real(), static_cast<double>(i) * std::sqrt(4.0 / 14.0), 1e-12);
  }
}

TEST(SignalGenerator, OneSignalWithoutCarrierOffsetReproducesItsSymbols) {
  // Remove each component's carrier from the clean sum of a single signal: every sample must be
  // the constellation point of its symbol.
  SignalOptions o;
  o.samples = 4096;
  o.signals = 1;
  o.snr_db = 20;
  o.seed = 11;
  const GeneratedSignal g = generate_signal(o);
  ASSERT_EQ(g.components.size(), 1u);
  const SignalComponent& c = g.components[0];
  const auto pts = constellation(c.modulation);
  for (std::size_t t = 0; t < g.clean.size(); t += 7) {
    const double angle = 2 * std::numbers::pi * c.carrier * static_cast<double>(t) + c.phase;
    const std::complex<double> base =
        std::complex<double>(g.clean[t]) * std::complex<double>(std::cos(angle), -std::sin(angle));
    const auto expected =
        pts[static_cast<std::size_t>(c.symbols[t / static_cast<std::size_t>(c.symbol_samples)])];
    EXPECT_NEAR(std::abs(base - expected), 0.0, 1e-4) << "sample " << t;
  }
}

// Without keep_symbols (what `generate signal` runs: a symbol per 4-32 samples of each of up to
// 1000 signals held up to k bytes a sample) the samples are the same, bytes for bytes.
TEST(SignalGenerator, NotKeepingTheSymbolsChangesNoSample) {
  SignalOptions o;
  o.samples = 5000;
  o.seed = 9;
  const GeneratedSignal kept = generate_signal(o);
  o.keep_symbols = false;
  const GeneratedSignal lean = generate_signal(o);
  EXPECT_EQ(kept.samples, lean.samples);
  ASSERT_EQ(kept.components.size(), lean.components.size());
  for (std::size_t i = 0; i < kept.components.size(); ++i) {
    const SignalComponent& c = kept.components[i];
    EXPECT_TRUE(lean.components[i].symbols.empty());
    EXPECT_EQ(c.symbols.size(), c.symbol_count);
    EXPECT_EQ(lean.components[i].symbol_count, c.symbol_count);
    EXPECT_EQ(c.symbol_count, (5000 + static_cast<std::size_t>(c.symbol_samples) - 1) /
                                  static_cast<std::size_t>(c.symbol_samples));
  }
}

TEST(SignalGenerator, MeasuredSnrIsWithinATenthOfADecibelOfTheRequest) {
  // 2^16 samples: the noise power estimate has a relative standard error of 1/√65536 ≈ 0.4 %,
  // i.e. about 0.017 dB, so 0.1 dB is six standard errors.
  for (double snr : {10.0, 17.5, 30.0}) {
    SignalOptions o;
    o.samples = 1 << 16;
    o.snr_db = snr;
    o.seed = 3;
    const GeneratedSignal g = generate_signal(o);
    double ps = 0, pn = 0;
    for (std::size_t t = 0; t < g.samples.size(); ++t) {
      ps += std::norm(std::complex<double>(g.clean[t]));
      pn += std::norm(std::complex<double>(g.samples[t]) - std::complex<double>(g.clean[t]));
    }
    EXPECT_NEAR(10 * std::log10(ps / pn), snr, 0.1);
  }
}

TEST(SignalGenerator, DrawsKAndSnrFromTheSeedsRanges) {
  std::set<Modulation> seen;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SignalOptions o;
    o.samples = 64;
    o.seed = seed;
    const GeneratedSignal g = generate_signal(o);
    EXPECT_GE(g.components.size(), 5u);
    EXPECT_LE(g.components.size(), 50u);
    EXPECT_GE(g.snr_db, 10.0);
    EXPECT_LT(g.snr_db, 30.0);
    for (const auto& c : g.components) {
      seen.insert(c.modulation);
      EXPECT_GE(c.carrier, -0.45);
      EXPECT_LT(c.carrier, 0.45);
    }
  }
  EXPECT_EQ(seen.size(), 6u);  // every modulation appears over 40 seeds of 5..50 signals
}

TEST(SignalGenerator, SameSeedSameBytesOtherSeedOtherBytes) {
  SignalOptions o;
  o.samples = 1000;
  o.seed = 5;
  const std::string a = to_cf32_bytes(generate_signal(o).samples);
  const std::string b = to_cf32_bytes(generate_signal(o).samples);
  o.seed = 6;
  const std::string c = to_cf32_bytes(generate_signal(o).samples);
  EXPECT_EQ(a.size(), 8000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(SignalGenerator, Cf32IsLittleEndianInterleaved) {
  // 1.0f = 0x3f800000, -2.0f = 0xc0000000.
  const std::string bytes = to_cf32_bytes({{1.0f, -2.0f}});
  ASSERT_EQ(bytes.size(), 8u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[3]), 0x3fu);
  EXPECT_EQ(static_cast<unsigned char>(bytes[2]), 0x80u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[7]), 0xc0u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[4]), 0x00u);
}

TEST(SignalGenerator, RejectsOptionsOutOfRangeNamingThem) {
  SignalOptions o;
  o.samples = 0;
  try {
    generate_signal(o);
    FAIL() << "samples = 0 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "samples");
    EXPECT_EQ(e.value(), "0");
  }
  o.samples = 16;
  o.signals = 0;
  EXPECT_THROW(generate_signal(o), InputError);
  o.signals = 3;
  o.snr_db = std::nan("");
  EXPECT_THROW(generate_signal(o), InputError);
  o.snr_db = 20;
  o.min_symbol_samples = 9;
  o.max_symbol_samples = 8;
  EXPECT_THROW(generate_signal(o), InputError);
}
