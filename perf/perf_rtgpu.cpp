// RTGPU allocation searches on an H100-sized GPU: 132 physical SMs (264 virtual), 20 tasks.
#include <benchmark/benchmark.h>

#include <numeric>

#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/rng.hpp"

namespace {

using gpurt::Nanos;

Nanos ms(double v) { return Nanos{static_cast<std::int64_t>(v * 1e6)}; }

// 20 tasks of m = 3 segments whose GPU work (600..1800 ms on one virtual SM, α 1.5) only fits
// the deadline on several SMs each, so the exact search has real work: the least allocation
// uses most of the 132 SMs. Deadline-monotonic priorities; D = T.
gpurt::RtgpuSystem gpu_heavy_system(int n) {
  gpurt::Rng rng(20);
  gpurt::RtgpuSystem s;
  s.platform = *gpurt::find_platform_preset("h100");
  s.platform.partition_unit = 1;
  s.time_unit = gpurt::TimeUnit::ms;
  for (int i = 0; i < n; ++i) {
    gpurt::RtgpuTask t;
    t.name = "t" + std::to_string(i + 1);
    for (int j = 0; j < 3; ++j) {
      const Nanos c = ms(rng.uniform(0.2, 1.0));
      t.cpu.push_back({c / 2, c});
    }
    for (int j = 0; j < 4; ++j) {
      const Nanos c = ms(rng.uniform(0.1, 0.4));
      t.copy.push_back({c / 2, c});
    }
    for (int j = 0; j < 2; ++j) {
      const Nanos w = ms(rng.uniform(600, 1800));
      t.gpu.push_back({{w / 2, w}, w / 20, 1.5});
    }
    t.period = t.deadline = ms(rng.uniform(400, 800));
    s.tasks.push_back(std::move(t));
  }
  std::vector<std::size_t> idx(s.tasks.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return s.tasks[a].deadline < s.tasks[b].deadline; });
  for (std::size_t r = 0; r < idx.size(); ++r) s.tasks[idx[r]].priority = static_cast<int>(r + 1);
  return s;
}

void run(benchmark::State& state, gpurt::RtgpuSearch search) {
  const auto system = gpu_heavy_system(static_cast<int>(state.range(0)));
  gpurt::RtgpuResult r;
  for (auto _ : state) {
    r = gpurt::analyse_rtgpu(system, {gpurt::RtgpuMethod::rtgpu, search});
    benchmark::DoNotOptimize(r);
  }
  int used = 0;
  for (const auto& t : r.tasks) used += t.physical_sms;
  state.counters["schedulable"] = r.schedulable ? 1 : 0;
  state.counters["sms_used"] = used;
  state.counters["analyses"] = static_cast<double>(r.allocations_tried);
}

void BM_RtgpuExact(benchmark::State& state) { run(state, gpurt::RtgpuSearch::exact); }
void BM_RtgpuGreedy(benchmark::State& state) { run(state, gpurt::RtgpuSearch::greedy); }

}  // namespace

BENCHMARK(BM_RtgpuExact)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RtgpuGreedy)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
