// Simulator throughput: block events per second on a 132-SM H100 with 20 streams of
// many-block kernels (issue target: >= 5 million per second on one core), and memory; the AMD
// dispatch path on the Radeon VII preset.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include "gpurt/core/rng.hpp"
#include "gpurt/sim/simulate.hpp"

namespace {

gpurt::Scenario scenario_on(const char* preset, int streams, int blocks, int iterations) {
  const gpurt::Platform& p = *gpurt::find_platform_preset(preset);
  gpurt::Rng rng(42);
  std::string list;
  for (int i = 0; i < streams; ++i) {
    const int threads = 64 * static_cast<int>(rng.uniform_int(1, 8));
    const auto ns = rng.uniform_int(5'000, 50'000);
    list += fmt::format(R"({}{{"filename": "timer_spin.so", "log_name": "s{}.json", "thread_count": {},
        "block_count": {}, "additional_info": {}}})",
                        i ? ", " : "", i, threads, blocks, ns);
  }
  const std::string config = fmt::format(
      R"({{"name": "perf", "max_iterations": {}, "max_time": 0, "benchmarks": [{}]}})", iterations, list);
  return gpurt::parse_scenario(gpurt::parse_json(config, "perf"), "perf", p);
}

gpurt::Scenario h100_scenario(int streams, int blocks, int iterations) {
  return scenario_on("h100", streams, blocks, iterations);
}

// Counters only (no per-block records): what the engine itself costs.
void BM_SimulateH100_20Streams(benchmark::State& state) {
  const auto scenario = h100_scenario(20, static_cast<int>(state.range(0)), 20);
  const gpurt::Platform& p = *gpurt::find_platform_preset("h100");
  std::uint64_t blocks = 0;
  std::size_t peak = 0;
  for (auto _ : state) {
    const auto r = gpurt::simulate(scenario, p, gpurt::SimulateOptions{false, gpurt::Nanos{0}});
    blocks += r.stats.blocks;
    peak = std::max(peak, r.stats.peak_pending_events);
  }
  // Each block is two events (start, end).
  state.counters["block_events_per_s"] =
      benchmark::Counter(static_cast<double>(2 * blocks), benchmark::Counter::kIsRate);
  state.counters["peak_pending_events"] = static_cast<double>(peak);
}
BENCHMARK(BM_SimulateH100_20Streams)->Arg(256)->Arg(2048)->Unit(benchmark::kMillisecond);

// With full per-block records, as `gpurt simulate` runs.
void BM_SimulateH100_20Streams_Recorded(benchmark::State& state) {
  const auto scenario = h100_scenario(20, static_cast<int>(state.range(0)), 20);
  const gpurt::Platform& p = *gpurt::find_platform_preset("h100");
  std::uint64_t blocks = 0;
  for (auto _ : state) {
    const auto r = gpurt::simulate(scenario, p);
    blocks += r.stats.blocks;
  }
  state.counters["block_events_per_s"] =
      benchmark::Counter(static_cast<double>(2 * blocks), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulateH100_20Streams_Recorded)->Arg(2048)->Unit(benchmark::kMillisecond);

// The same with every mechanism of the performance model on (docs/simulator.md "Performance
// model"): per-SM switch and co-residence costs, spreading, memory bandwidth (every kernel 30 %
// memory-bound) and jitter. Counters only.
// 20 streams of `preset` with every kernel 30 % memory-bound, simulated on `p` (counters only).
void run_full_model(benchmark::State& state, const char* preset, const gpurt::Platform& p) {
  auto scenario = scenario_on(preset, 20, static_cast<int>(state.range(0)), 20);
  for (auto& inst : scenario.instances)
    for (auto& a : inst.actions) a.kernel.memory_fraction = 0.3;
  std::uint64_t blocks = 0;
  for (auto _ : state) {
    const auto r = gpurt::simulate(scenario, p, gpurt::SimulateOptions{false, gpurt::Nanos{0}});
    blocks += r.stats.blocks;
  }
  state.counters["block_events_per_s"] =
      benchmark::Counter(static_cast<double>(2 * blocks), benchmark::Counter::kIsRate);
}

void BM_SimulateH100_20Streams_FullModel(benchmark::State& state) {
  gpurt::Platform p = *gpurt::find_platform_preset("h100");
  p.model.switch_cost = 0.15;
  p.model.coresidence_cost = 0.1;
  p.model.spread_cost = 0.02;
  p.model.memory_bandwidth = 60;
  p.model.jitter = 0.05;
  run_full_model(state, "h100", p);
}
BENCHMARK(BM_SimulateH100_20Streams_FullModel)->Arg(256)->Arg(2048)->Unit(benchmark::kMillisecond);

// The AMD dispatch path (sim/amd_dispatch.cpp) on the radeon-vii preset's calibrated model:
// wavefront-by-wavefront release (up to three wave_end events per block besides its start and
// end, which are not counted), LRU serving, memory bandwidth (every kernel 30 % memory-bound)
// and jitter 0.05. 20 queues of many-block kernels on 60 CUs. Counters only.
void BM_SimulateRadeonVii_20Queues_FullModel(benchmark::State& state) {
  gpurt::Platform p = *gpurt::find_platform_preset("radeon-vii");
  p.model.jitter = 0.05;
  run_full_model(state, "radeon-vii", p);
}
BENCHMARK(BM_SimulateRadeonVii_20Queues_FullModel)->Arg(256)->Arg(2048)->Unit(benchmark::kMillisecond);

}  // namespace
