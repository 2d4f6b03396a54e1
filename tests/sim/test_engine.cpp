// Simulator semantics beyond the seeds' figures: stream priorities, SM masks, contexts and time
// slicing, copy engines, counter_spin calibration, the interference model, iterations, and
// invariants on random scenarios.
#include <fmt/format.h>

#include <map>
#include <set>

#include "gpurt/core/rng.hpp"
#include "sim_helpers.hpp"

using namespace gpurt;
using namespace gpurt::test;

namespace {

const Platform& tx2() { return *find_platform_preset("jetson-tx2"); }

}  // namespace

// Two kernels wait behind a GPU-filling one; the later-released one has the higher priority
// (-1) and is dispatched first when space frees; running blocks are never preempted.
TEST(Engine, StreamPriorityDispatchesFirstButDoesNotPreempt) {
  const SimResult r =
      run_text(scenario({spin("fill", 1024, 4, 1'000'000'000), spin("low", 1024, 4, 1'000'000'000, 0.1),
                         spin("high", 1024, 4, 1'000'000'000, 0.2, R"(, "stream_priority": -1)")}),
               tx2());
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "fill")), 0.0);
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "high")), 1.0);
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "low")), 2.0);
}

// Rule B (Dissertation §3.4.2, one primary queue per priority level): a lower level dispatches
// only while every higher level is empty. "fill" (4 × 768 threads, 1 s) leaves 512 threads free
// on each of the TX2's two SMs (2048 each). "high" (priority -1, 2 × 1024) does not fit and
// waits at the head of its level; "low" (2 × 256, released at the same instant) would fit, but
// must wait behind it: both start when "fill" ends, at 1 s.
TEST(Engine, ABlockedHigherPriorityHeadHoldsBackLowerLevels) {
  const SimResult r =
      run_text(scenario({spin("fill", 768, 4, 1'000'000'000), spin("low", 256, 2, 1'000'000'000, 0.1),
                         spin("high", 1024, 2, 1'000'000'000, 0.1, R"(, "stream_priority": -1)")}),
               tx2());
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "fill")), 0.0);
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "high")), 1.0);
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "low")), 1.0);
}

// libsmctrl convention: a set bit disables a TPC; "~" inverts. On the RTX 3060 Ti (19 TPCs of 2
// SMs), "~0x3" enables TPCs 0-1 = SMs 0-3; "0x7fffc" disables TPCs 2-18, the same partition.
TEST(Engine, SmMaskConfinesBlocks) {
  const Platform p = test::ideal_preset("rtx3060ti");
  for (const char* mask : {"~0x3", "0x7fffc"}) {
    const SimResult r = run_text(
        scenario({spin("masked", 256, 40, 1'000'000, 0, fmt::format(R"(, "sm_mask": "{}")", mask))}), p);
    std::map<int, int> per_sm;
    for (const auto& b : kernel(r, "masked").blocks) ++per_sm[b.sm];
    EXPECT_EQ(per_sm.size(), 4u) << mask;
    for (const auto& [sm, n] : per_sm) {
      EXPECT_LT(sm, 4) << mask;
      EXPECT_EQ(n, 10) << mask;  // round-robin over the four allowed SMs
    }
  }
}

// use_processes: each instance its own context; contexts time-slice (2 ms slices by default),
// so blocks of different contexts never overlap in time even though both would fit.
TEST(Engine, ContextsTimeSliceAndNeverCoRun) {
  const SimResult r = run_text(
      scenario({spin("A", 256, 2, 5'000'000), spin("B", 256, 2, 5'000'000)}, R"(, "use_processes": true)"),
      tx2());
  const auto& a = kernel(r, "A");
  const auto& b = kernel(r, "B");
  EXPECT_DOUBLE_EQ(first_start(a), 0.0);
  // A's blocks run to completion (no preemption); B gets the GPU once they drain.
  EXPECT_DOUBLE_EQ(first_start(b), last_end(a));
  const SimResult shared =
      run_text(scenario({spin("A", 256, 2, 5'000'000), spin("B", 256, 2, 5'000'000)}), tx2());
  EXPECT_DOUBLE_EQ(first_start(kernel(shared, "B")), 0.0);  // threads share a context: co-run
}

TEST(Engine, ContextsAlternateAtSliceBoundaries) {
  // Each context launches 1 ms kernels back to back for 10 iterations; with 2 ms slices the
  // GPU alternates: a context keeps it for ~2 ms, then the other runs.
  const std::string top = R"(, "use_processes": true, "gpurt_sim": {"time_slice_ns": 2000000})";
  const SimResult r =
      run_text(scenario({spin("A", 256, 1, 1'000'000), spin("B", 256, 1, 1'000'000)}, top), tx2());
  std::vector<std::pair<double, char>> runs;
  for (const auto& inst : r.trace.instances)
    for (const auto& it : inst.iterations)
      for (const auto& k : it.kernels) runs.emplace_back(first_start(k), k.name[0]);
  std::sort(runs.begin(), runs.end());
  ASSERT_GE(runs.size(), 2u);
  for (std::size_t i = 1; i < runs.size(); ++i) EXPECT_GT(runs[i].first, runs[i - 1].first - 1e-12);
  EXPECT_NE(runs.front().second, runs.back().second);
}

// Copies: FIFO per engine, non-preemptive, duration = bytes / bandwidth. Two host-to-device
// copies in different streams serialise on engine 0; a device-to-host copy uses engine 1.
TEST(Engine, CopyEnginesSerialiseByDirection) {
  const auto copy = [](const char* name, const char* dir, double release) {
    return fmt::format(R"({{"filename": "stream_action.so", "log_name": "{0}.json", "label": "{0}",
        "thread_count": 32, "block_count": 1, "release_time": {2}, "additional_info": {{"actions": [
          {{"type": "memcpy", "parameters": {{"size": 12000000, "direction": "{1}"}}}}]}}}})",
                       name, dir, release);
  };
  const std::string top = R"(, "gpurt_sim": {"copy_bandwidth_bytes_per_s": 12e9})";
  const SimResult r = run_text(scenario({copy("h2d-a", "hostToDevice", 0), copy("h2d-b", "hostToDevice", 0),
                                         copy("d2h", "deviceToHost", 0)},
                                        top),
                               test::ideal_preset("rtx3060ti"));
  // 12 MB at 12 GB/s = 1 ms each.
  const auto end = [&](const char* name) {
    for (const auto& inst : r.trace.instances)
      if (inst.label == name) return s(inst.iterations[0].execute_end);
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(end("h2d-a"), 0.001);
  EXPECT_DOUBLE_EQ(end("h2d-b"), 0.002);
  EXPECT_DOUBLE_EQ(end("d2h"), 0.001);
}

// A stream_action instance of `actions` (JSON objects), released at `release` seconds.
std::string actions(const std::string& label, const std::string& list, double release = 0) {
  return fmt::format(R"({{"filename": "stream_action.so", "log_name": "{0}.json", "label": "{0}",
      "thread_count": 256, "block_count": 1, "release_time": {2}, "additional_info": {{"actions": [{1}]}}}})",
                     label, list, release);
}
std::string action_kernel(const std::string& label, long long ns, int blocks = 1) {
  return fmt::format(
      R"({{"type": "kernel", "label": "{}", "parameters": {{"duration": {}, "block_count": {}}}}})", label,
      ns, blocks);
}
std::string action_copy(bool async, long long bytes) {
  return fmt::format(
      R"({{"type": "memcpy", "parameters": {{"async": {}, "size": {}, "direction": "deviceToHost"}}}})",
      async ? "true" : "false", bytes);
}

// With a launch latency (1 ms here) every op a call issues takes that path, kernels and copies
// alike, and takes its place in the context's order at the call (audit, 2026-11-27; Rules A/D,
// Pitfalls 3.3-3.4). K1 (100 ms) then a 120 MB copy (10 ms at 12 GB/s) then K2 in one stream:
// K1 [0.001, 0.101], the copy [0.101, 0.111], K2 from 0.111 (the copy used to overtake K1). A
// synchronous copy returns when it is done (K2 launched at 0.111, not at 0.01 before K1 even
// started); cudaDeviceSynchronize waits for K1 although it was still in flight (K2 at 0.101); a
// cudaFree in another thread does too, and blocks that thread's launch until then.
TEST(Engine, LaunchLatencyKeepsStreamOrderAndSyncsWaitForWorkInFlight) {
  const Platform tx2i = test::ideal_preset("jetson-tx2");
  const std::string latency = R"(, "gpurt_sim": {"launch_latency_ns": 1000000})";
  const auto run = [&](const std::vector<std::string>& benchmarks) {
    return run_text(scenario(benchmarks, latency), tx2i);
  };
  const SimResult async =
      run({actions("X", action_kernel("K1", 100'000'000, 2) + ", " + action_copy(true, 120'000'000) + ", " +
                            action_kernel("K2", 100'000'000))});
  EXPECT_DOUBLE_EQ(first_start(kernel(async, "K1")), 0.001);
  EXPECT_DOUBLE_EQ(first_start(kernel(async, "K2")), 0.111);
  const SimResult sync =
      run({actions("X", action_kernel("K1", 100'000'000, 2) + ", " + action_copy(false, 120'000'000) + ", " +
                            action_kernel("K2", 100'000'000))});
  EXPECT_DOUBLE_EQ(s(kernel(sync, "K2").launch_before), 0.111);
  EXPECT_DOUBLE_EQ(first_start(kernel(sync, "K2")), 0.112);
  const SimResult device = run({actions("X",
                                        action_kernel("K1", 100'000'000, 2) + R"(, {"type": "synchronize",
      "parameters": {"device": true}}, )" + action_kernel("K2", 100'000'000))});
  EXPECT_DOUBLE_EQ(s(kernel(device, "K2").launch_before), 0.101);
  const SimResult freed =
      run({spin("A", 256, 2, 100'000'000),
           actions("X", R"({"type": "free"}, )" + action_kernel("KX", 100'000'000), 0.0005)});
  EXPECT_DOUBLE_EQ(s(kernel(freed, "KX").launch_before), 0.101);
  EXPECT_DOUBLE_EQ(first_start(kernel(freed, "KX")), 0.102);
}

// cudaMemcpy returns when its copy is done: the NULL stream makes the copy wait for blocking
// streams' earlier work, but a non-blocking (stream_priority) stream's kernel holds up neither the
// copy nor the call. P (non-blocking) spins 1 s from 0; S at 0.1 copies 12 MB (1 ms) then
// launches KS: KS runs from 0.101. With P blocking the copy waits for P: KS from 1.001.
TEST(Engine, ASynchronousCopyWaitsForItsOwnCopyOnly) {
  const Platform tx2i = test::ideal_preset("jetson-tx2");
  const std::string s_actions = action_copy(false, 12'000'000) + ", " + action_kernel("KS", 100'000'000);
  const SimResult nonblocking =
      run_text(scenario({spin("P", 256, 2, 1'000'000'000, 0, R"(, "stream_priority": 0)"),
                         actions("S", s_actions, 0.1)}),
               tx2i);
  EXPECT_DOUBLE_EQ(first_start(kernel(nonblocking, "KS")), 0.101);
  const SimResult blocking =
      run_text(scenario({spin("P", 256, 2, 1'000'000'000), actions("S", s_actions, 0.1)}), tx2i);
  EXPECT_DOUBLE_EQ(first_start(kernel(blocking, "KS")), 1.001);
}

// cudaFree blocks every other CUDA call of other threads, not only their launches (Dissertation
// §3.5.3, "block other CUDA API calls from other CPU threads"): Figure 3.19's set-up (K1, K2
// filling the GPU to 1.0 and 1.2, cudaFree at 0.4 returning at 1.2) plus a thread Y whose stream
// synchronize at 0.6 blocks until 1.2; its kernel KY, 0.3 s later, launches at 1.5.
TEST(Engine, CudaFreeBlocksOtherThreadsSyncsToo) {
  const SimResult r = run_text(
      scenario({spin("K1", 512, 2, 1'000'000'000), spin("K2", 512, 2, 1'000'000'000, 0.2),
                actions("K3", R"({"type": "free"}, {"type": "kernel", "label": "K3", "delay": 0.2,
                    "parameters": {"duration": 1000000000, "block_count": 2, "thread_count": 512}})",
                        0.4),
                actions("Y", R"({"type": "synchronize"}, {"type": "kernel", "label": "KY", "delay": 0.3,
                    "parameters": {"duration": 100000000}})",
                        0.6)}),
      test::ideal_preset("jetson-tx2"));
  EXPECT_DOUBLE_EQ(s(kernel(r, "K3").launch_before), 1.4);
  EXPECT_DOUBLE_EQ(s(kernel(r, "KY").launch_before), 1.5);
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "KY")), 1.5);
}

// Whole nanoseconds exactly (audit, 2026-11-27): 732 bytes at 12 GB/s are 61 ns, which the
// binary quotient made 62; 7 % of 100 SMs is 7 SMs for an MPS client, not the binary product's 8.
TEST(Engine, CopyTimesAndMpsSharesAreExactCeilings) {
  const std::string top = R"(, "gpurt_sim": {"copy_bandwidth_bytes_per_s": 12e9})";
  const auto copy_end = [&](long long bytes) {
    const SimResult r =
        run_text(scenario({actions("c", action_copy(true, bytes))}, top), test::ideal_preset("rtx3060ti"));
    return r.trace.instances[0].iterations[0].execute_end;
  };
  // SMs an MPS client of `percent` % holds at t = 0 on a GPU of `sms` SMs (40 blocks, 2 an SM).
  const auto mps_sms = [](int sms, int percent) {
    Platform p = test::ideal_preset("gtx1070");
    p.sms = sms;
    const SimResult r = run_text(
        fmt::format(
            R"({{"name": "mps", "max_iterations": 1, "max_time": 0, "use_processes": true, "benchmarks": [
        {{"filename": "timer_spin.so", "log_name": "a.json", "thread_count": 1024, "block_count": 40,
         "additional_info": 1000000, "mps_thread_percentage": {}}}]}})",
            percent),
        p);
    std::set<int> at_start;
    for (const BlockRecord& b : kernel(r, "timer_spin").blocks)
      if (b.start == Nanos{0}) at_start.insert(b.sm);
    return at_start.size();
  };
  EXPECT_EQ(copy_end(732), Nanos{61});
  EXPECT_EQ(mps_sms(100, 7), 7U);
  // Both round up: 733 bytes take 61.08 ns, so 62; 25 % of 30 SMs is 7.5, so 8 SMs.
  EXPECT_EQ(copy_end(733), Nanos{62});
  EXPECT_EQ(mps_sms(30, 25), 8U);
}

// Time slicing by hand (TX2: 2 SMs of 2048 threads). A: 40 blocks of 1024 threads × 1 ms, 4 at a
// time: 10 waves. B: 1 × 256 × 1 ms, released at 0.5 ms, in another context. A's 2.5 ms slice
// ends at 2.5 ms: A hands out no more blocks and drains, its third wave ending at 3 ms; B runs
// [3, 4] ms; A, the only context with work, resumes and runs its 7 remaining waves: ends at 11 ms.
// Without the drain B would wait for all of A (10 ms). With a 0.2 ms context switch, paid at
// every switch but not by the first context: A starts at 0, B at 3.2 ms, A again at 4.4 ms.
TEST(Engine, ASliceEndDrainsTheContextAndTheNextOnePaysTheSwitch) {
  const auto run = [](const std::string& sim) {
    return run_text(
        scenario({spin("A", 1024, 40, 1'000'000), spin("B", 256, 1, 1'000'000, 0.0005)},
                 R"(, "use_processes": true, "gpurt_sim": {"time_slice_ns": 2500000)" + sim + "}"),
        tx2());
  };
  const SimResult r = run("");
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "A")), 0.0);
  EXPECT_NEAR(first_start(kernel(r, "B")), 0.003, 1e-12);
  EXPECT_NEAR(last_end(kernel(r, "B")), 0.004, 1e-12);
  EXPECT_NEAR(last_end(kernel(r, "A")), 0.011, 1e-12);
  const SimResult sw = run(R"(, "context_switch_ns": 200000)");
  EXPECT_DOUBLE_EQ(first_start(kernel(sw, "A")), 0.0);
  EXPECT_NEAR(first_start(kernel(sw, "B")), 0.0032, 1e-12);
  EXPECT_NEAR(last_end(kernel(sw, "A")), 0.0044 + 0.007, 1e-12);
}

// A GPU with one copy engine (the TX2) serialises copies of both directions on it: three 12 MB
// copies at 12 GB/s end at 1, 2 and 3 ms (with two engines the device-to-host one ends at 1 ms).
TEST(Engine, OneCopyEngineSerialisesBothDirections) {
  const auto copy = [](const char* name, const char* dir) {
    return fmt::format(R"({{"filename": "stream_action.so", "log_name": "{0}.json", "label": "{0}",
        "thread_count": 32, "block_count": 1, "release_time": 0, "additional_info": {{"actions": [
          {{"type": "memcpy", "parameters": {{"size": 12000000, "direction": "{1}"}}}}]}}}})",
                       name, dir);
  };
  ASSERT_EQ(tx2().copy_engines, 1);
  const SimResult r = run_text(
      scenario({copy("h2d-a", "hostToDevice"), copy("h2d-b", "hostToDevice"), copy("d2h", "deviceToHost")},
               R"(, "gpurt_sim": {"copy_bandwidth_bytes_per_s": 12e9})"),
      tx2());
  std::vector<double> ends;
  for (const auto& inst : r.trace.instances) ends.push_back(s(inst.iterations[0].execute_end));
  std::sort(ends.begin(), ends.end());
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_DOUBLE_EQ(ends[0], 0.001);
  EXPECT_DOUBLE_EQ(ends[1], 0.002);
  EXPECT_DOUBLE_EQ(ends[2], 0.003);
}

// A device synchronisation waits for every op its context issued before it, and only those.
// One context (threads), TX2: B's 2 s kernel from 0; A launches a 1 s kernel at 0.1 s and then
// synchronises the device; C's 3 s kernel comes at 0.5 s, after A's call. A's iteration ends with
// B's kernel at 2 s: not at 1.1 s (its own stream only) and not at 3.5 s (C's, issued later).
TEST(Engine, DeviceSyncWaitsForEveryEarlierOpOfItsContextOnly) {
  const std::string a = R"({"filename": "stream_action.so", "log_name": "A.json", "label": "A",
      "thread_count": 256, "block_count": 1, "release_time": 0.1, "additional_info": {"actions": [
        {"type": "kernel", "label": "a", "parameters": {"duration": 1000000000}},
        {"type": "synchronize", "parameters": {"device": true}}]}})";
  const SimResult r =
      run_text(scenario({spin("B", 256, 1, 2'000'000'000), a, spin("C", 256, 1, 3'000'000'000, 0.5)}), tx2());
  double end = -1;
  for (const auto& inst : r.trace.instances)
    if (inst.label == "A") end = s(inst.iterations[0].execute_end);
  EXPECT_NEAR(end, 2.0, 1e-9);
  EXPECT_NEAR(last_end(kernel(r, "C")), 3.5, 1e-9);
}

TEST(Engine, CounterSpinUsesTheStatedCalibration) {
  const std::string b = R"({"filename": "counter_spin.so", "log_name": "c.json", "label": "c",
      "thread_count": 128, "block_count": 1, "additional_info": 1000000})";
  EXPECT_DOUBLE_EQ(last_end(kernel(run_text(scenario({b}), tx2()), "c")), 0.001);  // 1 ns per iteration
  const SimResult r =
      run_text(scenario({b}, R"(, "gpurt_sim": {"counter_spin_ns_per_iteration": 2.5})"), tx2());
  EXPECT_DOUBLE_EQ(last_end(kernel(r, "c")), 0.0025);
}

TEST(Engine, IterationsPeriodsAndMaxTime) {
  // Period 10 ms, 3 ms kernels: iterations start at 0, 10, 20 ms.
  const SimResult r = run_text(
      scenario({spin("p", 256, 1, 3'000'000, 0, R"(, "period": 0.01, "max_iterations": 3)")}), tx2());
  ASSERT_EQ(r.trace.instances[0].iterations.size(), 3u);
  for (int j = 0; j < 3; ++j)
    EXPECT_DOUBLE_EQ(first_start(kernel(r, "p", static_cast<std::size_t>(j))), 0.01 * j);
  // max_time 10 ms, back-to-back 3 ms kernels: iterations start at 0, 3, 6, 9 ms (4 of them).
  const SimResult t = run_text(R"({"name": "t", "max_iterations": 0, "max_time": 0.01, "benchmarks": [)" +
                                   spin("m", 256, 1, 3'000'000) + "]}",
                               tx2());
  EXPECT_EQ(t.trace.instances[0].iterations.size(), 4u);
}

TEST(Engine, WarmupIterationIsNotRecorded) {
  const SimResult r = run_text(scenario({spin("w", 256, 1, 1'000'000)}, R"(, "do_warmup": true)"), tx2());
  ASSERT_EQ(r.trace.instances[0].iterations.size(), 1u);
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "w")), 0.001);  // after the 1 ms warm-up iteration
}

TEST(Engine, SyncEveryIterationAlignsInstances) {
  // A (1 ms) and B (3 ms), 2 iterations each with a barrier: A's second kernel starts at 3 ms.
  const SimResult r =
      run_text(R"({"name": "t", "max_iterations": 2, "max_time": 0, "sync_every_iteration": true,
      "benchmarks": [)" +
                   spin("A", 256, 1, 1'000'000) + ", " + spin("B", 256, 1, 3'000'000) + "]}",
               tx2());
  EXPECT_DOUBLE_EQ(first_start(kernel(r, "A", 1)), 0.003);
}

// Interference model: with slowdown 1.5, a block that starts while another kernel runs takes
// 1.5 times as long (here: B starts while A runs).
TEST(Engine, InterferenceSlowdownAppliesWhenKernelsCoRun) {
  Platform p = tx2();
  Scenario sc = parse_scenario(
      parse_json(scenario({spin("A", 256, 1, 1'000'000), spin("B", 256, 1, 1'000'000)}), "t"), "t", p);
  for (auto& inst : sc.instances) inst.actions[0].kernel.slowdown = 1.5;
  const SimResult r = simulate(sc, p);
  EXPECT_DOUBLE_EQ(last_end(kernel(r, "A")), 0.001);   // started alone
  EXPECT_DOUBLE_EQ(last_end(kernel(r, "B")), 0.0015);  // started beside A
}

// Invariants on random scenarios: no SM ever holds more threads or blocks than it can; blocks
// of one kernel start in index order; each kernel starts no earlier than its launch; and in a
// single stream kernels never overlap.
TEST(Engine, RandomScenariosRespectResourceLimitsAndOrder) {
  const Platform& p = *find_platform_preset("rtx2080ti");
  Rng rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::string> benches;
    const int n = static_cast<int>(rng.uniform_int(1, 6));
    for (int i = 0; i < n; ++i) {
      const int threads = static_cast<int>(32 * rng.uniform_int(1, 32));
      const int blocks = static_cast<int>(rng.uniform_int(1, 300));
      const long long ns = rng.uniform_int(1'000, 2'000'000);
      const double release = static_cast<double>(rng.uniform_int(0, 2000)) / 1e6;
      std::string extra = fmt::format(R"(, "max_iterations": {})", rng.uniform_int(1, 3));
      if (rng.uniform01() < 0.3) extra += R"(, "stream_priority": -1)";
      if (rng.uniform01() < 0.3)
        extra += fmt::format(R"(, "sm_mask": "~0x{:x}")", rng.uniform_int(1, (1 << 20) - 1));
      benches.push_back(spin(fmt::format("k{}", i), threads, blocks, ns, release, extra));
    }
    const SimResult r = run_text(scenario(benches), p);
    struct Ev {
      std::int64_t t;
      int sm, threads, delta;
    };
    std::vector<Ev> evs;
    for (const auto& inst : r.trace.instances) {
      Nanos previous_end{0};
      for (const auto& it : inst.iterations) {
        for (const auto& k : it.kernels) {
          ASSERT_EQ(k.blocks.size(), static_cast<std::size_t>(k.block_count));
          for (std::size_t b = 0; b < k.blocks.size(); ++b) {
            EXPECT_GE(k.blocks[b].start, k.launch_before);
            EXPECT_GE(k.blocks[b].start, previous_end);  // stream order
            if (b) {
              EXPECT_GE(k.blocks[b].start, k.blocks[b - 1].start);
            }
            evs.push_back({k.blocks[b].start.count(), k.blocks[b].sm, k.thread_count, +1});
            evs.push_back({k.blocks[b].end.count(), k.blocks[b].sm, k.thread_count, -1});
          }
          for (const auto& b : k.blocks) previous_end = std::max(previous_end, b.end);
        }
      }
    }
    std::sort(evs.begin(), evs.end(),
              [](const Ev& a, const Ev& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
    std::vector<int> threads(static_cast<std::size_t>(p.sms), 0), blocks(static_cast<std::size_t>(p.sms), 0);
    for (const Ev& e : evs) {
      threads[static_cast<std::size_t>(e.sm)] += e.delta * e.threads;
      blocks[static_cast<std::size_t>(e.sm)] += e.delta;
      ASSERT_LE(threads[static_cast<std::size_t>(e.sm)], p.max_threads);
      ASSERT_LE(blocks[static_cast<std::size_t>(e.sm)], p.max_blocks);
    }
  }
}
