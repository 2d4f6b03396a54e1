#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpurt/core/time.hpp"

using namespace gpurt;

TEST(Time, ParsesTheFourUnits) {
  EXPECT_EQ(parse_time_unit("ns"), TimeUnit::ns);
  EXPECT_EQ(parse_time_unit("us"), TimeUnit::us);
  EXPECT_EQ(parse_time_unit("ms"), TimeUnit::ms);
  EXPECT_EQ(parse_time_unit("s"), TimeUnit::s);
  EXPECT_FALSE(parse_time_unit("µs"));
  EXPECT_FALSE(parse_time_unit("sec"));
  EXPECT_EQ(nanos_per(TimeUnit::ms), 1'000'000);
}

TEST(Time, DecimalFractionsThatBinaryCannotHoldAreNotBumped) {
  // 0.1 us is 100.00000000000001 ns in double arithmetic; it must stay 100 ns even rounding up.
  EXPECT_EQ(to_nanos(0.1, TimeUnit::us, Rounding::up)->count(), 100);
  EXPECT_EQ(to_nanos(0.3, TimeUnit::ms, Rounding::down)->count(), 300'000);
  EXPECT_EQ(to_nanos(11.5, TimeUnit::us, Rounding::up)->count(), 11'500);
  EXPECT_EQ(to_nanos(2.5, TimeUnit::s, Rounding::nearest)->count(), 2'500'000'000);
}

TEST(Time, RealSubNanosecondFractionsRoundInTheRequestedDirection) {
  EXPECT_EQ(to_nanos(1.0005, TimeUnit::us, Rounding::up)->count(), 1001);
  EXPECT_EQ(to_nanos(1.0005, TimeUnit::us, Rounding::down)->count(), 1000);
  EXPECT_EQ(to_nanos(1.4, TimeUnit::ns, Rounding::nearest)->count(), 1);
}

TEST(Time, RejectsValuesThatDoNotFit) {
  EXPECT_FALSE(to_nanos(1e12, TimeUnit::s, Rounding::up));
  EXPECT_FALSE(to_nanos(std::numeric_limits<double>::infinity(), TimeUnit::ns, Rounding::up));
  EXPECT_FALSE(to_nanos(std::nan(""), TimeUnit::ns, Rounding::up));
  // Exponents far past 2^63 ns are refused before scaling (10^200 would wrap a 128-bit product).
  EXPECT_FALSE(to_nanos(1e200, TimeUnit::ns, Rounding::up));
  EXPECT_FALSE(to_nanos(1e30, TimeUnit::s, Rounding::nearest));
  // Negative values have the same bound as positive ones: ±9.2e18 ns fit, beyond does not.
  EXPECT_EQ(to_nanos(-9.2e18, TimeUnit::ns, Rounding::up), Nanos{-9'200'000'000'000'000'000LL});
  EXPECT_EQ(to_nanos(9.2e18, TimeUnit::ns, Rounding::up), Nanos{9'200'000'000'000'000'000LL});
  EXPECT_FALSE(to_nanos(-9.3e18, TimeUnit::ns, Rounding::up));
  EXPECT_FALSE(to_nanos(-1e12, TimeUnit::s, Rounding::up));
}

// Past 2^53 ns a double no longer holds every nanosecond: a bound printed in JSON takes the
// next double up where the nearest is below it, never a smaller time.
TEST(Time, FromNanosUpIsNeverBelowTheExactValue) {
  const Nanos t{18'999'999'999'999'981};
  EXPECT_LT(static_cast<std::int64_t>(from_nanos(t, TimeUnit::ns)), t.count());  // the nearest is below
  EXPECT_GE(static_cast<std::int64_t>(from_nanos_up(t, TimeUnit::ns)), t.count());
  EXPECT_EQ(from_nanos_up(Nanos{1'500'000}, TimeUnit::ms), 1.5);  // exact values are unchanged
  EXPECT_EQ(from_nanos_up(Nanos{1'360'000}, TimeUnit::ms), 1.36);
  // Below 10^15 ns the nearest double prints as the exact decimal, even where it lies below the
  // exact value (170843 ns in us): the next double up would print as 170.84300000000002.
  EXPECT_LT(static_cast<long double>(from_nanos(Nanos{170'843}, TimeUnit::us)), 170843.0L / 1000);
  EXPECT_EQ(fmt::format("{}", from_nanos_up(Nanos{170'843}, TimeUnit::us)), "170.843");
  EXPECT_EQ(fmt::format("{}", from_nanos_up(Nanos{999'999'999'999'999}, TimeUnit::ms)), "999999999.999999");
  const double us = from_nanos_up(t, TimeUnit::us);
  EXPECT_GE(static_cast<long double>(us) * 1000, static_cast<long double>(t.count()));
}

TEST(Time, ConvertsBackForOutput) {
  EXPECT_DOUBLE_EQ(from_nanos(Nanos{9'271'843}, TimeUnit::us), 9271.843);
  EXPECT_DOUBLE_EQ(from_nanos(Nanos{1'500'000}, TimeUnit::ms), 1.5);
  EXPECT_EQ(ceil_div(13250, 19), 698);
  EXPECT_EQ(ceil_div(38, 19), 2);
  EXPECT_EQ(ceil_div(0, 19), 0);
  // No intermediate a + b - 1: the largest int64 divides without wrapping.
  EXPECT_EQ(ceil_div(INT64_MAX, 2), std::int64_t{1} << 62);
}

// The analyses' sums stop at 2^62 ns instead of wrapping past 2^63 (a sum of absurd inputs
// must read as "beyond every deadline", never as a negative bound).
TEST(Time, SaturatingSumsAndProductsStopAtTheUnboundedTime) {
  EXPECT_EQ(kUnboundedTime, Nanos{std::int64_t{1} << 62});
  EXPECT_EQ(saturating_add(Nanos{3}, Nanos{4}), Nanos{7});
  EXPECT_EQ(saturating_add(kUnboundedTime - Nanos{1}, Nanos{1}), kUnboundedTime);
  EXPECT_EQ(saturating_add(kUnboundedTime - Nanos{2}, Nanos{1}), kUnboundedTime - Nanos{1});
  EXPECT_EQ(saturating_add(Nanos{INT64_MAX}, Nanos{INT64_MAX}), kUnboundedTime);
  EXPECT_EQ(saturating_mul(3, Nanos{5}), Nanos{15});
  EXPECT_EQ(saturating_mul(0, Nanos{INT64_MAX}), Nanos{0});
  EXPECT_EQ(saturating_mul(INT64_MAX, Nanos{0}), Nanos{0});
  EXPECT_EQ(saturating_mul(std::int64_t{1} << 31, Nanos{std::int64_t{1} << 31}),
            Nanos{std::int64_t{1} << 62});
  EXPECT_EQ(saturating_mul(std::int64_t{1} << 40, Nanos{std::int64_t{1} << 40}), kUnboundedTime);
  EXPECT_EQ(saturating_mul((std::int64_t{1} << 31) - 1, Nanos{std::int64_t{1} << 31}),
            Nanos{(std::int64_t{1} << 62) - (std::int64_t{1} << 31)});
}

// Output values are the double nearest the exact value, so they print as the shortest decimal
// (issue 17): 1360000 ns is 1.36 ms, not 1.3599999999999999.
TEST(Time, FromNanosIsTheNearestDoubleOfTheExactValue) {
  EXPECT_EQ(gpurt::from_nanos(gpurt::Nanos{1'360'000}, gpurt::TimeUnit::ms), 1.36);
  EXPECT_EQ(fmt::format("{}", gpurt::from_nanos(gpurt::Nanos{1'360'000}, gpurt::TimeUnit::ms)), "1.36");
  EXPECT_EQ(fmt::format("{}", gpurt::from_nanos(gpurt::Nanos{99'999'990'000}, gpurt::TimeUnit::ms)),
            "99999.99");
  EXPECT_EQ(fmt::format("{}", gpurt::from_nanos(gpurt::Nanos{-2'500}, gpurt::TimeUnit::us)), "-2.5");
}

// ceil(n · f) with f the decimal a file writes, exactly; else f's exact binary value.
TEST(Time, ScaleUpIsTheExactCeilingOfTheWrittenFactor) {
  EXPECT_EQ(scale_up(Nanos{5}, 1.4), Nanos{7});        // 1.4 is 1.39999999999999991118 in binary
  EXPECT_EQ(scale_up(Nanos{100}, 1.1), Nanos{110});    // 110.00000000000001 in binary
  EXPECT_EQ(scale_up(Nanos{5}, 1.0000001), Nanos{6});  // 5.0000005
  EXPECT_EQ(scale_up(Nanos{3}, 1.25), Nanos{4});       // 3.75
  EXPECT_EQ(scale_up(Nanos{100'000'000'000'002}, 1.0001), Nanos{100'010'000'000'003});
  EXPECT_EQ(scale_up(Nanos{1'000'000'000'000'000}, 100), Nanos{100'000'000'000'000'000});
  EXPECT_EQ(scale_up(Nanos{0}, 2.5), Nanos{0});
  EXPECT_EQ(scale_up(Nanos{10}, 0), Nanos{0});
  EXPECT_EQ(scale_up(Nanos{7}, 1e-30), Nanos{1});
  EXPECT_EQ(scale_up(Nanos{3}, 1.0 / 3.0), Nanos{1});  // no short decimal: the binary value, < 1/3
  EXPECT_EQ(scale_up(Nanos{9'000'000'000'000'000'000}, 1.01), Nanos{9'090'000'000'000'000'000});
  EXPECT_EQ(scale_up(Nanos{9'000'000'000'000'000'000}, 1.1), std::nullopt);  // past 2^63 - 1
  EXPECT_EQ(scale_up(Nanos{-1}, 1.5), std::nullopt);
  const auto d = short_decimal(1.0001);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->numerator == 10001 && d->scale == 4);
}

// A number as written converts exactly (issue 17): a time read as a double and then scaled was
// one nanosecond above its decimal value, which flipped an RTGPU verdict at R = D.
TEST(Time, WrittenDecimalsConvertExactly) {
  using gpurt::Nanos, gpurt::Rounding, gpurt::TimeUnit, gpurt::to_nanos;
  EXPECT_EQ(to_nanos(99999.99, TimeUnit::ms, Rounding::up), Nanos{99'999'990'000});
  EXPECT_EQ(to_nanos(99999.99, TimeUnit::ms, Rounding::down), Nanos{99'999'990'000});
  EXPECT_EQ(to_nanos(0.1, TimeUnit::s, Rounding::up), Nanos{100'000'000});
  EXPECT_EQ(to_nanos(1.3, TimeUnit::us, Rounding::down), Nanos{1'300});
  // Digits below 1 ns round in the requested direction, from the exact decimal.
  EXPECT_EQ(to_nanos(1.0005, TimeUnit::us, Rounding::up), Nanos{1'001});
  EXPECT_EQ(to_nanos(1.0005, TimeUnit::us, Rounding::down), Nanos{1'000});
  EXPECT_EQ(to_nanos(1.0005, TimeUnit::us, Rounding::nearest), Nanos{1'001});
  EXPECT_EQ(to_nanos(1.0004, TimeUnit::us, Rounding::nearest), Nanos{1'000});
  EXPECT_EQ(to_nanos(-1.0005, TimeUnit::us, Rounding::up), Nanos{-1'000});
  EXPECT_EQ(to_nanos(-1.0005, TimeUnit::us, Rounding::down), Nanos{-1'001});
  EXPECT_EQ(to_nanos(1e-12, TimeUnit::s, Rounding::up), Nanos{1});
  EXPECT_EQ(to_nanos(1e-12, TimeUnit::s, Rounding::down), Nanos{0});
  EXPECT_EQ(to_nanos(2.5e3, TimeUnit::s, Rounding::up), Nanos{2'500'000'000'000});
  EXPECT_FALSE(to_nanos(1e10, TimeUnit::s, Rounding::up).has_value());  // past 9.2e18 ns
  EXPECT_EQ(to_nanos(0.0, TimeUnit::ms, Rounding::up), Nanos{0});
}
