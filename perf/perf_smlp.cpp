// How long the SMLP analysis takes as systems grow (N tasks on an H100's 66 TPC units).
#include <benchmark/benchmark.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/rng.hpp"

namespace {

gpurt::SmlpSystem random_system(int n) {
  gpurt::Rng rng(static_cast<std::uint64_t>(n));
  gpurt::SmlpSystem s;
  s.platform = *gpurt::find_platform_preset("h100");
  const int h = s.platform.units();
  for (int i = 0; i < n; ++i) {
    gpurt::SmlpTask t;
    t.name = "t" + std::to_string(i);
    const auto l1 = rng.uniform_int(1'000, 10'000'000);
    for (int k = 1; k <= h; ++k) {
      t.wcet_by_units.push_back(gpurt::Nanos{l1 / k + rng.uniform_int(1, l1 / 10 + 1)});
    }
    t.deadline = gpurt::Nanos{l1 * 4};
    s.tasks.push_back(std::move(t));
  }
  return s;
}

void BM_AnalyseSmlp(benchmark::State& state) {
  const auto system = random_system(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(gpurt::analyse_smlp(system));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_AnalyseSmlp)->RangeMultiplier(4)->Range(4, 4096)->Complexity();

}  // namespace

BENCHMARK_MAIN();
