// The gpu backend on a real device (scripts/gpu-check runs these on a lent GPU). Without a
// usable GPU every test here is SKIPPED with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpurt/bench/bench.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/runtime/partition.hpp"

namespace {

// A preset with the device's SM count (masks and lanes must mean the device's SMs). Probed in a
// forked child: a CUDA context in this process would be inherited by the workers a
// use_processes config forks, and CUDA does not survive a fork.
const gpurt::Platform* device_platform(std::string& why) {
  const int sms = gpurt::device_sms_forked(0, why);
  if (sms == 0) return nullptr;
  for (const gpurt::Platform& p : gpurt::platform_presets()) {
    if (p.vendor == gpurt::Vendor::nvidia && p.sms == sms) return &p;
  }
  why = "no preset with " + std::to_string(sms) + " SMs";
  return nullptr;
}

gpurt::Scenario scenario(const std::string& text, const gpurt::Platform& p) {
  return gpurt::parse_scenario(gpurt::parse_json(text, "gpu.json"), "gpu.json", p);
}

class GpuBench : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    _p = device_platform(why);
    if (!_p) GTEST_SKIP() << why;
  }
  const gpurt::Platform* _p = nullptr;
};

TEST_F(GpuBench, TimerSpinMeasuredAgainstSimulated) {
  const auto s = scenario(R"({"name": "spin", "max_iterations": 5, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin", "log_name": "a.json", "thread_count": 256, "block_count": 8,
       "additional_info": 1000000},
      {"filename": "timer_spin", "log_name": "b.json", "thread_count": 512, "block_count": 4,
       "additional_info": 2000000, "release_time": 0.001}]})",
                          *_p);
  const auto measured = gpurt::run_bench(s, *_p, gpurt::BenchBackend::gpu).trace;
  const auto predicted = gpurt::run_bench(s, *_p, gpurt::BenchBackend::sim).trace;
  ASSERT_EQ(measured.instances.size(), 2U);
  EXPECT_FALSE(measured.simulated);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& m = measured.instances[i];
    const auto& q = predicted.instances[i];
    ASSERT_EQ(m.iterations.size(), q.iterations.size());
    const gpurt::Nanos spin = s.instances[i].actions[0].kernel.block_time;
    for (std::size_t k = 0; k < m.iterations.size(); ++k) {
      const auto& mk = m.iterations[k].kernels.at(0);
      ASSERT_EQ(mk.blocks.size(), q.iterations[k].kernels.at(0).blocks.size());
      for (const auto& b : mk.blocks) {
        EXPECT_GE(b.end - b.start, spin);
        EXPECT_LT(b.end - b.start, spin + gpurt::Nanos{500'000});  // spin + 0.5 ms slack
        EXPECT_GE(b.sm, 0);
        EXPECT_LT(b.sm, _p->sms);
        // Clock alignment: the block ran between the launch call and the synchronize.
        EXPECT_GE(b.start, mk.launch_before - gpurt::Nanos{100'000});
        EXPECT_LE(b.end, *mk.sync_after + gpurt::Nanos{100'000});
      }
      // The simulator has no launch overhead: a prediction is a lower bound here.
      const auto me = m.iterations[k].execute_end - m.iterations[k].execute_start;
      const auto qe = q.iterations[k].execute_end - q.iterations[k].execute_start;
      EXPECT_GE(me, qe);
    }
  }
}

TEST_F(GpuBench, SmMaskKeepsEveryBlockInside) {
  // "~0xf": units 0..3 enabled (a set bit disables, ~ inverts: libsmctrl's convention).
  const auto s = scenario(R"({"name": "mask", "max_iterations": 3, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin", "thread_count": 128, "block_count": 64, "additional_info": 200000,
       "sm_mask": "~0xf"}]})",
                          *_p);
  const std::set<int> allowed = [&] {
    std::set<int> a;
    for (std::size_t sm = 0; sm < s.instances[0].sm_mask.size(); ++sm)
      if (s.instances[0].sm_mask[sm]) a.insert(static_cast<int>(sm));
    return a;
  }();
  gpurt::Trace t;
  try {
    t = gpurt::run_bench(s, *_p, gpurt::BenchBackend::gpu).trace;
  } catch (const gpurt::Error& e) {
    GTEST_SKIP() << "no partition backend can express the mask here: " << e.what();
  }
  bool libsmctrl = false;
  for (const auto& b : gpurt::partition_backends()) libsmctrl |= b.name == "libsmctrl" && b.available;
  std::set<int> used;
  for (const auto& it : t.instances[0].iterations)
    for (const auto& b : it.kernels.at(0).blocks) used.insert(b.sm);
  if (libsmctrl) {
    for (int sm : used) EXPECT_TRUE(allowed.count(sm)) << "block on SM " << sm << " outside the mask";
  } else {
    // Green contexts choose which physical SMs form a group: only the count is guaranteed.
    EXPECT_LE(used.size(), allowed.size());
  }
}

// "gpurt_whole_sm": each block reserves the device's largest shared memory a block may hold, so
// no SM runs two of them at once, even where its threads would allow two (the calibration's
// switch config relies on it); and the examiner's sharedmem_timer_spin reserves what it names.
TEST_F(GpuBench, WholeSmBlocksRunOneAnSm) {
  const auto s = scenario(R"({"name": "whole", "max_iterations": 2, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin", "log_name": "w.json", "thread_count": 1024, "block_count": )" +
                              std::to_string(3 * _p->sms) + R"(, "additional_info": 1000000,
       "gpurt_whole_sm": true},
      {"filename": "sharedmem_timer_spin", "log_name": "s.json", "thread_count": 64, "block_count": 2,
       "additional_info": {"duration": 100000, "shared_memory_size": 4096}, "release_time": 0.05}]})",
                          *_p);
  const auto t = gpurt::run_bench(s, *_p, gpurt::BenchBackend::gpu).trace;
  ASSERT_EQ(t.instances.size(), 2U);
  for (const auto& it : t.instances[0].iterations) {
    const auto& k = it.kernels.at(0);
    EXPECT_GT(2 * k.shared_memory, _p->shared_memory) << "a whole-SM block reserves more than half an SM";
    std::map<int, std::vector<std::pair<gpurt::Nanos, gpurt::Nanos>>> by_sm;
    for (const auto& b : k.blocks) by_sm[b.sm].emplace_back(b.start, b.end);
    for (auto& [sm, spans] : by_sm) {
      std::sort(spans.begin(), spans.end());
      for (std::size_t i = 1; i < spans.size(); ++i)
        EXPECT_GE(spans[i].first, spans[i - 1].second) << "two whole-SM blocks at once on SM " << sm;
    }
  }
  EXPECT_EQ(t.instances[1].iterations.at(0).kernels.at(0).shared_memory, 4096 * 4);
}

// Fig. 3.19 on the GPU: a free with no malloc before it (examples/sim/cuda_free.json) is a real
// cudaFree, so it waits for K1's blocks, and the launch of K4 waits for it; the simulator says the
// same. On an H200 the free freed nothing and K4 ran at once, until the gpu backend gave such a
// free a buffer of its own.
TEST_F(GpuBench, FreeWithoutMallocSynchronisesAsSimulated) {
  const auto s = scenario(R"({"name": "free", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin", "label": "K1", "thread_count": 32, "block_count": 1, "additional_info": 200000000},
      {"filename": "stream_action", "label": "K3", "thread_count": 32, "block_count": 1, "release_time": 0.05,
       "additional_info": {"actions": [{"type": "free"}, {"type": "kernel", "parameters": {"duration": 1000000}}]}},
      {"filename": "timer_spin", "label": "K4", "thread_count": 32, "block_count": 1, "additional_info": 1000000,
       "release_time": 0.1}]})",
                          *_p);
  for (const auto backend : {gpurt::BenchBackend::sim, gpurt::BenchBackend::gpu}) {
    const auto t = gpurt::run_bench(s, *_p, backend).trace;
    ASSERT_EQ(t.instances.size(), 3U);
    const auto& k1 = t.instances[0].iterations.at(0).kernels.at(0);
    const auto& k3 = t.instances[1].iterations.at(0).kernels.at(0);
    const auto& k4 = t.instances[2].iterations.at(0).kernels.at(0);
    const gpurt::Nanos k1_end = k1.blocks.at(0).end;
    // K3 is launched after the free returned, which is after K1 ended (K1 runs 200 ms, the free
    // comes at 50 ms); K4's launch (at 100 ms) returns only after the free.
    EXPECT_GE(k3.launch_before, k1_end) << (backend == gpurt::BenchBackend::gpu ? "gpu" : "sim");
    // That another thread's launch waits for the free was seen on a TX2 (Fig. 3.19), not yet on
    // a current GPU: asserted for the simulator, printed for the GPU until measured.
    if (backend == gpurt::BenchBackend::sim) {
      EXPECT_GE(k4.launch_after, k1_end);
    } else {
      std::printf("K4's launch returned %s K1's end\n", k4.launch_after >= k1_end ? "after" : "before");
    }
  }
}

// examples/h200/timelines: the Dissertation's Ch. 3 timelines scaled from a 2-SM TX2 to 132 SMs
// of 2,048 threads (the TX2 configs fit an H200 with room to spare, so on it nothing waited). Each
// instance's first block start in seconds, as the rule gives it.
struct ScaledTimeline {
  const char* config;
  std::vector<double> starts;
};
const ScaledTimeline kScaledTimelines[] = {{"cut_ahead", {0, 1, 1}},  // K3 fits at 0.5 but does not cut ahead
                                           {"greedy", {0, 2}},        // Rule C: K2 after K1's last block
                                           {"concurrent_kernels", {0, 0, 1, 1}},  // Rule B2
                                           {"ordering_prevents", {0, 1}}};

std::vector<double> first_starts(const gpurt::Trace& t) {
  std::vector<double> out;
  for (const auto& inst : t.instances) {
    const auto& blocks = inst.iterations.at(0).kernels.at(0).blocks;
    gpurt::Nanos first = blocks.at(0).start;
    for (const auto& b : blocks) first = std::min(first, b.start);
    out.push_back(static_cast<double>(first.count()) / 1e9);
  }
  return out;
}

gpurt::Scenario scaled_timeline(const char* name, const gpurt::Platform& p) {
  return gpurt::load_scenario(std::string(GPURT_SOURCE_DIR "/examples/h200/timelines/") + name + ".json", p);
}

TEST(ScaledTimelines, TheSimulatorShowsEachRuleOnTheH200Preset) {
  const gpurt::Platform& h200 = *gpurt::find_platform_preset("h200");
  for (const ScaledTimeline& c : kScaledTimelines) {
    const auto t = gpurt::run_bench(scaled_timeline(c.config, h200), h200, gpurt::BenchBackend::sim).trace;
    const std::vector<double> starts = first_starts(t);
    ASSERT_EQ(starts.size(), c.starts.size()) << c.config;
    for (std::size_t i = 0; i < starts.size(); ++i)
      EXPECT_DOUBLE_EQ(starts[i], c.starts[i]) << c.config << " " << i;
  }
}

// The same on a GPU of 132 SMs (an H100 SXM or H200), within launch costs and 20 ms of slack.
// Not yet run on a GPU.
TEST_F(GpuBench, ScaledTimelinesShowEachRule) {
  if (_p->sms != 132) GTEST_SKIP() << "the scaled timelines are for 132 SMs, this GPU has " << _p->sms;
  for (const ScaledTimeline& c : kScaledTimelines) {
    const auto t = gpurt::run_bench(scaled_timeline(c.config, *_p), *_p, gpurt::BenchBackend::gpu).trace;
    const std::vector<double> starts = first_starts(t);
    ASSERT_EQ(starts.size(), c.starts.size()) << c.config;
    const double zero = starts[0];
    for (std::size_t i = 0; i < starts.size(); ++i)
      EXPECT_NEAR(starts[i] - zero, c.starts[i], 0.02) << c.config << " " << i;
  }
}

// What EveryPluginRunsInProcesses checks, as a message ("" when every check holds).
std::string check_every_plugin_in_processes(const gpurt::Platform& p) {
  const auto s = scenario(R"({"name": "all", "max_iterations": 2, "max_time": 0, "use_processes": true,
      "sync_every_iteration": true, "do_warmup": true, "benchmarks": [
      {"filename": "counter_spin", "thread_count": 64, "block_count": 4, "additional_info": 10000},
      {"filename": "multikernel", "thread_count": 0, "block_count": 0, "additional_info": [
        {"kernel_label": "K1", "duration": 100000, "block_count": 2, "thread_count": 64},
        {"kernel_label": "K2", "duration": 100000, "block_count": 3, "thread_count": 64, "delay": 0.0001}]},
      {"filename": "stream_action", "thread_count": 64, "block_count": 2, "additional_info": {"actions": [
        {"type": "malloc", "parameters": {"size": 4096}},
        {"type": "memcpy", "parameters": {"size": 65536, "direction": "hostToDevice"}},
        {"type": "kernel", "parameters": {"duration": 100000}},
        {"type": "synchronize"},
        {"type": "free"}]}},
      {"filename": "matrix_multiply", "thread_count": 256, "block_count": 1,
       "additional_info": {"matrix_width": 256}},
      {"filename": "random_walk", "thread_count": 32, "block_count": 2, "data_size": 1048576,
       "additional_info": 1000},
      {"filename": "cufft", "thread_count": 1, "block_count": 1, "additional_info": {"size": 4096}}]})",
                          p);
  const auto t = gpurt::run_bench(s, p, gpurt::BenchBackend::gpu).trace;
  if (t.instances.size() != 6U) return "instances: " + std::to_string(t.instances.size());
  const std::size_t kernels[] = {1, 2, 1, 1, 1, 1};
  const std::size_t blocks[] = {4, 2, 2, 256, 2, 0};
  for (std::size_t i = 0; i < 6; ++i) {
    const std::string plugin = s.instances[i].plugin;
    if (t.instances[i].iterations.size() != 2U) return plugin + ": iterations";
    const auto& it = t.instances[i].iterations[0];
    if (it.kernels.size() != kernels[i]) return plugin + ": kernels " + std::to_string(it.kernels.size());
    if (it.kernels[0].blocks.size() != blocks[i])
      return plugin + ": blocks " + std::to_string(it.kernels[0].blocks.size());
    if (!it.kernels[0].sync_after.has_value()) return plugin + ": no sync_after";
  }
  return "";
}

// The workers of a use_processes config are forked, and CUDA does not survive a fork: the other
// GpuBench tests leave a CUDA context in this process, so the bench runs in a fresh one (a
// "threadsafe" death test re-executes this program for the statement; on an H200 the in-process
// run failed with "cudaSetDevice: initialization error" after TimerSpinMeasuredAgainstSimulated).
TEST_F(GpuBench, EveryPluginRunsInProcesses) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const gpurt::Platform& p = *_p;
  EXPECT_EXIT(
      {
        std::string why;
        try {
          why = check_every_plugin_in_processes(p);
        } catch (const std::exception& e) {
          why = e.what();
        }
        std::fprintf(stderr, "%s\n", why.empty() ? "all checks hold" : why.c_str());
        std::exit(why.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "all checks hold");
}

}  // namespace
