// GPU partition costs (run by scripts/gpu-check on a machine with a GPU; without one every
// benchmark reports SkipWithError and the reason):
//   BM_PartitionSwitch   a kernel alternately on two cached partitions' streams, vs one stream
//   BM_StreamCreate      the first stream(mask) of a unit set (green context creation)
//   BM_PinnedOverhead    persistent-thread pinning to half the SMs vs the same work unpinned
#include <benchmark/benchmark.h>

#include "gpurt/runtime/gpu_probe.hpp"
#include "gpurt/runtime/partition.hpp"

namespace {

gpurt_mask units(int from, int count) {
  gpurt_mask m{};
  for (int u = from; u < from + count; ++u) m.bits[u / 64] |= std::uint64_t{1} << (u % 64);
  return m;
}

std::unique_ptr<gpurt::Partitioner> open(benchmark::State& state, gpurt::PartitionKind kind) {
  try {
    auto p = gpurt::make_partitioner(kind);
    if (p->units() < 2) {
      state.SkipWithError("fewer than 2 units");
      return nullptr;
    }
    return p;
  } catch (const gpurt::Error& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

// range(0): 1 = alternate between two partitions, 0 = stay on one.
void BM_PartitionSwitch(benchmark::State& state) {
  auto p = open(state, static_cast<gpurt::PartitionKind>(state.range(1)));
  if (!p) return;
  const gpurt_mask a = units(0, 1), b = units(1, 1);
  gpurt::SmidProbe probe(1);
  bool flip = false;
  for (auto _ : state) {
    probe.launch(p->stream(flip && state.range(0) == 1 ? b : a), 32, 0);
    probe.collect();
    flip = !flip;
  }
}
BENCHMARK(BM_PartitionSwitch)
    ->ArgsProduct({{0, 1}, {static_cast<int>(gpurt::PartitionKind::green_context)}})
    ->Unit(benchmark::kMicrosecond);

void BM_StreamCreate(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto p = open(state, gpurt::PartitionKind::green_context);
    if (!p) return;
    state.ResumeTiming();
    benchmark::DoNotOptimize(p->stream(units(0, 1)));
    state.PauseTiming();
    p.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_StreamCreate)->Iterations(20)->Unit(benchmark::kMicrosecond);

void BM_PinnedOverhead(benchmark::State& state) {
  auto p = open(state, gpurt::PartitionKind::persistent_threads);
  if (!p) return;
  const int sms = p->units();
  const gpurt_mask half = units(0, sms / 2);
  constexpr int kItems = 4096;
  constexpr std::int64_t kWorkNs = 5'000;
  double pinned = 0, unpinned = 0;
  for (auto _ : state) {
    const auto run =
        gpurt::run_pinned_probe(p->device_mask(half), sms, 4, 128, kItems, kWorkNs, p->stream(half));
    pinned = run.elapsed_ns;
    // The same work on the same number of SMs without pinning (half the blocks, no mask).
    unpinned = gpurt::run_unpinned_reference(sms / 2, 4, 128, kItems, kWorkNs, p->stream(half));
    state.SetIterationTime(pinned * 1e-9);
  }
  state.counters["pinned_us"] = pinned / 1e3;
  state.counters["unpinned_us"] = unpinned / 1e3;
  state.counters["overhead_pct"] = unpinned > 0 ? (pinned / unpinned - 1) * 100 : 0;
}
BENCHMARK(BM_PinnedOverhead)->UseManualTime()->Iterations(10)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
