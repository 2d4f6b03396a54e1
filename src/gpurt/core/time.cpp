#include "gpurt/core/time.hpp"

#include <time.h>

#include <cmath>
#include <limits>

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

std::optional<Nanos> to_nanos(double value, TimeUnit unit, Rounding rounding) {
  if (!std::isfinite(value)) return std::nullopt;
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

std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace gpurt
