// The forms of cuda_scheduling_examiner configs that gpurt once refused (issue 16), one config
// each in examples/examiner/ (written for gpurt in the examiner's style), each simulated and
// checked against a number worked out by hand; and the bounds that keep a run finite and its
// times within 64 bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "gpurt/core/error.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/sim/simulate.hpp"

using namespace gpurt;

namespace {

// 28 SMs of one SM per mask unit, 2048 threads and 96 KiB of shared memory per SM; the ideal
// performance model, so every block runs exactly its isolated time.
const Platform& gtx1080ti() {
  static const Platform p = [] {
    Platform q = *find_platform_preset("gtx1080ti");
    q.model = PerfParams{};
    return q;
  }();
  return p;
}

Scenario load(const std::string& name) {
  return parse_scenario(load_json_file(std::string(GPURT_SOURCE_DIR) + "/examples/examiner/" + name), name,
                        gtx1080ti());
}

Trace run(const std::string& name) { return simulate(load(name), gtx1080ti()).trace; }

constexpr Nanos ms(std::int64_t v) { return Nanos{v * 1'000'000}; }
constexpr Nanos us(std::int64_t v) { return Nanos{v * 1'000}; }

bool any_warning(const Scenario& s, const std::string& text) {
  return std::any_of(s.warnings.begin(), s.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

}  // namespace

TEST(ExaminerCorpus, RandomWalkWithoutAdditionalInfoWalksTheDefault) {
  const Trace t = run("random_walk_default.json");
  ASSERT_EQ(t.instances.size(), 1u);
  ASSERT_EQ(t.instances[0].iterations.size(), 2u);
  const auto& b = t.instances[0].iterations[1].kernels.at(0).blocks.at(0);
  EXPECT_EQ(b.end - b.start, us(500));  // 1000 reads x 500 ns
  EXPECT_EQ(b.start, us(500));          // the second iteration follows the first
}

// timer_spin and counter_spin without additional_info take the examiner's defaults (10 ms;
// 10^6 iterations at the default 1 ns each), and numbered comment keys ("comment_1") pass as the
// examiner's prefix match lets them.
TEST(ExaminerCorpus, SpinPluginsWithoutAdditionalInfoSpinTheDefault) {
  const Trace t = run("spin_defaults.json");
  ASSERT_EQ(t.instances.size(), 2u);
  const auto& timer = t.instances[0].iterations.at(0).kernels.at(0).blocks.at(0);
  EXPECT_EQ(timer.end - timer.start, ms(10));
  const auto& counter = t.instances[1].iterations.at(0).kernels.at(0).blocks.at(0);
  EXPECT_EQ(counter.end - counter.start, ms(1));
  EXPECT_EQ(counter.start, ms(20));  // released at 0.02 s, after the timer's 10 ms
}

TEST(ExaminerCorpus, MultikernelTakesMasksCopiesSharedMemoryAndDelays) {
  const Trace t = run("multikernel_keys.json");
  const auto& kernels = t.instances.at(0).iterations.at(0).kernels;
  ASSERT_EQ(kernels.size(), 2u);
  // K1 waits for its copy in: 12 MB at 12 GB/s = 1 ms; its own mask "~0x3" allows SMs 0 and 1.
  EXPECT_EQ(kernels[0].shared_memory, 16384);
  for (const auto& b : kernels[0].blocks) {
    EXPECT_EQ(b.start, ms(1));
    EXPECT_LT(b.sm, 2);
  }
  // K2's delay first synchronizes the stream (K1 ends at 101 ms), then sleeps 0.2 s.
  EXPECT_EQ(kernels[1].blocks.at(0).start, ms(301));
  // Its copy out (1 ms) ends the iteration.
  EXPECT_EQ(t.instances[0].iterations[0].execute_end, ms(352));
}

TEST(ExaminerCorpus, MaskBitsBeyondTheGpuAreIgnoredWithAWarning) {
  const Scenario s = load("sm_mask_extra_bits.json");
  EXPECT_TRUE(any_warning(s, "benchmarks[0].sm_mask = \"0xfffffffffffffff0\": names unit 28 but gtx1080ti"));
  const Trace t = simulate(s, gtx1080ti()).trace;
  const auto& blocks = t.instances.at(0).iterations.at(0).kernels.at(0).blocks;
  ASSERT_EQ(blocks.size(), 8u);
  for (const auto& b : blocks) {
    EXPECT_LT(b.sm, 4);  // TPCs 0..3: two 1024-thread blocks each, one wave
    EXPECT_EQ(b.start, Nanos{0});
  }
  // A mask that enables no TPC the GPU has stays an error.
  Json doc = load_json_file(std::string(GPURT_SOURCE_DIR) + "/examples/examiner/sm_mask_extra_bits.json");
  doc["benchmarks"][0]["sm_mask"] = "0xffffffffffffffff";
  EXPECT_THROW(parse_scenario(doc, "m.json", gtx1080ti()), InputError);
}

TEST(ExaminerCorpus, SharedmemTimerSpinHoldsItsSharedMemory) {
  // 40 KiB blocks on one 96 KiB SM: two at a time, so the 8th block starts at 3 s.
  const Trace t = run("sharedmem_timer_spin.json");
  const auto& blocks = t.instances.at(0).iterations.at(0).kernels.at(0).blocks;
  ASSERT_EQ(blocks.size(), 8u);
  Nanos last{0};
  for (const auto& b : blocks) last = std::max(last, b.start);
  EXPECT_EQ(last, ms(3000));
}

TEST(ExaminerCorpus, MandelbrotSizesItsGridFromTheImage) {
  // 256x256 points / 1024 threads = 64 blocks of 2000 iterations x 20 ns = 40 us; 56 fit at once.
  const Trace t = run("mandelbrot.json");
  const auto& k = t.instances.at(0).iterations.at(0).kernels.at(0);
  EXPECT_EQ(k.block_count, 64);
  ASSERT_EQ(k.blocks.size(), 64u);
  Nanos end{0};
  for (const auto& b : k.blocks) {
    EXPECT_EQ(b.end - b.start, us(40));
    end = std::max(end, b.end);
  }
  EXPECT_EQ(end, us(80));
}

TEST(ExaminerCorpus, CpuRandomWalkIsHostWorkAndInorderWalkAKernel) {
  const Trace t = run("cpu_and_inorder_walk.json");
  const auto& cpu = t.instances.at(0);
  ASSERT_EQ(cpu.iterations.size(), 3u);
  EXPECT_TRUE(cpu.iterations[2].kernels.empty());
  EXPECT_EQ(cpu.iterations[2].execute_start, ms(200));  // 10^6 reads x 100 ns an iteration
  EXPECT_EQ(cpu.iterations[2].execute_end, ms(300));
  const auto& b = t.instances.at(1).iterations.at(0).kernels.at(0).blocks.at(0);
  EXPECT_EQ(b.end - b.start, ms(1));  // 2000 reads x 500 ns
}

TEST(ExaminerCorpus, StringNumbersAreReadAsTheOlderExaminerDidWithAWarning) {
  const Scenario s = load("string_numbers.json");
  EXPECT_TRUE(any_warning(s, "benchmarks[0].additional_info = \"250000000\": a number written as a string"));
  EXPECT_TRUE(any_warning(s, "benchmarks[1].additional_info = \"4000\""));
  const Trace t = simulate(s, gtx1080ti()).trace;
  const auto& b = t.instances.at(0).iterations.at(0).kernels.at(0).blocks.at(0);
  EXPECT_EQ(b.end - b.start, ms(250));
  const auto& w = t.instances.at(1).iterations.at(0).kernels.at(0).blocks.at(0);
  EXPECT_EQ(w.end - w.start, ms(2));  // 4000 reads x 500 ns
  // Anything but decimal digits stays an error.
  Json doc = load_json_file(std::string(GPURT_SOURCE_DIR) + "/examples/examiner/string_numbers.json");
  doc["benchmarks"][0]["additional_info"] = "2.5e8";
  EXPECT_THROW(parse_scenario(doc, "s.json", gtx1080ti()), InputError);
}

TEST(ExaminerCorpus, TaskHostRunsItsNestedConfigInItsProcess) {
  const Scenario s = load("task_host.json");
  ASSERT_EQ(s.instances.size(), 5u);  // host 1, its two threads, host 2, its one thread
  EXPECT_EQ(s.instances[1].parent, 0);
  EXPECT_EQ(s.instances[1].process, s.instances[0].process);
  EXPECT_EQ(s.instances[2].process, s.instances[0].process);
  EXPECT_NE(s.instances[3].process, s.instances[0].process);
  EXPECT_EQ(s.instances[4].release_time, ms(750));  // host 2's 0.5 s + its own 0.25 s
  const Trace t = simulate(s, gtx1080ti()).trace;
  // Host 1's threads share its context: both kernels run at 0 and end at 0.5 s, as does host 1.
  EXPECT_EQ(t.instances[1].iterations.at(0).kernels.at(0).blocks.at(0).start, Nanos{0});
  EXPECT_EQ(t.instances[2].iterations.at(0).kernels.at(0).blocks.at(0).start, Nanos{0});
  EXPECT_EQ(t.instances[0].iterations.at(0).execute_end, ms(500));
  // Host 2 starts at 0.5 s; its thread at 0.75 s; it ends with it at 1.25 s.
  EXPECT_EQ(t.instances[3].iterations.at(0).execute_start, ms(500));
  EXPECT_EQ(t.instances[4].iterations.at(0).kernels.at(0).blocks.at(0).start, ms(750));
  EXPECT_EQ(t.instances[3].iterations.at(0).execute_end, ms(1250));
}

TEST(ExaminerCorpus, MpsClientsShareTheGpuWithinTheirSmShares) {
  const Trace t = run("mps.json");
  std::set<int> half, quarter;
  for (const auto& b : t.instances.at(0).iterations.at(0).kernels.at(0).blocks) {
    EXPECT_EQ(b.start, Nanos{0});
    half.insert(b.sm);
  }
  for (const auto& b : t.instances.at(1).iterations.at(0).kernels.at(0).blocks) {
    EXPECT_EQ(b.start, ms(100));  // no time slicing: it runs beside the first client
    quarter.insert(b.sm);
  }
  EXPECT_EQ(half.size(), 14u);  // 50% of 28 SMs
  EXPECT_EQ(quarter.size(), 7u);
}

TEST(ExaminerCorpus, MpsInThreadsIsRefused) {
  Json doc = load_json_file(std::string(GPURT_SOURCE_DIR) + "/examples/examiner/mps.json");
  doc["use_processes"] = false;
  const Scenario s = parse_scenario(doc, "mps.json", gtx1080ti());
  try {
    (void)simulate(s, gtx1080ti());
    ADD_FAILURE() << "mps_thread_percentage in threads was simulated";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "benchmarks[0].mps_thread_percentage");
  }
}

// --- Bounds (issue 16 part 2) ---

namespace {
Json one_kernel(Json extra_benchmark, Json top = Json::object()) {
  Json b{{"filename", "timer_spin"}, {"thread_count", 32}, {"block_count", 1}, {"additional_info", 1000}};
  if (!extra_benchmark.is_null()) b.update(extra_benchmark);
  Json config{{"name", "b"}, {"max_iterations", 1}, {"max_time", 0}, {"benchmarks", {b}}};
  if (!top.is_null()) config.update(top);
  return config;
}

std::string input_error(const Json& config) {
  try {
    (void)parse_scenario(config, "b.json", gtx1080ti());
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// Runs without per-block records: the limits hold either way, and the test stays small.
std::string run_error(const Json& config) {
  const Scenario s = parse_scenario(config, "b.json", gtx1080ti());
  SimulateOptions options;
  options.record = false;
  try {
    (void)simulate(s, gtx1080ti(), options);
  } catch (const InputError&) {
    return "<input error>";
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST(ExaminerLimits, TimesAreBoundedSoNoSumOverflows) {
  // release_time 2^31 s with launch_latency 9e18 ns gave negative times with exit 0.
  const std::string release = input_error(one_kernel({{"release_time", std::int64_t{2147483648}}}));
  EXPECT_EQ(release,
            "b.json: benchmarks[0].release_time = 2147483648: must be at most 10^6 s (gpurt's bound on every "
            "time in a config)");
  const std::string latency = input_error(one_kernel({}, {{"gpurt_sim", {{"launch_latency_ns", 9e18}}}}));
  EXPECT_NE(latency.find("b.json: gpurt_sim.launch_latency_ns = 9"), std::string::npos) << latency;
  EXPECT_NE(latency.find("must be at most 10^6 s"), std::string::npos) << latency;
  EXPECT_NE(input_error(one_kernel({}, {{"gpurt_sim", {{"context_switch_ns", 9.2e18}}}}))
                .find("gpurt_sim.context_switch_ns"),
            std::string::npos);
  EXPECT_NE(input_error(one_kernel({{"additional_info", 2e15}})).find("benchmarks[0].additional_info"),
            std::string::npos);
  EXPECT_NE(input_error(one_kernel({{"max_time", 1e7}})).find("benchmarks[0].max_time"), std::string::npos);
  EXPECT_NE(input_error(one_kernel({{"period", 1e7}})).find("benchmarks[0].period"), std::string::npos);
  // A time a timing model computes is bounded too (a copy at 1 byte/s, a slow counter: each
  // factor within its own bounds, the product not).
  EXPECT_NE(input_error(one_kernel({{"filename", "counter_spin"}, {"additional_info", 1000000000}},
                                   {{"gpurt_sim", {{"counter_spin_ns_per_iteration", 1e9}}}}))
                .find("makes a block time"),
            std::string::npos);
  EXPECT_NE(input_error(one_kernel({{"filename", "multikernel"},
                                    {"thread_count", 0},
                                    {"block_count", 0},
                                    {"additional_info",
                                     {{{"duration", 1000},
                                       {"block_count", 1},
                                       {"thread_count", 32},
                                       {"copy_in_count", 1000000}}}}},
                                   {{"gpurt_sim", {{"copy_bandwidth_bytes_per_s", 1}}}}))
                .find("makes a copy of 4000000 bytes"),
            std::string::npos);
  // At the bound itself, a long chain of long kernels stops at the simulator's 10^9 s horizon
  // with an error instead of wrapping.
  const std::string e = run_error(one_kernel({{"additional_info", 1e15}, {"max_iterations", 2000}}));
  EXPECT_NE(e.find("simulated time would pass 10^9 s"), std::string::npos) << e;
}

TEST(ExaminerLimits, TimeSliceHasALowerBound) {
  EXPECT_EQ(input_error(one_kernel({}, {{"gpurt_sim", {{"time_slice_ns", 1}}}})),
            "b.json: gpurt_sim.time_slice_ns = 1: must be at least 1000 (1 us)");
  EXPECT_EQ(input_error(one_kernel({}, {{"gpurt_sim", {{"time_slice_ns", 1000}}}})), "<no error>");
}

TEST(ExaminerLimits, KernelLaunchesAndIterationsAreBounded) {
  // max_iterations 2^31 of 1 us kernels: stops at the default of 10^6 (here: iterations, each of
  // one kernel), naming the key.
  const std::string many = run_error(one_kernel({{"max_iterations", std::int64_t{2147483648}}}));
  EXPECT_NE(many.find("b.json: simulation stopped after 1000000 "), std::string::npos) << many;
  EXPECT_NE(many.find("gpurt_sim.max_kernels"), std::string::npos) << many;
  // max_time 1e5 s of 1 us kernels likewise.
  const std::string long_run = run_error(one_kernel({{"max_time", 1e5}, {"max_iterations", 0}}));
  EXPECT_NE(long_run.find("gpurt_sim.max_kernels"), std::string::npos) << long_run;
  // The key raises (or lowers) the limit.
  EXPECT_EQ(run_error(one_kernel({{"max_iterations", 2000}}, {{"gpurt_sim", {{"max_kernels", 2000}}}})),
            "<no error>");
  EXPECT_NE(run_error(one_kernel({{"max_iterations", 2001}}, {{"gpurt_sim", {{"max_kernels", 2000}}}}))
                .find("after 2000 "),
            std::string::npos);
  // Two kernels an iteration: the launches reach the limit first.
  const std::string two =
      run_error(one_kernel({{"filename", "multikernel"},
                            {"thread_count", 0},
                            {"block_count", 0},
                            {"max_iterations", 6},
                            {"additional_info",
                             {{{"duration", 1000}, {"block_count", 1}, {"thread_count", 32}},
                              {{"duration", 1000}, {"block_count", 1}, {"thread_count", 32}}}}},
                           {{"gpurt_sim", {{"max_kernels", 10}}}}));
  EXPECT_NE(two.find("after 10 kernel launches"), std::string::npos) << two;
  // Iterations without kernels (a CPU-only plugin) count as well.
  const std::string cpu = run_error(one_kernel({{"filename", "cpu_random_walk"},
                                                {"thread_count", 0},
                                                {"block_count", 0},
                                                {"data_size", 64},
                                                {"additional_info", 1},
                                                {"max_iterations", 100}},
                                               {{"gpurt_sim", {{"max_kernels", 50}}}}));
  EXPECT_NE(cpu.find("after 50 iterations"), std::string::npos) << cpu;
}

TEST(ExaminerLimits, BlocksOfOneRunAreBounded) {
  // A 2^31 - 1 block grid is one kernel launch, so max_kernels never trips; gpurt_sim.max_blocks
  // stops it, naming the key, before it runs (and, with records, stores) two billion blocks.
  // The default (10^7) applies when the key is absent. One launch past it is refused as the
  // config is read (exit 2, naming the benchmark); it ran 2.6 s and 400 MB before it stopped.
  EXPECT_EQ(parse_scenario(one_kernel({{"block_count", 10'000'000}}), "b.json", gtx1080ti()).sim.max_blocks,
            10'000'000);
  const std::string huge = input_error(one_kernel({{"block_count", 2147483647}}));
  EXPECT_NE(
      huge.find("b.json: benchmarks[0].block_count = 2147483647: launches a kernel of 2147483647 blocks"),
      std::string::npos)
      << huge;
  EXPECT_NE(huge.find("more than gpurt_sim.max_blocks (10000000) lets one run start"), std::string::npos)
      << huge;
  EXPECT_NE(input_error(one_kernel({{"block_count", 5001}}, {{"gpurt_sim", {{"max_blocks", 5000}}}}))
                .find("more than gpurt_sim.max_blocks (5000)"),
            std::string::npos);
  // The limit is exact: 3 iterations of a 100-block kernel are 300 blocks.
  EXPECT_EQ(run_error(one_kernel({{"block_count", 100}, {"max_iterations", 3}},
                                 {{"gpurt_sim", {{"max_blocks", 300}}}})),
            "<no error>");
  EXPECT_NE(run_error(one_kernel({{"block_count", 100}, {"max_iterations", 3}},
                                 {{"gpurt_sim", {{"max_blocks", 299}}}}))
                .find("after 299 blocks"),
            std::string::npos);
  EXPECT_EQ(input_error(one_kernel({}, {{"gpurt_sim", {{"max_blocks", 0}}}})),
            "b.json: gpurt_sim.max_blocks = 0: must be in 1..1099511627776");
}
