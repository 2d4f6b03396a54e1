#include "gpurt/core/time.hpp"

#include <time.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace gpurt {

std::optional<TimeUnit> parse_time_unit(std::string_view text) {
  if (text == "ns") return TimeUnit::ns;
  if (text == "us") return TimeUnit::us;
  if (text == "ms") return TimeUnit::ms;
  if (text == "s") return TimeUnit::s;
  return std::nullopt;
}

std::string_view to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::ns:
      return "ns";
    case TimeUnit::us:
      return "us";
    case TimeUnit::ms:
      return "ms";
    case TimeUnit::s:
      return "s";
  }
  return "?";
}

std::int64_t nanos_per(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::ns:
      return 1;
    case TimeUnit::us:
      return 1'000;
    case TimeUnit::ms:
      return 1'000'000;
    case TimeUnit::s:
      return 1'000'000'000;
  }
  return 1;
}

namespace {

// `value` as the decimal it was written as: the shortest decimal that reads back as `value`
// (what fmt prints), as digits × 10^exponent. nullopt when that decimal has more than 15
// significant digits: then `value` is the result of arithmetic, not text a user wrote.
struct Decimal {
  std::int64_t digits = 0;  ///< signed
  int exponent = 0;
};
std::optional<Decimal> written_decimal(double value) {
  const std::string text = fmt::format("{}", value);
  Decimal d;
  bool negative = false, dot = false;
  int significant = 0, after_dot = 0;
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') negative = true, ++i;
  for (; i < text.size() && text[i] != 'e'; ++i) {
    if (text[i] == '.') {
      dot = true;
      continue;
    }
    if (d.digits == 0 && text[i] == '0') {
      if (dot) ++after_dot;
      continue;
    }
    if (++significant > 15) return std::nullopt;
    d.digits = d.digits * 10 + (text[i] - '0');
    if (dot) ++after_dot;
  }
  d.exponent = -after_dot;
  if (i < text.size()) d.exponent += std::stoi(text.substr(i + 1));
  if (negative) d.digits = -d.digits;
  return d;
}

}  // namespace

std::optional<Nanos> to_nanos(double value, TimeUnit unit, Rounding rounding) {
  if (!std::isfinite(value)) return std::nullopt;
  // A number as written (at most 15 significant digits) converts exactly, rounding in the
  // requested direction only for digits below 1 ns: 99999.99 ms is 99999990000 ns, not one more.
  if (const auto d = written_decimal(value)) {
    int e = d->exponent;
    for (std::int64_t per = nanos_per(unit); per > 1; per /= 10) ++e;
    if (d->digits == 0) return Nanos{0};
    if (e >= 0) {
      if (e > 18) return std::nullopt;
      __extension__ __int128 ns = d->digits;
      for (int k = 0; k < e; ++k) ns *= 10;
      if (ns > 9'200'000'000'000'000'000LL || ns < -9'200'000'000'000'000'000LL) return std::nullopt;
      return Nanos{static_cast<std::int64_t>(ns)};
    }
    std::int64_t divisor = 1;
    for (int k = 0; k < -e && divisor <= std::numeric_limits<std::int64_t>::max() / 10; ++k) divisor *= 10;
    if (-e > 18) divisor = 0;  // far below 1 ns: the quotient is 0 with a nonzero remainder
    const std::int64_t q = divisor == 0 ? 0 : d->digits / divisor;
    const bool rest = divisor == 0 || d->digits % divisor != 0;
    if (!rest) return Nanos{q};
    const bool up = rounding == Rounding::up || (rounding == Rounding::nearest && divisor != 0 &&
                                                 2 * std::abs(d->digits % divisor) >= divisor);
    // Rounding toward +inf (up) / -inf (down) from the exact decimal; q truncated toward 0.
    if (d->digits > 0) return Nanos{up ? q + 1 : q};
    return Nanos{rounding == Rounding::down || (rounding == Rounding::nearest && up) ? q - 1 : q};
  }
  const long double exact = static_cast<long double>(value) * static_cast<long double>(nanos_per(unit));
  // 2^63 ns is about 292 years; anything near it is a mistake in the file.
  constexpr long double limit = 9.2e18L;
  if (exact > limit || exact < -limit) return std::nullopt;
  const long double nearest = std::nearbyint(exact);
  long double whole = nearest;
  if (std::fabs(exact - nearest) > 1e-6L) {
    switch (rounding) {
      case Rounding::up:
        whole = std::ceil(exact);
        break;
      case Rounding::down:
        whole = std::floor(exact);
        break;
      case Rounding::nearest:
        whole = nearest;
        break;
    }
  }
  return Nanos{static_cast<std::int64_t>(whole)};
}

double from_nanos(Nanos t, TimeUnit unit) {
  const std::int64_t per = nanos_per(unit);
  // Below 2^53 both operands are exact doubles, so one correctly rounded division gives the
  // double nearest the exact value (1360000 ns -> 1.36 ms, which prints as "1.36"); q + r/per
  // would round twice (1.3599999999999999).
  constexpr std::int64_t exact = std::int64_t{1} << 53;
  if (t.count() > -exact && t.count() < exact)
    return static_cast<double>(t.count()) / static_cast<double>(per);
  const std::int64_t q = t.count() / per;
  const std::int64_t r = t.count() % per;
  return static_cast<double>(q) + static_cast<double>(r) / static_cast<double>(per);
}

double from_nanos_up(Nanos t, TimeUnit unit) {
  const double d = from_nanos(t, unit);
  // Below 10^15 ns the exact value has at most 15 significant digits in any unit, so the nearest
  // double prints (shortest round trip) as exactly that decimal: nothing to round up. The next
  // double up would print as 170.84300000000002 for 170843 ns in us.
  if (t.count() > -1'000'000'000'000'000 && t.count() < 1'000'000'000'000'000) return d;
  const std::int64_t per = nanos_per(unit);
  if (per == 1) {  // exact comparison in 128 bits
    __extension__ const __int128 back = static_cast<__int128>(d);
    return back < t.count() ? std::nextafter(d, std::numeric_limits<double>::infinity()) : d;
  }
  // The quotient in long double (64-bit mantissa on x86-64) is far closer than d's rounding.
  const long double exact = static_cast<long double>(t.count()) / static_cast<long double>(per);
  return static_cast<long double>(d) < exact ? std::nextafter(d, std::numeric_limits<double>::infinity()) : d;
}

std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::optional<ShortDecimal> short_decimal(double x) {
  if (!std::isfinite(x) || x < 0) return std::nullopt;
  const std::string text = fmt::format("{}", x);  // shortest round trip: "1.15", "2", "1e+20", "5e-07"
  __extension__ typedef unsigned __int128 Wide;
  Wide num = 0;
  int scale = 0, digits = 0, exponent = 0;
  bool fraction = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      fraction = true;
    } else if (c >= '0' && c <= '9') {
      if (++digits > 17) return std::nullopt;
      num = num * 10 + static_cast<unsigned>(c - '0');
      if (fraction) ++scale;
    } else if (c == 'e') {
      exponent = std::stoi(text.substr(i + 1));
      break;
    } else {
      return std::nullopt;
    }
  }
  scale -= exponent;
  for (; scale < 0; ++scale) {
    if (num > Wide{1} << 100) return std::nullopt;
    num *= 10;
  }
  if (scale > 12) return std::nullopt;
  return ShortDecimal{num, scale};
}

std::optional<Nanos> scale_up(Nanos n, double factor) {
  __extension__ typedef unsigned __int128 Wide;
  if (n.count() < 0 || !std::isfinite(factor) || factor < 0) return std::nullopt;
  constexpr Wide kMax = static_cast<Wide>(std::numeric_limits<std::int64_t>::max());
  const Wide count = static_cast<Wide>(n.count());
  // factor = num / 2^shift · 10^-scale: a short decimal, or the double's exact binary value.
  Wide num = 0, den = 1;
  if (const auto d = short_decimal(factor)) {
    num = d->numerator;
    for (int i = 0; i < d->scale; ++i) den *= 10;
  } else {
    int e = 0;
    const double m = std::frexp(factor, &e);  // factor = m · 2^e, m in [0.5, 1)
    num = static_cast<Wide>(std::ldexp(m, 53));
    e -= 53;
    if (e >= 0) {
      if (e > 70) return count == 0 ? std::optional<Nanos>(Nanos{0}) : std::nullopt;
      num <<= e;
    } else if (-e >= 127) {
      // factor < 2^-74: n · factor < 2^-11, so the ceiling is 1 unless a side is 0.
      return Nanos{count != 0 && num != 0 ? 1 : 0};
    } else {
      den = Wide{1} << -e;
    }
  }
  if (num != 0 && count > (~Wide{0}) / num) return std::nullopt;
  const Wide product = count * num;
  const Wide whole = product / den + (product % den != 0 ? 1 : 0);
  if (whole > kMax) return std::nullopt;
  return Nanos{static_cast<std::int64_t>(whole)};
}

}  // namespace gpurt
