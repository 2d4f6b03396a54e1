// GPUSched speed on the PBS seed's §6.1 task sets (Figure 5a/b): per-set analysis time at
// U = 1 with large slowdowns ([1.7, 1.9]); counters give the median and maximum over the sets.
#include <algorithm>

#include <benchmark/benchmark.h>

#include "gpurt/exp/pbs_sweep.hpp"

namespace {

void BM_GpuSched(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  gpurt::PbsPoint point;
  for (auto _ : state) {
    point = gpurt::pbs_point({.tasks = n, .utilization = 1.0, .slowdown = gpurt::PbsSlowdown::large}, 50,
                             2026 + static_cast<std::uint64_t>(n));
  }
  std::vector<double> t = point.gpusched_seconds;
  std::sort(t.begin(), t.end());
  state.counters["sets"] = static_cast<double>(t.size());
  state.counters["median_ms"] = t.empty() ? 0 : t[t.size() / 2] * 1e3;
  state.counters["max_ms"] = t.empty() ? 0 : t.back() * 1e3;
  state.counters["schedulable"] = point.gpusched;
  state.counters["unknown"] = point.gpusched_unknown;
}
BENCHMARK(BM_GpuSched)->Arg(5)->Arg(6)->Arg(8)->Arg(10)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
