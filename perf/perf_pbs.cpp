// GPUSched speed on the PBS seed's §6.1 task sets (Figure 5a/b): per-set analysis time at
// U = 1 with large slowdowns ([1.7, 1.9]); counters give the median and maximum over the sets.
// BM_GpuSched is the default search (stops at the first schedule: the time to a verdict);
// BM_GpuSchedExploreAll finds the earliest-ending table (--explore-all: branch and bound on the
// table's end); BM_GpuSchedWholeGraph builds the whole graph (--whole-graph), the work the
// seed's Figure 5 times.
#include <algorithm>

#include <benchmark/benchmark.h>

#include "gpurt/exp/pbs_sweep.hpp"

namespace {

void report(benchmark::State& state, std::vector<double> t, int schedulable, int unknown) {
  std::sort(t.begin(), t.end());
  state.counters["sets"] = static_cast<double>(t.size());
  state.counters["median_ms"] = t.empty() ? 0 : t[t.size() / 2] * 1e3;
  state.counters["p90_ms"] = gpurt::quantile(t, 0.9) * 1e3;
  state.counters["max_ms"] = t.empty() ? 0 : t.back() * 1e3;
  state.counters["schedulable"] = schedulable;
  state.counters["unknown"] = unknown;
}

void BM_GpuSched(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  gpurt::PbsPoint point;
  for (auto _ : state) {
    point = gpurt::pbs_point({.tasks = n, .utilization = 1.0, .slowdown = gpurt::PbsSlowdown::large}, 50,
                             2026 + static_cast<std::uint64_t>(n));
  }
  report(state, point.gpusched_seconds, point.gpusched, point.gpusched_unknown);
}
BENCHMARK(BM_GpuSched)->Arg(5)->Arg(6)->Arg(8)->Arg(10)->Iterations(1)->Unit(benchmark::kMillisecond);

// The same 50 sets per task count as BM_GpuSched, each searched for its earliest-ending table
// (whole: every vertex explored), 5 M vertex cap.
void explore(benchmark::State& state, bool whole) {
  const int n = static_cast<int>(state.range(0));
  std::vector<double> seconds;
  int schedulable = 0, unknown = 0;
  for (auto _ : state) {
    seconds.clear();
    schedulable = unknown = 0;
    const gpurt::Rng root(2026 + static_cast<std::uint64_t>(n));
    for (int i = 0; i < 50; ++i) {
      gpurt::Rng rng = root.fork(static_cast<std::uint64_t>(i));
      const auto system = gpurt::generate_pbs_system(
          rng, {.tasks = n, .utilization = 1.0, .slowdown = gpurt::PbsSlowdown::large});
      if (!system) continue;
      const gpurt::PbsResult r =
          gpurt::analyse_pbs(*system, {.explore_all = true, .whole_graph = whole, .max_vertices = 5'000'000});
      seconds.push_back(r.stats.seconds);
      schedulable += r.schedulable ? 1 : 0;
      unknown += r.complete ? 0 : 1;
    }
  }
  report(state, seconds, schedulable, unknown);
}
void BM_GpuSchedExploreAll(benchmark::State& state) { explore(state, false); }
void BM_GpuSchedWholeGraph(benchmark::State& state) { explore(state, true); }
BENCHMARK(BM_GpuSchedExploreAll)->Arg(5)->Arg(8)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuSchedWholeGraph)->Arg(5)->Arg(8)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
