// Time in gpurt: signed 64-bit nanoseconds everywhere inside (DESIGN.md "Time").
// Files carry a "time_unit" and may hold fractional values; they are converted once, at load,
// with the rounding direction the caller states (WCETs round up, deadlines round down).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpurt {

/// Nanoseconds, signed 64-bit. The one time type of the library.
using Nanos = std::chrono::duration<std::int64_t, std::nano>;

/// A unit a file may state its times in.
enum class TimeUnit { ns, us, ms, s };

/// Parses "ns", "us", "ms" or "s"; std::nullopt for anything else.
std::optional<TimeUnit> parse_time_unit(std::string_view text);
std::string_view to_string(TimeUnit unit);
/// Nanoseconds in one `unit` (1, 1e3, 1e6, 1e9).
std::int64_t nanos_per(TimeUnit unit);

/// Which way a value that is not a whole number of nanoseconds is rounded.
/// Values within 1e-6 ns of a whole number are taken as that number either way, so that
/// 0.1 us is 100 ns rather than 101 ns after binary floating point.
enum class Rounding { up, down, nearest };

/// Converts `value` (in `unit`) to nanoseconds. Returns std::nullopt when the value is not
/// finite or does not fit in 64 bits.
std::optional<Nanos> to_nanos(double value, TimeUnit unit, Rounding rounding);

/// Converts nanoseconds to a value in `unit` for output (exact when the unit divides it).
double from_nanos(Nanos t, TimeUnit unit);
/// The same, never printed below the exact value: below 10^15 ns the nearest double, whose
/// shortest decimal is the exact value; from there the next double up where the nearest is
/// below it (past 2^53 ns a double no longer holds every nanosecond; a bound must not shrink).
double from_nanos_up(Nanos t, TimeUnit unit);

/// CLOCK_MONOTONIC now, in nanoseconds: the clock of runs, locks and benchmarks on the host.
std::int64_t monotonic_ns() noexcept;

/// ceil(a / b) for a >= 0, b > 0 (no intermediate overflow, whatever a).
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

/// A factor as the decimal a file writes it: `numerator` / 10^`scale`, from the shortest text
/// that reads back to the same double (1.0001, not the double's 1.00009999999999998899...).
struct ShortDecimal {
  __extension__ unsigned __int128 numerator;  // GCC and Clang
  int scale;
};
/// `x` (finite, >= 0) as its short decimal; nullopt when that has more than 17 significant
/// digits, more than 12 decimals, or (from an exponent) a numerator that would pass about 2^104
/// (a factor a file writes, as 1.1, 1.15 or 1.0001, never does).
std::optional<ShortDecimal> short_decimal(double x);

/// ceil(n · factor) in whole nanoseconds, exactly: `factor` taken as its short decimal (so
/// 5 ns · 1.0000001 is 6 ns and 5 ns · 1.4 is 7 ns), else as the exact binary value of the
/// double. For n >= 0 and a finite factor >= 0; nullopt when the result passes 2^63 - 1 ns.
/// The WCET factors of the models (RTGPU α, PBS slowdown) are applied with it.
std::optional<Nanos> scale_up(Nanos n, double factor);

/// The analyses' "unbounded": 2^62 ns (about 146 years), far beyond any deadline a file can
/// hold. Saturating sums stop there instead of wrapping past 2^63, so a sum of absurd inputs
/// reads as "exceeds every deadline", never as a small or negative bound.
inline constexpr Nanos kUnboundedTime{std::int64_t{1} << 62};

/// a + b for a, b >= 0, at most kUnboundedTime.
constexpr Nanos saturating_add(Nanos a, Nanos b) {
  if (a >= kUnboundedTime || b >= kUnboundedTime - a) return kUnboundedTime;
  return a + b;
}

/// n · t for n >= 0, t >= 0, at most kUnboundedTime.
constexpr Nanos saturating_mul(std::int64_t n, Nanos t) {
  if (n == 0 || t.count() == 0) return Nanos{0};
  if (n >= kUnboundedTime.count() / t.count()) return kUnboundedTime;
  return Nanos{n * t.count()};
}

}  // namespace gpurt
