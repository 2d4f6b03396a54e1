// Command-line number checks shared by the subcommands: every floating-point option must be a
// finite number in its range (nan and inf are refused with exit 2 and a short message; CLI11's
// own Range would print its bounds with 300 digits and let nan through).
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "gpurt/core/error.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/sim/engine.hpp"

namespace gpurt::cli {

/// A finite number in [lo, hi] ((lo, hi] when `lo_open`); an infinite bound: none on that side.
inline CLI::Validator finite_in(double lo, double hi, bool lo_open = false) {
  const char* open = lo_open ? "(" : "[";
  const char* above = lo_open ? ">" : ">=";
  std::string range = "any";
  if (std::isfinite(lo) && std::isfinite(hi)) {
    range = fmt::format("in {}{}, {}]", open, lo, hi);
  } else if (std::isfinite(lo)) {
    range = fmt::format("{} {}", above, lo);
  } else if (std::isfinite(hi)) {
    range = fmt::format("<= {}", hi);
  }
  return CLI::Validator(
      [lo, hi, lo_open, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
        if (!std::isfinite(v)) return "must be a finite number, not " + text;
        if (v < lo || v > hi || (lo_open && v == lo)) return "must be " + range + ", not " + text;
        return std::string();
      },
      "FINITE " + range);
}

/// A seed: a whole number in 0..2^64-1, written in decimal digits. CLI11 alone would wrap "-1"
/// to 2^64-1 and saturate anything larger, so two different seeds would silently be one.
inline CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string max = "18446744073709551615";
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        const std::size_t first = digits ? std::min(text.find_first_not_of('0'), text.size() - 1) : 0;
        const std::string_view significant = std::string_view(text).substr(first);
        if (!digits || significant.size() > max.size() ||
            (significant.size() == max.size() && significant > max))
          return "must be a whole number in 0.." + max + ", not " + text;
        return std::string();
      },
      "SEED in 0.." + std::string("18446744073709551615"));
}

/// A finite number > 0 (and at most `hi`).
inline CLI::Validator finite_positive(double hi = std::numeric_limits<double>::infinity()) {
  return finite_in(0.0, hi, true);
}

/// A finite number >= 0 (and at most `hi`).
inline CLI::Validator finite_non_negative(double hi = std::numeric_limits<double>::infinity()) {
  return finite_in(0.0, hi);
}

/// --horizon (> 0, in `unit`) in nanoseconds: refused up front (exit 2) past the simulator's bound
/// on simulated time, which a run would otherwise reach only after simulating up to it.
inline Nanos horizon_arg(double value, TimeUnit unit) {
  const std::string text = fmt::format("{}", value);
  if (!(value > 0)) throw InputError("command line", "--horizon", text, "must be > 0");
  const std::optional<Nanos> h = to_nanos(value, unit, Rounding::up);
  if (!h || *h > sim::kMaxSimulatedTime)
    throw InputError("command line", "--horizon", text,
                     fmt::format("is past the simulator's bound of 10^9 s (10^18 ns; the value is in {})",
                                 to_string(unit)));
  return *h;
}

}  // namespace gpurt::cli
