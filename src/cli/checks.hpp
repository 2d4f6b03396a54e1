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

/// A finite number > 0 (and at most `hi`).
inline CLI::Validator finite_positive(double hi = std::numeric_limits<double>::infinity()) {
  return finite_in(0.0, hi, true);
}

/// A finite number >= 0 (and at most `hi`).
inline CLI::Validator finite_non_negative(double hi = std::numeric_limits<double>::infinity()) {
  return finite_in(0.0, hi);
}

}  // namespace gpurt::cli
