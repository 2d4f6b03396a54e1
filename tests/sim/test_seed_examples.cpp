// The FIFO model seed's Example 1 / Fig. 2 and Theorem 1 construction, and the PBS seed's
// Example 2.1, in the simulator.
#include <fmt/format.h>

#include "sim_helpers.hpp"

using namespace gpurt;
using namespace gpurt::test;

// FIFO model seed, Examples 1-2 (4,096 threads, one pool; paper time unit = 1 ms):
// τ1 = (1024·3.8, 8, 1, 1024), τ2 = (3584·6, 16, 7, 512), τ3 = (1024·6, 17, 1, 1024),
// τ4 = (2560·11.2, 18, 5, 512); block time C/(g·b): 3.8, 6, 6, 11.2.
// K1 (τ1) and six of K2's seven blocks start at 0 (1024 + 6·512 = 4096). K1 ends at 3.8, K2's
// last block takes 512 of the 1,024 freed threads; K3 (1,024) is blocked until K2's six blocks
// end at 6 (Rule R1b), then K3 and all of K4 (2,560) start at 6. K5 (τ1's second job, released
// at 8) finds no free thread until K3 ends at 12 and starts then. The seed's text says K5
// waits "until K4 finishes" (17.2); with its own Example 2 parameters the rules give 12
// (docs/simulator.md discusses this).
TEST(FifoModel, Example1Figure2Schedule) {
  const SimResult r = run_example("fifo_example_1.json", "examples/platforms/fifo-4096.json");
  const double ms = 1e-3;
  const auto& k1 = kernel(r, "tau1", 0);
  EXPECT_DOUBLE_EQ(first_start(k1), 0.0);
  EXPECT_NEAR(last_end(k1), 3.8 * ms, 1e-12);
  const auto& k2 = kernel(r, "tau2", 0);
  std::vector<double> k2_expected(6, 0.0);
  k2_expected.push_back(3.8 * ms);
  const auto k2_starts = starts(k2);
  ASSERT_EQ(k2_starts.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_NEAR(k2_starts[i], k2_expected[i], 1e-12) << i;
  EXPECT_NEAR(first_start(kernel(r, "tau3", 0)), 6 * ms, 1e-12);
  for (double t : starts(kernel(r, "tau4", 0))) EXPECT_NEAR(t, 6 * ms, 1e-12);
  const auto& k5 = kernel(r, "tau1", 1);
  EXPECT_NEAR(s(k5.launch_before), 8 * ms, 1e-12);
  EXPECT_NEAR(first_start(k5), 12 * ms, 1e-12);
}

namespace {

// Theorem 1's task system on m threads with b_max = b: k = floor(m/b)·b;
// τ1 = (ε·k, 1, k/b, b), τ2 = (m−k, 1, m−k, 1), τ3 = (k−b+1, 1, k−b+1, 1); one time unit = 1 s.
std::vector<double> theorem1_tau3_response_times(int m, int b, double eps, int jobs) {
  const int k = m / b * b;
  Platform p = *find_platform_preset("gtx1070");
  p.id = "fifo-m";
  p.sms = 1;
  p.partition_unit = 1;
  p.max_threads = m;
  p.max_blocks = 1 << 20;
  const auto inst = [&](const char* name, int blocks, int threads, double seconds) {
    return fmt::format(R"({{"filename": "timer_spin.so", "log_name": "{0}.json", "label": "{0}",
        "thread_count": {2}, "block_count": {1}, "additional_info": {3}, "period": 1}})",
                       name, blocks, threads, static_cast<long long>(seconds * 1e9));
  };
  const std::string config = fmt::format(
      R"({{"name": "Theorem 1", "max_iterations": {}, "max_time": 0, "benchmarks": [{}, {}, {}]}})", jobs,
      inst("tau1", k / b, b, eps), inst("tau2", m - k, 1, 1.0), inst("tau3", k - b + 1, 1, 1.0));
  const SimResult r = run_text(config, p);
  std::vector<double> response;
  for (int j = 0; j < jobs; ++j)
    response.push_back(last_end(kernel(r, "tau3", static_cast<std::size_t>(j))) - j);
  return response;
}

}  // namespace

// Theorem 1 with m = 10, b = 4 (k = 8), ε = 1 ms: U = 8ε + 2 + 5 → m − b + 1 = 7.
// Job 1: τ1 (8 threads) and τ2 (2) fill the GPU on [0, ε); τ3's five blocks start at ε and end
// at 1 + ε, so R = 1 + ε. Job 2: at 1 only one τ1 block fits (5 threads free); the second
// starts at 1 + ε with τ2's two blocks, leaving 4 threads: four τ3 blocks start at 1 + ε, the
// fifth at 1 + 2ε, so R = 1 + 2ε. From there the lag keeps accumulating: R grows without
// bound, by ε every one or two jobs under the simulator's deterministic tie-breaking (the
// seed's adversarial schedule has exactly ε per job).
TEST(FifoModel, Theorem1ResponseTimesGrowWithoutBound) {
  const double eps = 1e-3;
  const auto r = theorem1_tau3_response_times(10, 4, eps, 40);
  EXPECT_NEAR(r[0], 1 + eps, 1e-12);
  EXPECT_NEAR(r[1], 1 + 2 * eps, 1e-12);
  for (std::size_t j = 1; j < r.size(); ++j) {
    EXPECT_GE(r[j], r[j - 1] - 1e-12) << "job " << j;        // never recovers
    EXPECT_LE(r[j] - r[j - 1], eps + 1e-12) << "job " << j;  // at most ε per job
  }
  EXPECT_GE(r.back(), 1 + 20 * eps);  // keeps growing: ≥ ε per two jobs
}

// PBS seed Example 2.1: two SMs of 256 threads; J1 = 4 x 64 threads, J2 = 1 x 192.
// {J1, J2}: J1's blocks go round-robin, 128 threads per SM, and J2 fits nowhere: it waits.
// {J2, J1}: J2 takes SM 0 (192), J1's blocks fill SM 1 and the 64 left on SM 0: all co-run.
TEST(PbsSeed, Example2_1SubmissionOrderDecidesEligibility) {
  const Platform p = platform_from("examples/platforms/pbs-example-2-1.json");
  const auto config = [](bool j1_first) {
    const std::string j1 = R"({"filename": "timer_spin.so", "log_name": "j1.json", "label": "J1",
        "thread_count": 64, "block_count": 4, "additional_info": 1000000})";
    const std::string j2 = R"({"filename": "timer_spin.so", "log_name": "j2.json", "label": "J2",
        "thread_count": 192, "block_count": 1, "additional_info": 1000000})";
    return fmt::format(R"({{"name": "PBS Example 2.1", "max_iterations": 1, "max_time": 0,
        "benchmarks": [{}, {}]}})",
                       j1_first ? j1 : j2, j1_first ? j2 : j1);
  };
  const SimResult a = run_text(config(true), p);
  EXPECT_EQ(sms(kernel(a, "J1")), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(first_start(kernel(a, "J2")), 0.001);  // after J1
  const SimResult b = run_text(config(false), p);
  EXPECT_EQ(sms(kernel(b, "J2")), (std::vector<int>{0}));
  EXPECT_EQ(sms(kernel(b, "J1")), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(starts(kernel(b, "J1")), std::vector<double>(4, 0.0));
}
