// Signal generator for FFT inputs (FFT/SMLP seed §IV-A): k signals, each carrying random symbols
// of one modulation on its own carrier, summed and mixed with additive white Gaussian noise at a
// requested SNR. Complex baseband, one sample = one complex float (I, Q). Seeded: the same options
// give the same samples (bit for bit) on any machine.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpurt {

/// The six modulations of §IV-A.
enum class Modulation { psk4, psk8, qam16, qam256, ask2, ask4 };
std::string_view to_string(Modulation m);
/// Every modulation, in the order the generator draws from.
const std::vector<Modulation>& all_modulations();

/// The constellation of `m`, normalised to unit average power (so every signal has power 1
/// whatever its modulation). PSK: M points on the unit circle at angles 2πm/M + π/M; QAM: the
/// square √M×√M grid of odd integers, scaled; ASK: on-off style amplitude levels 0, 1, ..., M−1 on
/// the real axis, scaled (2-ASK is on-off keying).
std::vector<std::complex<double>> constellation(Modulation m);

struct SignalOptions {
  std::int64_t samples = 1 << 16;  ///< complex samples; 1..2^28
  /// Number of signals k; absent: uniform in [5, 50] (§IV-A). When given: 1..1000.
  std::optional<int> signals;
  /// SNR in dB of the sum of the signals over the noise; absent: uniform in [10, 30] (§IV-A).
  /// When given: -50..100.
  std::optional<double> snr_db;
  std::uint64_t seed = 1;
  int min_symbol_samples = 4;   ///< each signal's symbol length is uniform in [min, max] samples
  int max_symbol_samples = 32;  ///< (rectangular pulses)
  /// Keep every symbol in SignalComponent::symbols (one int per symbol of every signal: up to
  /// k bytes a sample); false keeps only their count (the same samples, bytes for bytes).
  bool keep_symbols = true;
};

/// One transmitted signal.
struct SignalComponent {
  Modulation modulation = Modulation::psk4;
  double carrier = 0;            ///< carrier frequency in cycles per sample, in [−0.45, 0.45)
  double phase = 0;              ///< carrier phase at sample 0, radians
  int symbol_samples = 0;        ///< samples per symbol
  std::vector<int> symbols;      ///< constellation index of each symbol, in order (keep_symbols)
  std::size_t symbol_count = 0;  ///< symbols carried (drawn either way)
};

struct GeneratedSignal {
  std::vector<SignalComponent> components;
  double snr_db = 0;  ///< the SNR the noise was scaled to
  /// The sum of the components without noise, and the sum with noise (what an FFT task gets).
  std::vector<std::complex<float>> clean, samples;
};

/// Generates a signal. Throws InputError ("options: NAME = VALUE: PROBLEM") for options out of
/// range.
GeneratedSignal generate_signal(const SignalOptions& options);

/// The samples as little-endian interleaved float32 (I0, Q0, I1, Q1, ...): the "cf32" file
/// format that `gpurt generate signal` writes and GNU Radio / numpy.fromfile(dtype=complex64) read.
std::string to_cf32_bytes(const std::vector<std::complex<float>>& samples);

}  // namespace gpurt
