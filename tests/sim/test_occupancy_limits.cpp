// The simulator's per-SM occupancy limits, each as the only binding resource: a test fails when
// the block allocator (model/occupancy, Device::fits) ignores that limit or gets its boundary
// wrong. Shared memory is set as the examiner's stream_action does (shared_memory_size in 4-byte
// words); registers have no examiner field, so that test sets them on the parsed kernels.
#include <fmt/format.h>

#include "sim_helpers.hpp"

using namespace gpurt;
using namespace gpurt::test;

namespace {

// Two stream_action instances (two streams, one context): kernel A released at 0, kernel B at
// 0.1 s, each `blocks` x `threads` for 1 s with `words` 4-byte words of shared memory per block.
std::string two_kernels(int threads, int words) {
  const auto bench = [&](const char* name, double release) {
    return fmt::format(R"({{"filename": "./bin/stream_action.so", "log_name": "{0}.json", "label": "{0}",
        "thread_count": {1}, "block_count": 2, "release_time": {2},
        "additional_info": {{"use_null_stream": false, "actions": [
          {{"type": "kernel", "label": "{0}", "parameters": {{"duration": 1000000000,
            "block_count": 2, "thread_count": {1}, "shared_memory_size": {3}}}}}]}}}})",
                       name, threads, release, words);
  };
  return fmt::format(R"({{"name": "limits", "max_iterations": 1, "max_time": 0, "use_processes": false,
      "benchmarks": [{}, {}]}})",
                     bench("A", 0), bench("B", 0.1));
}

// jetson-tx2: 2 SMs, each 2048 threads, 32 blocks, 65536 registers, 64 KiB shared memory.
Platform tx2() { return ideal_preset("jetson-tx2"); }

void expect_b_starts_at(const SimResult& r, double t) {
  const KernelRecord& a = kernel(r, "A");
  const KernelRecord& b = kernel(r, "B");
  ASSERT_EQ(a.blocks.size(), 2u);
  ASSERT_EQ(b.blocks.size(), 2u);
  for (double start : starts(a)) EXPECT_DOUBLE_EQ(start, 0.0);
  for (double start : starts(b)) EXPECT_DOUBLE_EQ(start, t);
}

}  // namespace

// 10240 words = 40 KiB a block. A puts one block on each SM (round robin), leaving 24 KiB per
// SM; a 40 KiB block of B fits neither, so B's blocks wait for A's to end at 1 s. Threads (128
// of 2048), blocks (2 of 32) and registers (none) never bind.
TEST(OccupancyLimits, SharedMemoryMakesTheSecondKernelWait) {
  const Platform p = tx2();
  ASSERT_EQ(p.sms, 2);
  ASSERT_EQ(p.shared_memory, 64 * 1024);
  const SimResult r = run_text(two_kernels(64, 10240), p);
  EXPECT_EQ(kernel(r, "A").shared_memory, 40 * 1024);
  expect_b_starts_at(r, 1.0);
}

// The boundary: 8192 words = 32 KiB a block, so one block of A and one of B fill an SM's
// 64 KiB exactly, which fits (<=): B starts at its release.
TEST(OccupancyLimits, SharedMemoryFillingAnSmExactlyStillFits) {
  const SimResult r = run_text(two_kernels(64, 8192), tx2());
  EXPECT_EQ(kernel(r, "A").shared_memory, 32 * 1024);
  expect_b_starts_at(r, 0.1);
}

// The register limit's twin: blocks of 256 threads with `per_thread` registers each, no shared
// memory. 160 registers a thread = 40960 a block: with A's block on each SM, 24576 of 65536
// are left and B waits for A; 128 a thread = 32768 a block: two fill an SM exactly and fit.
TEST(OccupancyLimits, RegistersMakeTheSecondKernelWait) {
  const Platform p = tx2();
  ASSERT_EQ(p.registers, 65536);
  const auto run = [&](int per_thread, double b_start) {
    SCOPED_TRACE(fmt::format("{} registers a thread", per_thread));
    Scenario sc = parse_scenario(parse_json(two_kernels(256, 0), "limits.json"), "limits.json", p);
    for (ScenarioInstance& inst : sc.instances) {
      ASSERT_EQ(inst.actions.size(), 1u);
      inst.actions[0].kernel.shape.registers = 256 * per_thread;
    }
    const SimResult r = simulate(sc, p);
    expect_b_starts_at(r, b_start);
  };
  run(160, 1.0);
  run(128, 0.1);
}

// "gpurt_whole_sm": two timer_spin kernels of two 1,024-thread blocks on the tx2's two
// 2,048-thread SMs. Without the key A's blocks (one an SM) leave room for B's, which start at
// their release (0.1 s); with it every block holds an SM's 64 KiB, so B waits for A to end at
// 1 s (examples/calibration/switch.json relies on this on the h100).
TEST(OccupancyLimits, WholeSmBlocksTakeTurnsOnAnSm) {
  const auto config = [](bool whole) {
    const auto bench = [&](const char* name, double release) {
      return fmt::format(R"({{"filename": "./bin/timer_spin.so", "log_name": "{0}.json", "label": "{0}",
          "thread_count": 1024, "block_count": 2, "release_time": {1}, "additional_info": 1000000000,
          "gpurt_whole_sm": {2}}})",
                         name, release, whole);
    };
    return fmt::format(R"({{"name": "whole", "max_iterations": 1, "max_time": 0, "use_processes": false,
        "benchmarks": [{}, {}]}})",
                       bench("A", 0), bench("B", 0.1));
  };
  const SimResult shared = run_text(config(false), tx2());
  expect_b_starts_at(shared, 0.1);
  const SimResult whole = run_text(config(true), tx2());
  EXPECT_EQ(kernel(whole, "A").shared_memory, 64 * 1024);
  expect_b_starts_at(whole, 1.0);
}
