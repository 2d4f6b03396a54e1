// The FIFO model seed's task model on the simulator (sim/fifo_sim.hpp): Example 1's schedule
// from the task parameters of Example 2, Theorem 1's growing response times, and a light
// system whose response times stay put. Times in ms; ε = 0.01 ms.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpurt/analysis/fifo.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/sim/fifo_sim.hpp"

namespace gpurt {
namespace {

FifoSystem example(const std::string& name) {
  return load_fifo_system(std::string(GPURT_SOURCE_DIR) + "/examples/fifo/" + name);
}

Nanos ms(double v) { return *to_nanos(v, TimeUnit::ms, Rounding::nearest); }

// Example 2's tasks are Example 1's kernels (block times 3.8, 6, 6, 11.2 ms). As worked out
// in tests/sim/test_seed_examples.cpp for the examiner form of Fig. 2: K1 runs [0, 3.8];
// six of K2's blocks start at 0 and the seventh at 3.8, so K2 ends at 9.8; K3 waits for
// K2's blocks (rule R1b) and runs [6, 12]; K4's five blocks run [6, 17.2]; K5 (τ1's job 2,
// released at 8) waits for 1,024 free threads until K3 ends at 12: [12, 15.8], R = 7.8.
TEST(FifoSim, Example2ParametersGiveFigure2Schedule) {
  const FifoSystem s = example("example2.json");
  FifoSimOptions o;
  o.jobs = 2;
  const FifoSimResult r = simulate_fifo(s, o);
  ASSERT_EQ(r.tasks.size(), 4u);
  EXPECT_EQ(r.tasks[0].response[0], ms(3.8));
  EXPECT_EQ(r.tasks[1].response[0], ms(9.8));
  EXPECT_EQ(r.tasks[2].response[0], ms(12));
  EXPECT_EQ(r.tasks[3].response[0], ms(17.2));
  EXPECT_EQ(r.tasks[0].response[1], ms(7.8));
  EXPECT_EQ(r.tasks[0].worst, ms(7.8));
  EXPECT_EQ(r.tasks[0].mean, ms(5.8));
}

// Theorem 1 with m = 10, b_max = 4 (k = 8), ε = 0.01 ms: τ1 = (8ε, 1, 2, 4), τ2 = (2, 1, 2, 1),
// τ3 = (5, 1, 5, 1); U_sum = 7.08 >= m − b_max + 1 = 7. Job 1 of τ3 waits ε for τ1's blocks
// (all 10 threads busy), R = 1 + ε; from then on every job inherits the lag of the one before
// and adds to it, so the response times climb job over job without bound.
TEST(FifoSim, Theorem1ResponseTimesGrowJobOverJob) {
  const FifoSystem s = example("theorem1.json");
  const FifoResult a = analyse_fifo(s);
  EXPECT_TRUE(a.at_or_above_limit);
  EXPECT_FALSE(a.overloaded);
  FifoSimOptions o;
  o.jobs = 60;
  const FifoSimResult r = simulate_fifo(s, o);
  const std::vector<Nanos>& tau3 = r.tasks[2].response;
  ASSERT_EQ(tau3.size(), 60u);
  EXPECT_EQ(tau3[0], ms(1.01));
  EXPECT_EQ(tau3[1], ms(1.02));
  for (std::size_t j = 1; j < tau3.size(); ++j) {
    EXPECT_GE(tau3[j], tau3[j - 1]) << "job " << j + 1;             // never recovers
    EXPECT_LE(tau3[j] - tau3[j - 1], ms(0.01)) << "job " << j + 1;  // at most ε per job
  }
  // At least ε every two jobs: after 60 jobs the lag is >= 30ε (and growing).
  EXPECT_GE(tau3.back(), ms(1 + 30 * 0.01));
  EXPECT_GT(tau3.back(), tau3[tau3.size() / 2]);
}

// The same tasks with period 2 (U_sum = 3.54, below the limit): every period starts with an
// idle GPU, τ1's two blocks and τ2 fill it for ε, τ3 runs [ε, 1 + ε]: R_3 = 1.01 ms for every
// job, R_1 = ε, R_2 = 1.
TEST(FifoSim, LightSystemStaysBounded) {
  FifoSystem s = example("theorem1.json");
  for (FifoTask& t : s.tasks) t.period = ms(2);
  EXPECT_FALSE(analyse_fifo(s).at_or_above_limit);
  FifoSimOptions o;
  o.jobs = 60;
  const FifoSimResult r = simulate_fifo(s, o);
  for (Nanos x : r.tasks[2].response) EXPECT_EQ(x, ms(1.01));
  EXPECT_EQ(r.tasks[0].worst, ms(0.01));
  EXPECT_EQ(r.tasks[1].worst, ms(1));
  // Random first releases change who waits for whom (τ1's 4-thread blocks may wait for τ2
  // and τ3 to leave room), but not that the lag stays bounded: the second half of the run
  // is no worse than the first.
  o.random_offsets = true;
  o.seed = 7;
  const FifoSimResult shifted = simulate_fifo(s, o);
  for (const FifoTaskSim& t : shifted.tasks) {
    const auto half = t.response.begin() + static_cast<std::ptrdiff_t>(t.response.size() / 2);
    EXPECT_LE(*std::max_element(half, t.response.end()), *std::max_element(t.response.begin(), half))
        << t.name;
  }
}

// A block runs C_i/(g_i·b_i) rounded up to whole ns (never shorter than its share of C_i):
// C = 1000 ns over 3 one-thread blocks gives 334-ns blocks, all three at once on 10 threads.
TEST(FifoSim, BlockTimesRoundUp) {
  FifoSystem s = example("theorem1.json");
  s.tasks.resize(1);
  s.tasks[0].wcet = Nanos{1000};
  s.tasks[0].grid = 3;
  s.tasks[0].block = 1;
  FifoSimOptions o;
  o.jobs = 2;
  const FifoSimResult r = simulate_fifo(s, o);
  ASSERT_EQ(r.tasks.size(), 1u);
  EXPECT_EQ(r.tasks[0].worst, Nanos{334});
  EXPECT_EQ(r.tasks[0].response[1], Nanos{334});
}

TEST(FifoSim, RejectsBadOptionsAndHugeGpus) {
  FifoSystem s = example("theorem1.json");
  FifoSimOptions o;
  o.jobs = 0;
  EXPECT_THROW(simulate_fifo(s, o), Error);
  s.gpu_threads = std::int64_t{1} << 33;
  EXPECT_THROW(fifo_platform(s), Error);
}

}  // namespace
}  // namespace gpurt
