// The Dissertation's §3.4-§3.5 scenarios on the Jetson TX2 (2 SMs of 2,048 threads), as
// bundled configs, with the block start times the text describes. Times are in seconds;
// launch latencies are 0 (the default), so releases are exact.
#include "sim_helpers.hpp"

using namespace gpurt;
using namespace gpurt::test;

// Fig. 3.9: K1 = 7 x 512 threads (1 s) spreads round-robin: SM 0 gets blocks 0,2,4,6 (2,048
// threads), SM 1 gets 1,3,5 (1,536). K2 (2 x 1,024, at 0.25) cannot fit; K3 (1 x 256, at 0.5)
// would fit on SM 1 but must not cut ahead of K2 (Rule B1). At 1.0 K1 ends; K2 and K3 start.
TEST(Dissertation, Fig3_9_NoCuttingAhead) {
  const SimResult r = run_example("cut_ahead.json", "jetson-tx2");
  const auto& k1 = kernel(r, "Released first");
  EXPECT_EQ(starts(k1), std::vector<double>(7, 0.0));
  EXPECT_EQ(sms(k1), (std::vector<int>{0, 1, 0, 1, 0, 1, 0}));
  const auto& k2 = kernel(r, "Released second");
  EXPECT_EQ(starts(k2), (std::vector<double>{1.0, 1.0}));
  const auto& k3 = kernel(r, "Released 3rd, could cut ahead");
  EXPECT_EQ(starts(k3), (std::vector<double>{1.0}));
  EXPECT_DOUBLE_EQ(s(k3.launch_before), 0.5);
  EXPECT_DOUBLE_EQ(s(*k3.sync_after), 1.5);
}

// Fig. 3.11: K1 and K2 (2 x 1,024 each) fill both SMs; K3 and K4 wait until 1.0.
TEST(Dissertation, Fig3_11_ConcurrentKernels) {
  const SimResult r = run_example("concurrent_kernels.json", "jetson-tx2");
  EXPECT_EQ(starts(kernel(r, "K1")), (std::vector<double>{0, 0}));
  EXPECT_EQ(starts(kernel(r, "K2")), (std::vector<double>{0, 0}));
  EXPECT_EQ(starts(kernel(r, "K3")), (std::vector<double>{1, 1}));
  EXPECT_EQ(starts(kernel(r, "K4")), (std::vector<double>{1, 1}));
  EXPECT_EQ(sms(kernel(r, "K1")), (std::vector<int>{0, 1}));
}

// Fig. 3.12: 8 of K1's 18 blocks fit at once (4 x 512 per SM): waves at 0, 1 and 2 s. K2
// (1 x 256, at 0.25) fits beside the last wave and starts only then (Rule C).
TEST(Dissertation, Fig3_12_GreedyDispatch) {
  const SimResult r = run_example("greedy.json", "jetson-tx2");
  std::vector<double> expected(8, 0.0);
  expected.insert(expected.end(), 8, 1.0);
  expected.insert(expected.end(), 2, 2.0);
  EXPECT_EQ(starts(kernel(r, "K1")), expected);
  EXPECT_EQ(starts(kernel(r, "K2")), (std::vector<double>{2.0}));
}

// Fig. 3.13: K1 = 7 x 512 leaves 512 threads on SM 1. K2 (1 x 1,024) cannot run beside it and
// starts at 1.0; K3 (1 x 256) would fit at 0.25 but follows K2 in its stream: starts at 1.5.
TEST(Dissertation, Fig3_13_FifoWithinAStream) {
  const SimResult r = run_example("stream_fifo.json", "jetson-tx2");
  EXPECT_EQ(starts(kernel(r, "K2")), (std::vector<double>{1.0}));
  EXPECT_EQ(starts(kernel(r, "K3")), (std::vector<double>{1.5}));
}

// Fig. 3.14: K1 then K2 in one stream at 0 (4 x 1,024 each: the whole GPU), K3 in another at
// 0.25. K3 enters the primary queue at 0.25, K2 only when K1 completes at 1.0: K3 runs first.
TEST(Dissertation, Fig3_14_FifoInThePrimaryQueue) {
  const SimResult r = run_example("primary_fifo.json", "jetson-tx2");
  EXPECT_EQ(starts(kernel(r, "K1")), std::vector<double>(4, 0.0));
  EXPECT_EQ(starts(kernel(r, "K3")), std::vector<double>(4, 1.0));
  EXPECT_EQ(starts(kernel(r, "K2")), std::vector<double>(4, 2.0));
}

// Figs. 3.15 / 3.16: launch order decides concurrency. K1 first: its six 512-thread blocks
// leave 512 threads per SM, so K2's 1,024-thread block waits to 1.0 (both done at 2.0).
// K2 first: it takes SM 0, K1's blocks fill the rest at 0.25 (both done at 1.25).
TEST(Dissertation, Fig3_15_16_OrderingEffect) {
  const SimResult a = run_example("ordering_prevents.json", "jetson-tx2");
  EXPECT_EQ(sms(kernel(a, "K1")), (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(starts(kernel(a, "K2")), (std::vector<double>{1.0}));
  EXPECT_DOUBLE_EQ(last_end(kernel(a, "K2")), 2.0);

  const SimResult b = run_example("ordering_allows.json", "jetson-tx2");
  EXPECT_EQ(sms(kernel(b, "K2")), (std::vector<int>{0}));
  EXPECT_EQ(starts(kernel(b, "K1")), std::vector<double>(6, 0.25));
  EXPECT_EQ(sms(kernel(b, "K1")), (std::vector<int>{1, 0, 1, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(last_end(kernel(b, "K1")), 1.25);
}

// Fig. 3.18: K3 in the NULL stream waits for K1 (0-1) and K2 (0.2-1.2) although the GPU has
// room; K4, launched at 0.6 in its own stream, waits for K3 (1.2-2.2).
TEST(Dissertation, Fig3_18_NullStreamSerialises) {
  const SimResult r = run_example("null_stream.json", "jetson-tx2");
  EXPECT_EQ(starts(kernel(r, "K1")), (std::vector<double>{0, 0}));
  EXPECT_EQ(starts(kernel(r, "K2")), (std::vector<double>{0.2, 0.2}));
  EXPECT_EQ(starts(kernel(r, "K3 (NULL stream)")), (std::vector<double>{1.2, 1.2}));
  EXPECT_EQ(starts(kernel(r, "K4")), (std::vector<double>{2.2, 2.2}));
}

// Kernels held back by a NULL-stream op leave, once it completes, in launch order (rules A-C:
// nothing cuts ahead), not in the order their streams were created: C is listed before B but
// launched later (0.2 against 0.1), and each fills the TX2; B runs 1-2 s, C 2-3 s.
TEST(Dissertation, KernelsWaitingForTheNullStreamLeaveInLaunchOrder) {
  const SimResult r =
      run_text(scenario({null_spin("N", 256, 1, 1'000'000'000), spin("C", 1024, 4, 1'000'000'000, 0.2),
                         spin("B", 1024, 4, 1'000'000'000, 0.1)}),
               ideal_preset("jetson-tx2"));
  EXPECT_EQ(starts(kernel(r, "B")), std::vector<double>(4, 1.0));
  EXPECT_EQ(starts(kernel(r, "C")), std::vector<double>(4, 2.0));
}

// cudaStreamSynchronize on the shared NULL stream waits for the work in it at the call, not for
// what another thread launches there later: A (0-1 s) returns at 1, while B, launched at 0.5
// into the same NULL stream, runs 1-2 s (A used to return at 2).
TEST(Dissertation, NullStreamSyncWaitsOnlyForWorkAlreadyThere) {
  const SimResult r =
      run_text(scenario({null_spin("A", 256, 1, 1'000'000'000), null_spin("B", 256, 1, 1'000'000'000, 0.5)}),
               ideal_preset("gtx1080ti"));
  const auto& a = kernel(r, "A");
  ASSERT_TRUE(a.sync_after);
  EXPECT_DOUBLE_EQ(s(*a.sync_after), 1.0);
  const auto& b = kernel(r, "B");
  EXPECT_EQ(starts(b), std::vector<double>(1, 1.0));
  ASSERT_TRUE(b.sync_after);
  EXPECT_DOUBLE_EQ(s(*b.sync_after), 2.0);
}

// As the examiner creates them, a stream with a stream_priority is non-blocking: it neither waits
// for a NULL-stream op nor holds one back; a stream without one is blocking. N (NULL, 0-1 s);
// P (priority 0, 0.1 s, 3 s long) starts at once; B (no priority, 0.2 s) waits for N (1-2 s);
// N2 (NULL, 0.3 s) waits for B but not for P: 2-3 s.
TEST(Dissertation, StreamsWithAPriorityDoNotSynchroniseWithTheNullStream) {
  const SimResult r =
      run_text(scenario({null_spin("N", 256, 1, 1'000'000'000),
                         spin("P", 512, 2, 3'000'000'000, 0.1, R"(, "stream_priority": 0)"),
                         spin("B", 512, 2, 1'000'000'000, 0.2), null_spin("N2", 256, 1, 1'000'000'000, 0.3)}),
               ideal_preset("jetson-tx2"));
  EXPECT_EQ(starts(kernel(r, "P")), std::vector<double>(2, 0.1));
  EXPECT_EQ(starts(kernel(r, "B")), std::vector<double>(2, 1.0));
  EXPECT_EQ(starts(kernel(r, "N2")), std::vector<double>(1, 2.0));
  // A priority above 0 is outside every device's range: the examiner creates a default stream
  // (priority 0, blocking), so P waits for N as B does, and comes before B.
  const SimResult q =
      run_text(scenario({null_spin("N", 256, 1, 1'000'000'000),
                         spin("P", 512, 2, 3'000'000'000, 0.1, R"(, "stream_priority": 1)"),
                         spin("B", 512, 2, 1'000'000'000, 0.2), null_spin("N2", 256, 1, 1'000'000'000, 0.3)}),
               ideal_preset("jetson-tx2"));
  EXPECT_EQ(starts(kernel(q, "P")), std::vector<double>(2, 1.0));
  EXPECT_EQ(starts(kernel(q, "B")), std::vector<double>(2, 1.0));
  EXPECT_EQ(starts(kernel(q, "N2")), std::vector<double>(1, 4.0));
}

// ... and it is no level below priority 0 either: A (priority 1) and B (priority 0, 0.5 s) share
// the one level, so A's second wave (1 s) comes before B (2 s); as a lower level, B cut ahead.
TEST(Dissertation, APriorityAboveZeroIsTheDefaultStreamsNotALowerLevel) {
  const SimResult r =
      run_text(scenario({spin("A", 1024, 8, 1'000'000'000, 0, R"(, "stream_priority": 1)"),
                         spin("B", 1024, 4, 1'000'000'000, 0.5, R"(, "stream_priority": 0)")}),
               ideal_preset("jetson-tx2"));
  EXPECT_EQ(starts(kernel(r, "A")), (std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(starts(kernel(r, "B")), (std::vector<double>{2, 2, 2, 2}));
}

// Fig. 3.19: cudaFree at 0.4 returns when K1 and K2 are done (1.2); K3 launches 0.2 s later
// (1.4). K4's launch call, made at 0.6, blocks on the CPU until 1.2 (Pitfall 3.4).
TEST(Dissertation, Fig3_19_CudaFreeBlocksOtherThreads) {
  const SimResult r = run_example("cuda_free.json", "jetson-tx2");
  const auto& k3 = kernel(r, "K3");
  EXPECT_DOUBLE_EQ(s(k3.launch_before), 1.4);
  EXPECT_EQ(starts(k3), (std::vector<double>{1.4, 1.4}));
  const auto& k4 = kernel(r, "K4");
  EXPECT_DOUBLE_EQ(s(k4.launch_before), 0.6);
  EXPECT_DOUBLE_EQ(s(k4.launch_after), 1.2);
  EXPECT_EQ(starts(k4), (std::vector<double>{1.2, 1.2}));
}
