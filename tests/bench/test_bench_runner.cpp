// The host runner (Dissertation §3.3.2 steps 2-5) with a CPU-only plugin, so it runs without a
// GPU: iterations, release times, warm-up, the per-iteration barrier, threads and processes,
// failures; and the process pipe's trace encoding.
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "gpurt/bench/runner.hpp"
#include "gpurt/core/error.hpp"

namespace {

using namespace std::chrono_literals;

std::atomic<int> g_executes{0};
int g_report_fd = -1;  // "hang" workers write their pid here

// Sleeps (instance index + 1) ms in execute and reports one "kernel" of one block.
class SleepPlugin final : public gpurt::BenchPlugin {
 public:
  explicit SleepPlugin(bool fail) : _fail(fail) {}
  void initialize(const gpurt::PluginContext& ctx) override { _ctx = ctx; }
  void execute(gpurt::IterationRecord& it) override {
    ++g_executes;
    if (_ctx.instance->label == "die") std::raise(SIGKILL);  // a worker process that crashes
    if (_ctx.instance->label == "hang") {  // a worker stuck for good (a kernel that never ends)
      const pid_t me = getpid();
      if (::write(g_report_fd, &me, sizeof me) != static_cast<ssize_t>(sizeof me)) std::abort();
      for (;;) pause();
    }
    if (_fail) throw gpurt::Error("plugin failed on purpose");
    gpurt::KernelRecord k;
    k.name = "sleep";
    k.block_count = 1;
    k.launch_before = _ctx.now();
    std::this_thread::sleep_for(std::chrono::milliseconds(_ctx.instance->block_count));
    k.launch_after = k.sync_after.emplace(_ctx.now());
    // The "SM" of this CPU-only block is the one CPU the worker is pinned to, or -1 when it may
    // run on more than one (the pinning test reads it).
    cpu_set_t set;
    CPU_ZERO(&set);
    const bool pinned = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
    k.blocks.push_back({k.launch_before, k.launch_after, pinned ? sched_getcpu() : -1});
    it.kernels.push_back(std::move(k));
  }

 private:
  bool _fail;
  gpurt::PluginContext _ctx;
};

class SleepBackend final : public gpurt::WorkerBackend {
 public:
  std::unique_ptr<gpurt::BenchPlugin> open(gpurt::PluginContext& ctx) override {
    auto p = std::make_unique<SleepPlugin>(ctx.instance->label == "fail");
    p->initialize(ctx);
    return p;
  }
};

gpurt::Scenario scenario(int instances, std::int64_t iterations, bool processes, bool sync) {
  gpurt::Scenario s;
  s.name = "runner";
  s.use_processes = processes;
  s.sync_every_iteration = sync;
  for (int i = 0; i < instances; ++i) {
    gpurt::ScenarioInstance in;
    in.plugin = "sleep";
    in.log_name = "i" + std::to_string(i) + ".json";
    in.block_count = i + 1;  // ms per iteration
    in.max_iterations = iterations;
    in.release_time = gpurt::Nanos{std::int64_t{i} * 5'000'000};  // 0, 5, 10 ms
    s.instances.push_back(in);
  }
  return s;
}

class Runner : public ::testing::TestWithParam<bool> {};  // param: use_processes

TEST_P(Runner, IterationsAndReleaseTimes) {
  const auto s = scenario(3, 4, GetParam(), false);
  SleepBackend backend;
  const auto traces = gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
  ASSERT_EQ(traces.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& t = traces[i];
    EXPECT_EQ(t.log_name, s.instances[i].log_name);
    EXPECT_EQ(t.stream, static_cast<int>(i));
    ASSERT_EQ(t.iterations.size(), 4U);
    // Released no earlier than release_time after the common start.
    EXPECT_GE(t.iterations[0].copy_in_start, s.instances[i].release_time);
    for (const auto& it : t.iterations) {
      EXPECT_LE(it.copy_in_start, it.execute_start);
      EXPECT_LE(it.execute_end, it.copy_out_end);
      ASSERT_EQ(it.kernels.size(), 1U);
      // The plugin slept (i + 1) ms inside execute.
      EXPECT_GE(it.execute_end - it.execute_start, std::chrono::milliseconds(i + 1));
    }
  }
}

TEST_P(Runner, BarrierEveryIteration) {
  const auto s = scenario(3, 5, GetParam(), true);
  SleepBackend backend;
  const auto traces = gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
  // Iteration k of any instance starts only after every instance finished iteration k-1.
  for (std::size_t k = 1; k < 5; ++k) {
    gpurt::Nanos latest_end{0};
    for (const auto& t : traces) latest_end = std::max(latest_end, t.iterations.at(k - 1).copy_out_end);
    for (const auto& t : traces) EXPECT_GE(t.iterations.at(k).copy_in_start, latest_end) << "iteration " << k;
  }
}

TEST_P(Runner, FailureNamesTheInstanceAndStopsTheOthers) {
  auto s = scenario(2, 3, GetParam(), true);
  s.instances[1].label = "fail";
  SleepBackend backend;
  try {
    gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
    FAIL() << "expected an error";
  } catch (const gpurt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("benchmark 1 (i1.json): plugin failed on purpose"),
              std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(ThreadsAndProcesses, Runner, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "processes" : "threads"; });

TEST(RunnerProcesses, ADeadWorkerStopsTheRunInsteadOfHangingAtTheBarrier) {
  auto s = scenario(3, 50, true, true);
  s.instances[1].label = "die";
  SleepBackend backend;
  try {
    gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
    FAIL() << "expected an error";
  } catch (const gpurt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("benchmark 1 (i1.json): worker process killed by signal 9"),
              std::string::npos)
        << e.what();
  }
}

// Gone: no /proc entry, or a zombie (reparented, not yet reaped).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

TEST(RunnerProcesses, WorkersDieWithTheProcessThatRunsThem) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  g_report_fd = fds[1];
  const pid_t run = fork();
  ASSERT_GE(run, 0);
  if (run == 0) {  // the bench process: two workers that hang
    ::close(fds[0]);
    auto s = scenario(2, 1, true, false);
    s.instances[0].label = s.instances[1].label = "hang";
    SleepBackend backend;
    try {
      gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
    } catch (...) {
    }
    _exit(0);
  }
  ::close(fds[1]);
  pid_t workers[2] = {0, 0};
  for (pid_t& w : workers) {
    pollfd p{fds[0], POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 10'000), 1) << "a worker did not start";
    ASSERT_EQ(::read(fds[0], &w, sizeof w), static_cast<ssize_t>(sizeof w));
  }
  ::close(fds[0]);
  ASSERT_EQ(kill(run, SIGKILL), 0);  // as `gpurt bench --timeout` ends, or a user's kill -9
  int status = 0;
  ASSERT_EQ(waitpid(run, &status, 0), run);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  for (const pid_t w : workers) {
    while (!process_gone(w) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(process_gone(w)) << "worker " << w << " outlived the run";
  }
  for (const pid_t w : workers) {
    if (!process_gone(w)) kill(w, SIGKILL);
  }
}

TEST(RunnerThreads, WarmupIterationIsRunButNotRecorded) {
  auto s = scenario(2, 3, false, false);
  s.do_warmup = true;
  g_executes = 0;
  SleepBackend backend;
  const auto traces = gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
  EXPECT_EQ(g_executes.load(), 2 * 4);
  for (const auto& t : traces) EXPECT_EQ(t.iterations.size(), 3U);
}

TEST(RunnerThreads, MaxTimeStopsAnInstance) {
  auto s = scenario(1, 0, false, false);
  s.instances[0].max_time = gpurt::Nanos{20'000'000};  // 20 ms of 1-ms iterations
  SleepBackend backend;
  const auto traces = gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
  const auto n = traces[0].iterations.size();
  EXPECT_GE(n, 2U);
  EXPECT_LE(n, 21U);
  EXPECT_LT(traces[0].iterations.back().copy_in_start, gpurt::Nanos{20'000'000});
}

TEST(AssignCpuCores, CpuCoreWinsAndPinCpusSpreadsTheRestOverFreeCpusFirst) {
  auto s = scenario(5, 1, false, false);
  const std::vector<int> cpus{0, 1, 2, 3};
  for (const auto& c : gpurt::assign_cpu_cores(s, cpus)) EXPECT_FALSE(c.has_value());  // left to the OS
  s.instances[1].cpu_core = 0;
  auto cores = gpurt::assign_cpu_cores(s, cpus);
  EXPECT_EQ(cores[1], 0);
  EXPECT_FALSE(cores[0].has_value());
  s.pin_cpus = true;
  cores = gpurt::assign_cpu_cores(s, cpus);
  // CPU 0 is named by instance 1, so the other four go to 1, 2, 3, then 0.
  const std::vector<std::optional<int>> want{1, 0, 2, 3, 0};
  EXPECT_EQ(cores, want);
}

TEST(AssignCpuCores, ACpuCoreThisProcessCannotUseIsAnInputError) {
  auto s = scenario(2, 1, false, false);
  s.source = "cfg.json";
  s.instances[1].cpu_core = 9;
  try {
    gpurt::assign_cpu_cores(s, {0, 1});
    FAIL() << "expected an InputError";
  } catch (const gpurt::InputError& e) {
    EXPECT_EQ(e.file(), "cfg.json");
    EXPECT_EQ(e.path(), "benchmarks[1].cpu_core");
    EXPECT_EQ(e.value(), "9");
    EXPECT_NE(e.problem().find("0,1"), std::string::npos) << e.what();
  }
}

TEST_P(Runner, PinCpusPinsEveryWorkerToItsCpu) {
  const std::vector<int> cpus = gpurt::usable_cpus();
  ASSERT_FALSE(cpus.empty());
  auto s = scenario(3, 3, GetParam(), false);
  s.pin_cpus = true;
  const auto want = gpurt::assign_cpu_cores(s, cpus);
  SleepBackend backend;
  const auto traces = gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
  for (std::size_t i = 0; i < traces.size(); ++i) {
    ASSERT_TRUE(want[i].has_value());
    EXPECT_EQ(*want[i], cpus[i % cpus.size()]);
    for (const auto& it : traces[i].iterations) EXPECT_EQ(it.kernels.at(0).blocks.at(0).sm, *want[i]) << i;
  }
}

TEST(TraceCodec, RoundTripIsExact) {
  gpurt::InstanceTrace t;
  t.benchmark_name = "timer_spin";
  t.label = "L \"q\"";
  t.log_name = "a/b.json";
  t.release_time = gpurt::Nanos{250'000'000};
  t.thread_count = 512;
  t.block_count = 7;
  t.data_size = 9;
  t.stream = 3;
  gpurt::IterationRecord it;
  it.copy_in_start = gpurt::Nanos{1};
  it.copy_in_end = gpurt::Nanos{2};
  it.execute_start = gpurt::Nanos{3};
  it.execute_end = gpurt::Nanos{40};
  it.copy_out_start = gpurt::Nanos{41};
  it.copy_out_end = gpurt::Nanos{42};
  gpurt::KernelRecord k;
  k.name = "K1";
  k.block_count = 2;
  k.thread_count = 64;
  k.shared_memory = 4096;
  k.launch_before = gpurt::Nanos{4};
  k.launch_after = gpurt::Nanos{5};
  k.blocks = {{gpurt::Nanos{6}, gpurt::Nanos{30}, 1}, {gpurt::Nanos{7}, gpurt::Nanos{31}, 0}};
  it.kernels.push_back(k);
  k.sync_after = gpurt::Nanos{39};
  it.kernels.push_back(k);
  t.iterations.push_back(it);
  const gpurt::InstanceTrace u = gpurt::decode_instance(gpurt::encode_instance(t));
  EXPECT_EQ(gpurt::encode_instance(u), gpurt::encode_instance(t));
  EXPECT_EQ(u.label, t.label);
  EXPECT_FALSE(u.iterations[0].kernels[0].sync_after.has_value());
  EXPECT_EQ(u.iterations[0].kernels[1].sync_after, gpurt::Nanos{39});
  EXPECT_EQ(u.iterations[0].kernels[1].blocks[1].end, gpurt::Nanos{31});
}

}  // namespace
