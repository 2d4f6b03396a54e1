// FIFO model seed: Example 2's task set and Theorem 1's limit.
#include <gtest/gtest.h>

#include "gpurt/analysis/fifo.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {
namespace {

// Example 2 (FIFO model seed §IV): τ1 = (1024·3.8, 8, 1, 1024), τ2 = (3584·6, 16, 7, 512),
// τ3 = (1024·6, 17, 1, 1024), τ4 = (2560·11.2, 18, 5, 512) on m = 4096 threads.
const char* kExample2 = R"({"format": "gpurt/fifo@1", "time_unit": "ms", "gpu_threads": 4096, "tasks": [
  {"name": "t1", "wcet": 3891.2, "period": 8, "grid": 1, "block": 1024},
  {"name": "t2", "wcet": 21504, "period": 16, "grid": 7, "block": 512},
  {"name": "t3", "wcet": 6144, "period": 17, "grid": 1, "block": 1024},
  {"name": "t4", "wcet": 28672, "period": 18, "grid": 5, "block": 512}]})";

TEST(FifoModel, Example2Utilisation) {
  const FifoResult r = analyse_fifo(parse_fifo_system(Json::parse(kExample2), "ex2.json"));
  // u = 486.4 + 1344 + 361.41 + 1592.89 = 3784.70 (the seed: "U_sum = 3784.7 < 4096 = m").
  EXPECT_NEAR(r.total_utilization, 3784.7, 0.01);
  EXPECT_EQ(r.max_block, 1024);
  EXPECT_DOUBLE_EQ(r.limit, 4096 - 1024 + 1);  // 3073
  EXPECT_TRUE(r.at_or_above_limit);            // 3784.7 >= 3073
  EXPECT_FALSE(r.overloaded);                  // 3784.7 <= 4096
}

TEST(FifoModel, Theorem1Construction) {
  // Theorem 1's system with m = 4096, b_max = 1024 and ε → 0: k = floor(m/b_max)·b_max = 4096,
  // τ2 = (m − k, 1, m − k, 1) vanishes, τ3 = (k − b_max + 1, ...) = 3073, τ1 = (ε·k, 1, 4, 1024).
  // With ε = 0.001 and T = 1: C1 = 4.096, U = 4.096 + 3073 = 3077.096 >= 3073.
  const char* doc = R"({"format": "gpurt/fifo@1", "gpu_threads": 4096, "tasks": [
    {"name": "t1", "wcet": 4.096, "period": 1, "grid": 4, "block": 1024},
    {"name": "t3", "wcet": 3073, "period": 1, "grid": 3073, "block": 1}]})";
  const FifoResult r = analyse_fifo(parse_fifo_system(Json::parse(doc), "t1.json"));
  EXPECT_NEAR(r.total_utilization, 3077.096, 1e-9);
  EXPECT_TRUE(r.at_or_above_limit);
  // Below the limit once τ3 shrinks by 5 threads: 4.096 + 3068 = 3072.096 < 3073.
  Json d = Json::parse(doc);
  d["tasks"][1]["wcet"] = 3068;
  d["tasks"][1]["grid"] = 3068;
  EXPECT_FALSE(analyse_fifo(parse_fifo_system(d, "t1.json")).at_or_above_limit);
}

TEST(FifoModel, RejectsBlocksAboveTheLimit) {
  Json d = Json::parse(kExample2);
  d["tasks"][0]["block"] = 2048;
  try {
    parse_fifo_system(d, "ex2.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "ex2.json: tasks[0].block = 2048: must be <= b_lim = 1024 (the largest block the GPU "
                 "accepts)");
  }
}

}  // namespace
}  // namespace gpurt
