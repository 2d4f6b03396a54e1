#include <gtest/gtest.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"

#include <algorithm>
#include <cmath>

using namespace gpurt;

namespace {

std::vector<Nanos> us(std::initializer_list<double> values) {
  std::vector<Nanos> out;
  for (double v : values) out.push_back(*to_nanos(v, TimeUnit::us, Rounding::up));
  return out;
}

Platform toy(int sms) {
  Platform p = *find_platform_preset("gtx1070");
  p.id = "toy";
  p.sms = sms;
  p.partition_unit = 1;
  return p;
}

}  // namespace

// FFT/SMLP Example 1: L(i,1) = 9101, L(i,4) = 2501, L(i,5) = 2032, ρ = 1.1:
// A(i,4) = 10004 <= 10011.1 = 1.1·A(i,1), so 4 ∈ S_i; A(i,5) = 10160 > 10011.1, so 5 ∉ S_i.
// L(i,2) and L(i,3) are read off the seed's Fig. 4 shape; the example says S_i = {1, 2, 3, 4}.
TEST(SmlpAllowedSizes, FftSmlpExample1) {
  const auto l = us({9101, 4620, 3170, 2501, 2032, 1760, 1605, 1520, 1495, 1480});
  const auto s = allowed_sizes_by_rho(l, 1.1);
  EXPECT_EQ(s, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_NE(std::find(s.begin(), s.end(), 4), s.end());
  EXPECT_EQ(std::find(s.begin(), s.end(), 5), s.end());
}

TEST(SmlpAllowedSizes, EquationFourIsASetNotAPrefix) {
  // A = 100, 130, 105, 200: size 3 is efficient again although size 2 is not.
  EXPECT_EQ(allowed_sizes_by_rho(us({100, 65, 35, 50}), 1.1), (std::vector<int>{1, 3}));
  EXPECT_EQ(allowed_sizes_by_rho(us({100, 65, 35, 50}), 2.0), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(allowed_sizes_by_rho(us({100, 65, 35, 50}), 1.0), (std::vector<int>{1}));
}

TEST(SmlpAllowedSizes, BoundaryAreaIsAdmittedDespiteBinaryRho) {
  // 1.2 is stored below its decimal value, as 1.1999999999999999556, so ρ·A(1) computed in
  // binary is 1199999.99999999995... ns, just under A(2) = 2·600 µs = 1200000 ns, which equals
  // 1.2·A(1) exactly: eq. (4) compares with ρ as the decimal written. (1.3 would not test this:
  // it is stored above its decimal value, as 1.3000000000000000444.)
  EXPECT_LT(static_cast<long double>(1.2) * 1000000.0L, 1200000.0L);
  EXPECT_EQ(allowed_sizes_by_rho(us({1000, 600}), 1.2), (std::vector<int>{1, 2}));
  EXPECT_EQ(allowed_sizes_by_rho(us({1000, 601}), 1.2), (std::vector<int>{1}));
  // The same with 1.4 (stored as 1.3999999999999999112) and A(2) = 1400 µs.
  EXPECT_EQ(allowed_sizes_by_rho(us({1000, 700}), 1.4), (std::vector<int>{1, 2}));
  EXPECT_EQ(allowed_sizes_by_rho(us({1000, 701}), 1.4), (std::vector<int>{1}));
  // Exact to the nanosecond, with no slack: ρ = 1, L(1) = 10^9 ns, L(7) = 142857143 ns gives
  // A(7) = 1000000001 > A(1): 7 is not allowed (a relative slack of 1e-9 admitted it).
  std::vector<Nanos> l(7, Nanos{1'000'000'000});
  l[6] = Nanos{142'857'143};
  EXPECT_EQ(allowed_sizes_by_rho(l, 1.0), (std::vector<int>{1}));
  l[6] = Nanos{142'857'142};  // A(7) = 999999994
  EXPECT_EQ(allowed_sizes_by_rho(l, 1.0), (std::vector<int>{1, 7}));
  // 1.15 (stored below its decimal) with A(2) = 1150 ns exactly, and 1 ns more.
  EXPECT_EQ(allowed_sizes_by_rho(std::vector<Nanos>{Nanos{1000}, Nanos{575}}, 1.15),
            (std::vector<int>{1, 2}));
  EXPECT_EQ(allowed_sizes_by_rho(std::vector<Nanos>{Nanos{1000}, Nanos{576}}, 1.15), (std::vector<int>{1}));
  // A ρ with more decimals than a file writes falls back to the binary product.
  EXPECT_EQ(allowed_sizes_by_rho(std::vector<Nanos>{Nanos{1000}, Nanos{500}}, 1.0000000000000002),
            (std::vector<int>{1, 2}));
}

TEST(SmlpGrant, LargestAllowedSizeNotAboveFreeUnits) {
  const std::vector<int> allowed{1, 2, 4};
  EXPECT_EQ(smlp_grant(allowed, 0), 0);
  EXPECT_EQ(smlp_grant(allowed, 1), 1);
  EXPECT_EQ(smlp_grant(allowed, 3), 2);
  EXPECT_EQ(smlp_grant(allowed, 4), 4);
  EXPECT_EQ(smlp_grant(allowed, 19), 4);
  EXPECT_EQ(smlp_grant(std::vector<int>{}, 5), 0);
}

// Three tasks on a 4-unit platform, times in ns so the rounding shows.
//   τ1: L = 100, 55, 40, 33; ρ = 1.1 → A = 100, 110, 120, 132; S = {1,2}; L_max 100, A_max 110.
//   τ2: L = 40, 30; S = {1,2} given → A = 40, 60; L_max 40, A_max 60.
//   τ3: L = 10; S = {1}; L_max 10, A_max 10.
// Lemma 1 (H = 4): B1 = ceil((60+10)/4) = ceil(17.5) = 18; B2 = (110+10)/4 = 30;
//                  B3 = ceil((110+60)/4) = ceil(42.5) = 43.
// Lemma 2: R1 = 100+18 = 118 <= 120 ok; R2 = 40+30 = 70 > 69 miss; R3 = 10+43 = 53, no deadline.
TEST(SmlpAnalysis, ThreeTaskSystemComputedByHand) {
  SmlpSystem s;
  s.platform = toy(4);
  s.time_unit = TimeUnit::ns;
  s.tasks = {{"t1", {Nanos{100}, Nanos{55}, Nanos{40}, Nanos{33}}, std::nullopt, std::nullopt, Nanos{120}},
             {"t2", {Nanos{40}, Nanos{30}}, std::nullopt, std::vector<int>{1, 2}, Nanos{69}},
             {"t3", {Nanos{10}}, std::nullopt, std::nullopt, std::nullopt}};
  const SmlpResult r = analyse_smlp(s);
  ASSERT_EQ(r.tasks.size(), 3u);
  EXPECT_EQ(r.units, 4);
  EXPECT_EQ(r.tasks[0].allowed_units, (std::vector<int>{1, 2}));
  EXPECT_EQ(r.tasks[0].l_max, Nanos{100});
  EXPECT_EQ(r.tasks[0].a_max, Nanos{110});
  EXPECT_EQ(r.tasks[0].blocking_bound, Nanos{18});
  EXPECT_EQ(r.tasks[0].response_bound, Nanos{118});
  EXPECT_TRUE(r.tasks[0].schedulable);
  EXPECT_EQ(r.tasks[1].a_max, Nanos{60});
  EXPECT_EQ(r.tasks[1].blocking_bound, Nanos{30});
  EXPECT_EQ(r.tasks[1].response_bound, Nanos{70});
  EXPECT_FALSE(r.tasks[1].schedulable);
  EXPECT_EQ(r.tasks[1].reason, "response bound 70 ns (L_max 40 ns + blocking 30 ns) > deadline 69 ns");
  EXPECT_EQ(r.tasks[2].blocking_bound, Nanos{43});
  EXPECT_EQ(r.tasks[2].response_bound, Nanos{53});
  EXPECT_TRUE(r.tasks[2].schedulable);  // no deadline: does not count
  EXPECT_FALSE(r.schedulable);
  EXPECT_TRUE(r.warnings.empty());

  // ρ override to 1: τ1 keeps only size 1 (A_max 100); τ2's explicit S wins.
  // B2 = (100+10)/4 = 27.5 → 28; R2 = 68 <= 69: now schedulable.
  const SmlpResult o = analyse_smlp(s, SmlpOptions{1.0});
  EXPECT_EQ(o.tasks[0].allowed_units, (std::vector<int>{1}));
  EXPECT_EQ(o.tasks[1].allowed_units, (std::vector<int>{1, 2}));
  EXPECT_EQ(o.tasks[1].response_bound, Nanos{68});
  EXPECT_TRUE(o.schedulable);
}

// Lemma 2's verdict: schedulable iff the bound is <= the deadline, so a bound equal to its
// deadline is schedulable. H = 2, L_a = 30, L_b = 20 (one size each): B_a = 20/2 = 10,
// R_a = 40 = D_a; B_b = 30/2 = 15, R_b = 35 = D_b. One nanosecond less of deadline fails.
TEST(SmlpAnalysis, ResponseBoundEqualToTheDeadlineIsSchedulable) {
  SmlpSystem s;
  s.platform = toy(2);
  s.time_unit = TimeUnit::ns;
  s.tasks = {{"a", {Nanos{30}}, std::nullopt, std::nullopt, Nanos{40}},
             {"b", {Nanos{20}}, std::nullopt, std::nullopt, Nanos{35}}};
  const SmlpResult r = analyse_smlp(s);
  EXPECT_EQ(r.tasks[0].response_bound, Nanos{40});
  EXPECT_EQ(r.tasks[1].response_bound, Nanos{35});
  EXPECT_TRUE(r.tasks[0].schedulable);
  EXPECT_TRUE(r.tasks[1].schedulable);
  EXPECT_TRUE(r.schedulable);
  s.tasks[1].deadline = Nanos{34};
  const SmlpResult late = analyse_smlp(s);
  EXPECT_TRUE(late.tasks[0].schedulable);
  EXPECT_FALSE(late.tasks[1].schedulable);
  EXPECT_FALSE(late.schedulable);
}

TEST(SmlpAnalysis, SingleTaskHasNoBlocking) {
  SmlpSystem s;
  s.platform = toy(2);
  s.tasks = {{"only", us({50, 26}), std::nullopt, std::nullopt, us({76})[0]}};
  const SmlpResult r = analyse_smlp(s);
  EXPECT_EQ(r.tasks[0].blocking_bound, Nanos{0});
  EXPECT_EQ(r.tasks[0].response_bound, us({50})[0]);
  EXPECT_TRUE(r.schedulable);
}

TEST(SmlpAnalysis, WarnsWhenASizeIsMoreEfficientThanOneUnit) {
  SmlpSystem s;
  s.platform = toy(4);
  s.tasks = {{"superlinear", us({100, 40}), std::nullopt, std::nullopt, std::nullopt}};
  const SmlpResult r = analyse_smlp(s);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("A(i,2) < A(i,1)"), std::string::npos);
}

TEST(SmlpAnalysis, RejectsSystemsBuiltInCodeThatBreakTheModel) {
  SmlpSystem s;
  s.platform = toy(2);
  s.tasks = {{"t", us({10, 6, 5}), std::nullopt, std::nullopt, std::nullopt}};
  EXPECT_THROW(analyse_smlp(s), Error);  // 3 WCETs, 2 units
  s.tasks = {{"t", us({10}), std::nullopt, std::vector<int>{2}, std::nullopt}};
  EXPECT_THROW(analyse_smlp(s), Error);  // S without 1
}

// The bundled example's curves were shaped so that eq. (4) with ρ = 1.1 gives the RTX 3060 Ti
// row of the seed's Table I for its input sizes.
TEST(SmlpAnalysis, BundledExampleReproducesTableIRowForRtx3060Ti) {
  const SmlpSystem s = load_smlp_system(GPURT_SOURCE_DIR "/examples/smlp/cufft-rtx3060ti.json");
  const SmlpResult r = analyse_smlp(s);
  EXPECT_EQ(r.units, 19);
  EXPECT_EQ(r.tasks[0].allowed_units, (std::vector<int>{1, 2, 3, 4}));  // 2^24
  EXPECT_EQ(r.tasks[1].allowed_units, (std::vector<int>{1, 2, 3}));     // 2^22
  EXPECT_EQ(r.tasks[2].allowed_units, (std::vector<int>{1, 2, 3}));     // 2^20
  EXPECT_EQ(r.tasks[3].allowed_units, (std::vector<int>{1, 2}));        // 2^18
  EXPECT_EQ(r.tasks[4].allowed_units, (std::vector<int>{1}));           // 2^14
  // Σ A_max = 10004 + 2475 + 609 + 150 + 12 = 13250 us·unit; H = 19.
  // 2^24: blocking = (13250 - 10004)/19 = 170.842105... us → 170843 ns (rounded up).
  EXPECT_EQ(r.tasks[0].blocking_bound, Nanos{170'843});
  EXPECT_EQ(r.tasks[0].response_bound, Nanos{9'271'843});
  // 2^14: blocking = 13238/19 = 696.736842 us → 696737 ns; 708.737 us > 500 us deadline.
  EXPECT_EQ(r.tasks[4].response_bound, Nanos{708'737});
  EXPECT_FALSE(r.tasks[4].schedulable);
  EXPECT_FALSE(r.schedulable);
}

// Cross-check against a direct transcription of the lemmas on random systems.
TEST(SmlpAnalysis, MatchesPlainTranscriptionOnRandomSystems) {
  std::uint64_t state = 99;
  auto next = [&state](int lo, int hi) {
    return lo + static_cast<int>(splitmix64(state) % static_cast<std::uint64_t>(hi - lo + 1));
  };
  for (int trial = 0; trial < 300; ++trial) {
    SmlpSystem s;
    s.platform = toy(next(1, 16));
    const int h = s.platform.units();
    const int n = next(1, 8);
    for (int i = 0; i < n; ++i) {
      SmlpTask t;
      t.name = "t" + std::to_string(i);
      const int len = next(1, h);
      const int l1 = next(10, 100000);
      for (int k = 1; k <= len; ++k)
        t.wcet_by_units.push_back(Nanos{std::int64_t{l1 / k + next(1, l1 / 4 + 1)}});
      t.rho = 1.0 + next(0, 100) / 100.0;
      s.tasks.push_back(t);
    }
    const SmlpResult r = analyse_smlp(s);
    double total = 0;
    std::vector<double> amax;
    for (const SmlpTask& t : s.tasks) {
      double a = 0;
      for (std::size_t k = 1; k <= t.wcet_by_units.size(); ++k) {
        const double area = static_cast<double>(k) * static_cast<double>(t.wcet_by_units[k - 1].count());
        if (k == 1 || area <= static_cast<double>(t.wcet_by_units[0].count()) * *t.rho * (1 + 1e-9))
          a = std::max(a, area);
      }
      amax.push_back(a);
      total += a;
    }
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(static_cast<double>(r.tasks[static_cast<std::size_t>(i)].a_max.count()),
                amax[static_cast<std::size_t>(i)]);
      EXPECT_EQ(r.tasks[static_cast<std::size_t>(i)].blocking_bound.count(),
                static_cast<std::int64_t>(std::ceil((total - amax[static_cast<std::size_t>(i)]) / h)));
    }
  }
}
